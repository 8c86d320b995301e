//! The `links` of a message as batch items: each inner `itms` group under an outer group whose
//! `type` names the kind of link (`assetToProduct`, `assetToKeyword`, `peoToProject`), with its
//! `itm` values by key. Links persist (Common) and PEO links persist read them alike.

use core_api::types::{Itms, LinksBatch};
use serde::{Serialize, Serializer};

/// One link of the request: an inner group and the kind its outer group names.
pub(crate) struct Link<'a> {
    /// The outer group's `type`.
    pub(crate) kind: Option<&'a str>,
    /// The inner group.
    pub(crate) group: &'a Itms,
}

/// A link is checked against the document as the group it is.
impl Serialize for Link<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.group.serialize(serializer)
    }
}

/// The links of a message, one per inner group, in request order.
pub(crate) fn of(links: &LinksBatch) -> Vec<Link<'_>> {
    links
        .itms
        .iter()
        .flat_map(|outer| {
            outer.itms.iter().map(move |group| Link {
                kind: outer.type_.as_deref(),
                group,
            })
        })
        .collect()
}

/// The values of a key in a group, in order.
pub(crate) fn values<'a>(group: &'a Itms, key: &str) -> Vec<&'a str> {
    group
        .itm
        .iter()
        .filter(|item| item.key.as_deref() == Some(key))
        .map(|item| item.value.as_str())
        .collect()
}

/// The one value of a key in a group, if it occurs exactly once.
pub(crate) fn value<'a>(group: &'a Itms, key: &str) -> Option<&'a str> {
    match values(group, key).as_slice() {
        [value] => Some(value),
        _ => None,
    }
}
