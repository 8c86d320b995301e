//! The `links` of a message as batch items: each inner `itms` group under an outer `itms` whose
//! `type` names the kind of link (`assetToProduct`, `assetToKeyword`, `peoToProject`), with its
//! `itm` values by key. Links persist (Common) and PEO links persist read them alike.

use core_api::types::{Itms, Links};

/// One link of the request: an inner group and the kind its outer group names.
pub(crate) struct Link<'a> {
    /// The outer group's `type`.
    pub(crate) kind: Option<&'a str>,
    /// The inner group.
    pub(crate) group: &'a Itms,
}

/// The links of a message, one per inner group, in request order.
pub(crate) fn of(links: &Links) -> Vec<Link<'_>> {
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
