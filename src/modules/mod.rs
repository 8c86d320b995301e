//! One module per specification module, each implementing the generated trait of its operations,
//! and what their messages share: the envelope, items, links as batch items, and batch
//! processing.

mod batch;
mod cm;
mod common;
mod dam;
mod envelope;
mod itm;
mod links;
mod peo;
mod pim;

pub use common::messages::{StoredMessage, list as list_messages};
