//! Classifications: `getClasses` and `classes/retrieve` (D-21, D-22, D-25), `classes/persist`
//! (the six rules of the specification, D-23, D-24, D-40) and `classes/perform` (D-24).
//!
//! A classification's tid is its name and its root node's identifier: the root is `/<tid>` and
//! every other node's path starts with `/<tid>/`. Trees are read by `storage::trees` (the
//! classifications with their names in one statement, then each tree's skeleton and its nodes
//! in pages, each an aggregated statement) and ordered without recursion, so that retrieving
//! large and deep trees stays linear.
//!
//! [`read`] answers `getClasses` and `classes/retrieve`, [`persist`] and [`perform`] the batches;
//! this file holds what they share.

mod perform;
mod persist;
mod read;

use core_api::messages;
use core_api::types::{Name, NameItm};
use core_api_support::fill;
use sqlx::AnyConnection;

pub(crate) use self::{
    perform::Perform,
    persist::{Persist, items},
    read::{Form, Retrieved, retrieve},
};
use super::super::{Locales, batch::Tx, itm};
use crate::storage::records::{self, CLASSIFICATIONS, Identity};

/// The `dataType` of classification records.
const DATA_TYPE: &str = "classification";

/// A name item: the default name for an empty `loc`.
fn name_item(loc: &str, value: String) -> NameItm {
    itm::name((!loc.is_empty()).then_some(loc), value)
}

/// A `name` element, absent when there is no name.
fn named(itm: Vec<NameItm>) -> Option<Name> {
    (!itm.is_empty()).then_some(Name { itm })
}

/// A classification by its identity, in an item's transaction.
async fn find(
    transaction: &mut Tx,
    identity: Identity<'_>,
) -> Result<Option<records::Found>, sqlx::Error> {
    records::find(&mut **transaction, &CLASSIFICATIONS, identity).await
}

/// Whether a name's `loc` is empty (a default name) or a stored locale; an unknown one adds its
/// warning.
async fn known(
    locales: &mut Locales,
    connection: &mut AnyConnection,
    loc: &str,
    warnings: &mut Vec<String>,
) -> Result<bool, sqlx::Error> {
    let known = locales.known(connection, loc).await?;
    if !known {
        warnings.push(fill(
            messages::CANNOT_FIND_LANGUAGE_ID_WITH_CODE_CODE,
            &[&loc],
        ));
    }
    Ok(known)
}
