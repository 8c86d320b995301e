//! core-server: the Core Interface v1 service (PIM, DAM, channel management, product export
//! options). See `ARCHITECTURE.md` for how a request flows from the generated router to storage.

/// The heap allocator of the server binary and its benchmark: messages decode into many small
/// strings, and glibc's allocator spent about 40% of an XML decode in `malloc`/`free`
/// (`perf` on `cargo bench --bench codecs`).
pub use mimalloc::MiMalloc as Allocator;

/// A statement of the service's SQL: the text itself, registered as a
/// [`storage::Statement`] so that the query-plan test asks the database how it runs every one
/// (D-37: every query is served by an index).
/// `sql!(sqlite: …)` and `sql!(postgres: …)` mark a statement written for one database.
macro_rules! sql {
    (sqlite: $text:expr) => {
        sql!(@ Some($crate::storage::Backend::Sqlite), $text)
    };
    (postgres: $text:expr) => {
        sql!(@ Some($crate::storage::Backend::Postgres), $text)
    };
    (@ $backend:expr, $text:expr) => {{
        const TEXT: &str = $text;
        ::inventory::submit! {
            $crate::storage::Statement {
                text: TEXT,
                backend: $backend,
                file: file!(),
                line: line!(),
            }
        }
        TEXT
    }};
    ($text:expr) => {
        sql!(@ None, $text)
    };
}

/// The parts of a statement that reads the rows whose column is in a list
/// ([`storage::in_list`]), registered like [`sql!`] with a one-value list.
macro_rules! sql_in {
    ($head:ident ! ($($args:tt)*), $tail:literal) => {
        sql_in!(@ ($head!($($args)*)), $tail)
    };
    ($head:literal, $tail:literal) => {
        sql_in!(@ ($head), $tail)
    };
    (@ ($($head:tt)*), $tail:literal) => {{
        const LIST: $crate::storage::InList = $crate::storage::InList {
            head: $($head)*,
            tail: $tail,
        };
        ::inventory::submit! {
            $crate::storage::Statement {
                text: concat!($($head)*, "$1", $tail),
                backend: None,
                file: file!(),
                line: line!(),
            }
        }
        LIST
    }};
}

pub mod auth;
pub mod bootstrap;
pub mod error;
pub mod http;
pub mod local_time;
pub mod metrics;
pub mod modules;
pub mod repr;
pub mod server;
pub mod service;
pub mod settings;
pub mod storage;
pub mod testing;
