//! Links: `links/persist` (D-33) links assets to products (by link type, an attribute definition
//! with a cardinality) and to keywords. Each inner `itms` group is one item of the batch.

use core_api::types::{Details, Itm, Itms, ResponseType, ResponseTypeStatus};
use sqlx::Row;

pub(crate) use super::super::links::of;
use super::super::{
    access::{Key, Restricted, restricted},
    batch::{self, ItemError, Tx},
    links::{Link, values},
};
use crate::auth::Caller;

/// The `dataType` of link records.
const DATA_TYPE: &str = "link";

/// The record of a link: `details` repeat what it links (`productTid` and `linkType`, or
/// `keywordPath`; an `itms` of `assetTid`).
pub(crate) fn echo(link: &Link<'_>) -> ResponseType {
    let mut record = batch::record(DATA_TYPE, "create", ResponseTypeStatus::Error, "");
    let mut itm = Vec::new();
    let item = |key: &str, value: &str| Itm {
        key: Some(key.to_string()),
        value: value.to_string(),
        loc: None,
        pos: None,
    };
    match link.kind {
        Some("assetToKeyword") => {
            for key in ["keywordPath", "keywordId"] {
                itm.extend(
                    values(link.group, key)
                        .into_iter()
                        .map(|value| item(key, value)),
                );
            }
        }
        _ => {
            for key in ["productTid", "productId"] {
                itm.extend(
                    values(link.group, key)
                        .into_iter()
                        .map(|value| item(key, value)),
                );
            }
            if let Some(link_type) = &link.group.type_ {
                itm.push(item("linkType", link_type));
            }
        }
    }
    let assets: Vec<Itm> = ["assetTid", "assetId"]
        .iter()
        .flat_map(|key| values(link.group, key))
        .map(|value| Itm {
            key: None,
            value: value.to_string(),
            loc: None,
            pos: None,
        })
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

/// Reads the one identity of a resource from `tid_key` or `id_key`.
fn key<'a>(
    group: &'a Itms,
    tid_key: &'static str,
    id_key: &'static str,
    echo: &ResponseType,
) -> Result<Key<'a>, ItemError> {
    match (
        values(group, tid_key).as_slice(),
        values(group, id_key).as_slice(),
    ) {
        ([tid], []) => Ok(Key::Tid(tid)),
        ([], [id]) => id
            .trim()
            .parse()
            .map(Key::Id)
            .map_err(|_| batch::refuse(echo, format!("Invalid value '{id}' for '{id_key}'"))),
        ([], []) => Err(batch::refuse(
            echo,
            format!("Missing required value '{tid_key}'"),
        )),
        _ => Err(batch::refuse(
            echo,
            format!("Give one '{tid_key}' or one '{id_key}'"),
        )),
    }
}

/// The assets of a group: each `assetTid` and `assetId`.
fn asset_keys<'a>(group: &'a Itms, echo: &ResponseType) -> Result<Vec<Key<'a>>, ItemError> {
    let mut keys: Vec<Key<'a>> = values(group, "assetTid")
        .into_iter()
        .map(Key::Tid)
        .collect();
    for id in values(group, "assetId") {
        keys.push(Key::Id(id.trim().parse().map_err(|_| {
            batch::refuse(echo, format!("Invalid value '{id}' for 'assetId'"))
        })?));
    }
    if keys.is_empty() {
        return Err(batch::refuse(echo, "Missing required value 'assetTid'"));
    }
    Ok(keys)
}

/// The ids of the assets of a group, each found and visible to the caller.
async fn assets(
    transaction: &mut Tx,
    caller: &Caller,
    group: &Itms,
    echo: &ResponseType,
) -> Result<Vec<i64>, ItemError> {
    let mut ids = Vec::new();
    for key in asset_keys(group, echo)? {
        let (id, roles) = restricted(transaction, Restricted::Asset, &key)
            .await?
            .ok_or_else(|| batch::refuse(echo, "Asset not found"))?;
        if !caller.sees(&roles) {
            return Err(batch::refuse(
                echo,
                "Asset is not available by access rights",
            ));
        }
        ids.push(id);
    }
    Ok(ids)
}

/// Saves one link in its transaction.
pub(crate) async fn persist(
    transaction: &mut Tx,
    caller: &Caller,
    link: &Link<'_>,
) -> Result<ResponseType, ItemError> {
    let echo = echo(link);
    match link.kind {
        Some("assetToProduct") => product(transaction, caller, link.group, &echo).await?,
        Some("assetToKeyword") => keyword(transaction, caller, link.group, &echo).await?,
        other => {
            return Err(batch::refuse(
                &echo,
                format!("Unsupported link type '{}'", other.unwrap_or_default()),
            ));
        }
    }
    Ok(ResponseType {
        status: ResponseTypeStatus::Success,
        description: Some("The link has been saved successfully".to_string()),
        ..echo
    })
}

async fn product(
    transaction: &mut Tx,
    caller: &Caller,
    group: &Itms,
    echo: &ResponseType,
) -> Result<(), ItemError> {
    let product_key = key(group, "productTid", "productId", echo)?;
    let (product, roles) = restricted(transaction, Restricted::Product, &product_key)
        .await?
        .ok_or_else(|| batch::refuse(echo, "Product not found"))?;
    if !caller.sees(&roles) {
        return Err(batch::refuse(
            echo,
            "Product is not available by access rights",
        ));
    }
    let Some(link_type) = group.type_.as_deref() else {
        return Err(batch::refuse(echo, "Attribute not found"));
    };
    let definition =
        sqlx::query("SELECT id, cardinality FROM attribute_definitions WHERE tid = $1")
            .bind(link_type)
            .fetch_optional(&mut **transaction)
            .await?
            .ok_or_else(|| batch::refuse(echo, "Attribute not found"))?;
    let link_type: i64 = definition.try_get("id")?;
    let cardinality: Option<i64> = definition.try_get("cardinality")?;
    let assets = assets(transaction, caller, group, echo).await?;
    for (index, asset) in assets.iter().enumerate() {
        let linked = assets[..index].contains(asset)
            || sqlx::query(
                "SELECT 1 AS linked FROM product_assets \
                 WHERE product_id = $1 AND asset_id = $2 AND link_type_id = $3",
            )
            .bind(product)
            .bind(asset)
            .bind(link_type)
            .fetch_optional(&mut **transaction)
            .await?
            .is_some();
        if linked {
            return Err(batch::refuse(
                echo,
                "Asset has been already linked to the product",
            ));
        }
    }
    let row = sqlx::query(
        "SELECT COUNT(*) AS linked, COALESCE(MAX(position), 0) AS last FROM product_assets \
         WHERE product_id = $1 AND link_type_id = $2",
    )
    .bind(product)
    .bind(link_type)
    .fetch_one(&mut **transaction)
    .await?;
    let linked: i64 = row.try_get("linked")?;
    let last: i64 = row.try_get("last")?;
    if cardinality.is_some_and(|most| linked + assets.len() as i64 > most) {
        return Err(batch::refuse(
            echo,
            "Product attribute cardinality has been exceeded",
        ));
    }
    for (offset, asset) in assets.iter().enumerate() {
        let inserted = sqlx::query(
            "INSERT INTO product_assets (product_id, asset_id, link_type_id, position) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(product)
        .bind(asset)
        .bind(link_type)
        .bind(last + 1 + offset as i64)
        .execute(&mut **transaction)
        .await;
        // A concurrent request may have linked it first.
        batch::unless_taken(inserted, || {
            batch::refuse(echo, "Asset has been already linked to the product")
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
    let keyword_key = key(group, "keywordPath", "keywordId", echo)?;
    let found = match &keyword_key {
        Key::Tid(path) => sqlx::query("SELECT id FROM keywords WHERE path = $1").bind(*path),
        Key::Id(id) => sqlx::query("SELECT id FROM keywords WHERE id = $1").bind(*id),
    }
    .fetch_optional(&mut **transaction)
    .await?;
    let keyword: i64 = match found {
        Some(row) => row.try_get("id")?,
        None => {
            return Err(batch::refuse(
                echo,
                match keyword_key {
                    Key::Tid(path) => format!("Keyword with path '{path}' not found"),
                    Key::Id(id) => format!("Keyword with identity '{id}' not found"),
                },
            ));
        }
    };
    // The primary key decides: an asset linked already, earlier in this group or before.
    for asset in assets(transaction, caller, group, echo).await? {
        let inserted =
            sqlx::query("INSERT INTO keyword_assets (keyword_id, asset_id) VALUES ($1, $2)")
                .bind(keyword)
                .bind(asset)
                .execute(&mut **transaction)
                .await;
        batch::unless_taken(inserted, || {
            batch::refuse(echo, "Asset has been already linked to the keyword")
        })?;
    }
    Ok(())
}
