//! The macros every statement is written with: `sql!` and `sql_in!` register each text as a
//! [`super::Statement`], so that `tests/plans.rs` can ask the database how it runs every one.

/// A statement of the service's SQL: the text itself, registered as a
/// [`crate::storage::Statement`] so that the query-plan test asks the database how it runs every one
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
/// ([`crate::storage::in_list`]), registered like [`sql!`] with a one-value list.
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

/// The stored sort key's segment of a keyword (migration 0013): its order number `$order` (its
/// count of digits as one character from '1', then the digits), its name `$name`, then U+0001.
macro_rules! segment {
    (sqlite, $order:literal, $name:literal) => {
        concat!(
            "char(48 + length(",
            $order,
            ")) || ",
            $order,
            " || ",
            $name,
            " || char(1)"
        )
    };
    (postgres, $order:literal, $name:literal) => {
        concat!(
            "chr(48 + length(",
            $order,
            "::text)) || ",
            $order,
            "::text || ",
            $name,
            " || chr(1)"
        )
    };
}
