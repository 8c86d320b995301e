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
mod vals;

use std::collections::HashSet;

use sqlx::AnyConnection;

use crate::storage::records::{self, Identity, LOCALES};

pub use common::messages::{StoredMessage, list as list_messages};

/// The locales an item's names and texts have named so far, so that each is looked up once.
#[derive(Default)]
pub(crate) struct Locales(HashSet<String>);

impl Locales {
    /// Whether `loc` is empty (a text without a locale) or a stored locale.
    pub(crate) async fn known(
        &mut self,
        connection: &mut AnyConnection,
        loc: &str,
    ) -> Result<bool, sqlx::Error> {
        if loc.is_empty() || self.0.contains(loc) {
            return Ok(true);
        }
        let found = records::find(&mut *connection, &LOCALES, Identity::Key(loc))
            .await?
            .is_some();
        if found {
            self.0.insert(loc.to_string());
        }
        Ok(found)
    }
}
