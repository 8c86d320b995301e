//! One module per specification module, each implementing the generated trait of its operations,
//! and what their messages share: the envelope and batch processing.

mod access;
mod batch;
mod cm;
mod common;
mod dam;
mod envelope;
mod links;
mod peo;
mod pim;

pub use common::messages::{StoredMessage, list as list_messages};
