//! The PEO module over HTTP: [`peos`] (retrieve and query) and [`links`] (links persist); the
//! snapshots of the module's answers are in `snapshots/` beside.

mod links;
mod peos;
