//! core-server: the Core Interface v1 service (PIM, DAM, channel management, product export
//! options). See `ARCHITECTURE.md` for how a request flows from the generated router to storage.

#![warn(missing_docs)]

/// The heap allocator of the server binary and its benchmark: messages decode into many small
/// strings, and glibc's allocator spent about 40% of an XML decode in `malloc`/`free`
/// (`perf` on `cargo bench --bench codecs`).
pub use mimalloc::MiMalloc as Allocator;

pub mod auth;
pub mod bootstrap;
pub mod error;
pub mod http;
pub mod local_time;
pub mod logs;
pub mod metrics;
pub mod modules;
/// The representation engine (`crates/core-repr`), under the name the server's modules use.
pub use core_repr as repr;
pub mod server;
pub mod service;
pub mod settings;
pub mod storage;
/// Helpers for tests that need a database of their own (kept with the storage they set up).
pub use storage::testing;
