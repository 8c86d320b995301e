//! HTTP: the server's side of the generated handlers, content negotiation, and the application
//! that mounts the generated router beside the service's own endpoints.

pub mod app;
pub mod binary;
mod deviation;
pub mod docs;
pub mod frames;
pub mod host;
pub mod limit;
pub mod listen;
pub mod negotiate;
pub mod observe;
mod stream;
