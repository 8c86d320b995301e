//! core-server: the Core Interface v1 service (PIM, DAM, channel management, product export
//! options). See `ARCHITECTURE.md` for how a request flows from the generated router to storage.

pub mod error;
pub mod http;
pub mod modules;
pub mod repr;
pub mod server;
pub mod service;
pub mod settings;
pub mod storage;
