//! One module per specification module, each implementing the generated trait of its operations,
//! and what their messages share: the envelope, items, links as batch items, and batch
//! processing.

mod batch;
mod cm;
mod common;
mod dam;
mod deletion;
mod envelope;
pub mod idempotency;
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

/// The assets linked to records (keywords, channels) that the caller may see, by record, in row
/// order. `rows` are (record, asset tid, what the answer shows of the asset, a role the asset
/// is restricted to), one per role, the rows of one record and asset side by side (the storage
/// queries order them so).
pub(crate) fn visible_assets<T>(
    caller: &crate::auth::Caller,
    rows: impl IntoIterator<Item = (i64, String, T, Option<String>)>,
) -> std::collections::HashMap<i64, Vec<(String, T)>> {
    let mut grouped: Vec<(i64, String, T, Vec<String>)> = Vec::new();
    for (record, tid, shown, role) in rows {
        match grouped.last_mut() {
            Some((last, last_tid, _, roles)) if *last == record && *last_tid == tid => {
                roles.extend(role);
            }
            _ => grouped.push((record, tid, shown, role.into_iter().collect())),
        }
    }
    let mut visible: std::collections::HashMap<i64, Vec<(String, T)>> =
        std::collections::HashMap::new();
    for (record, tid, shown, roles) in grouped {
        if caller.sees(&roles) {
            visible.entry(record).or_default().push((tid, shown));
        }
    }
    visible
}
