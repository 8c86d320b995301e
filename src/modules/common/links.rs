//! Links: `links/persist` (D-33) links assets to products (by link type, an attribute definition
//! with a cardinality) and to keywords. Each inner `itms` group is one item of the batch.

use std::marker::PhantomData;

use core_api::messages;
use core_api::types::{Details, Itms, ResponseType, ResponseTypeStatus};
use core_api_support::fill;

use super::super::{
    batch::{self, Apply, ItemError, Scope, Tx},
    itm,
    links::{Link, values},
};
use crate::{
    auth::Caller,
    storage::{
        keywords, links as stored,
        records::{self, ASSETS, Identity, KEYWORDS, PRODUCTS},
    },
};

/// The `dataType` of link records.
const DATA_TYPE: &str = "link";

/// `links/persist`: each link saved in its transaction.
pub(crate) struct Persist<'r>(PhantomData<&'r ()>);

impl<'r> Apply for Persist<'r> {
    type Item = Link<'r>;

    /// The record of a link: `details` repeat what it links (`productTid` and `linkType`, or
    /// `keywordPath`; an `itms` of `assetTid`).
    fn echo(link: &Link<'r>) -> ResponseType {
        let mut record = batch::record(DATA_TYPE, "create", ResponseTypeStatus::Error, "");
        let keys: &[&str] = match link.kind {
            Some("assetToKeyword") => &["keywordPath", "keywordId"],
            _ => &["productTid", "productId"],
        };
        let mut itm: Vec<_> = keys
            .iter()
            .flat_map(|key| {
                values(link.group, key)
                    .into_iter()
                    .map(|value| itm::keyed(key, value))
            })
            .collect();
        if link.kind != Some("assetToKeyword")
            && let Some(link_type) = &link.group.type_
        {
            itm.push(itm::keyed("linkType", link_type.as_str()));
        }
        let assets = ["assetTid", "assetId"]
            .iter()
            .flat_map(|key| values(link.group, key))
            .map(itm::text)
            .collect();
        record.details = Some(Details {
            itm,
            itms: vec![Itms {
                key: Some("assetTid".to_string()),
                itm: assets,
                ..Itms::default()
            }],
            mode: None,
        });
        record
    }

    async fn apply<'a>(
        transaction: &'a mut Tx,
        link: &'a Link<'r>,
        scope: &'a Scope<'a>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Persist::echo(link);
        match link.kind {
            Some("assetToProduct") => product(transaction, scope.caller, link.group, &echo).await?,
            Some("assetToKeyword") => keyword(transaction, scope.caller, link.group, &echo).await?,
            other => {
                return Err(batch::refuse(
                    &echo,
                    fill(
                        messages::UNSUPPORTED_LINK_TYPE_TYPE,
                        &[&other.unwrap_or_default()],
                    ),
                ));
            }
        }
        Ok(batch::success(
            echo,
            messages::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY,
        ))
    }
}

/// Reads the one identity of a resource from `key_name` (its tid or path) or `id_name`.
fn identity<'a>(
    group: &'a Itms,
    key_name: &'static str,
    id_name: &'static str,
    echo: &ResponseType,
) -> Result<Identity<'a>, ItemError> {
    match (
        values(group, key_name).as_slice(),
        values(group, id_name).as_slice(),
    ) {
        ([key], []) => Ok(Identity::Key(key)),
        ([], [id]) => id.trim().parse().map(Identity::Id).map_err(|_| {
            batch::refuse(
                echo,
                fill(messages::INVALID_VALUE_VALUE_FOR_KEY, &[&id, &id_name]),
            )
        }),
        ([], []) => Err(batch::refuse(
            echo,
            fill(messages::MISSING_REQUIRED_VALUE_KEY, &[&key_name]),
        )),
        _ => Err(batch::refuse(
            echo,
            fill(
                messages::GIVE_ONE_TIDKEY_OR_ONE_IDKEY,
                &[&key_name, &id_name],
            ),
        )),
    }
}

/// The assets of a group: each `assetTid` and `assetId`.
fn asset_identities<'a>(
    group: &'a Itms,
    echo: &ResponseType,
) -> Result<Vec<Identity<'a>>, ItemError> {
    let mut identities: Vec<Identity<'a>> = values(group, "assetTid")
        .into_iter()
        .map(Identity::Key)
        .collect();
    for id in values(group, "assetId") {
        identities.push(Identity::Id(id.trim().parse().map_err(|_| {
            batch::refuse(
                echo,
                fill(messages::INVALID_VALUE_VALUE_FOR_KEY, &[&id, &"assetId"]),
            )
        })?));
    }
    if identities.is_empty() {
        return Err(batch::refuse(
            echo,
            fill(messages::MISSING_REQUIRED_VALUE_KEY, &[&"assetTid"]),
        ));
    }
    Ok(identities)
}

/// The ids of the assets of a group, each found and visible to the caller.
async fn assets(
    transaction: &mut Tx,
    caller: &Caller,
    group: &Itms,
    echo: &ResponseType,
) -> Result<Vec<i64>, ItemError> {
    let mut ids = Vec::new();
    for identity in asset_identities(group, echo)? {
        ids.push(batch::visible(transaction, caller, &ASSETS, identity, "Asset", echo).await?);
    }
    Ok(ids)
}

async fn product(
    transaction: &mut Tx,
    caller: &Caller,
    group: &Itms,
    echo: &ResponseType,
) -> Result<(), ItemError> {
    let product = identity(group, "productTid", "productId", echo)?;
    let product = batch::visible(transaction, caller, &PRODUCTS, product, "Product", echo).await?;
    let Some(link_type) = group.type_.as_deref() else {
        return Err(batch::refuse(echo, messages::ATTRIBUTE_NOT_FOUND));
    };
    let link_type = stored::link_type(transaction, link_type)
        .await?
        .ok_or_else(|| batch::refuse(echo, messages::ATTRIBUTE_NOT_FOUND))?;
    let assets = assets(transaction, caller, group, echo).await?;
    // Concurrent links to one product are counted one after the other.
    stored::lock_product(transaction, product).await?;
    let mut given = std::collections::HashSet::with_capacity(assets.len());
    for asset in &assets {
        let linked = !given.insert(*asset)
            || stored::is_linked(transaction, product, *asset, link_type.id).await?;
        if linked {
            return Err(batch::refuse(
                echo,
                messages::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_PRODUCT,
            ));
        }
    }
    let linked = stored::linked(transaction, product, link_type.id).await?;
    if link_type
        .cardinality
        .is_some_and(|most| linked.linked + assets.len() as i64 > most)
    {
        return Err(batch::refuse(
            echo,
            messages::PRODUCT_ATTRIBUTE_CARDINALITY_HAS_BEEN_EXCEEDED,
        ));
    }
    for (offset, asset) in assets.iter().enumerate() {
        let position = linked.last + 1 + offset as i64;
        let inserted = stored::link(transaction, product, *asset, link_type.id, position).await;
        // A concurrent request may have linked it first.
        batch::unless_taken(inserted, || {
            batch::refuse(echo, messages::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_PRODUCT)
        })?;
    }
    Ok(())
}

async fn keyword(
    transaction: &mut Tx,
    caller: &Caller,
    group: &Itms,
    echo: &ResponseType,
) -> Result<(), ItemError> {
    let keyword = identity(group, "keywordPath", "keywordId", echo)?;
    let found = records::find(&mut **transaction, &KEYWORDS, keyword).await?;
    let Some(found) = found else {
        return Err(batch::refuse(echo, super::keywords::not_found(keyword)));
    };
    // The primary key decides: an asset linked already, earlier in this group or before.
    for asset in assets(transaction, caller, group, echo).await? {
        let inserted = keywords::link_asset(transaction, found.id, asset).await;
        batch::unless_taken(inserted, || {
            batch::refuse(echo, messages::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_KEYWORD)
        })?;
    }
    Ok(())
}
