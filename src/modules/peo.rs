//! The PEO module of the specification.
//!
//! Implemented: `peosLinksPersist` (D-32). The other operations answer 501 with a ResponseType
//! body naming the operation, through the default methods of the generated `PeoApi` trait.

use core_api::{
    PeoApi,
    types::{Details, Itm, Itms, PimType, ResponseType, ResponseTypeStatus, Responses},
};
use sqlx::Row;

use super::{
    access::{Key, Restricted, restricted},
    batch::{self, ItemError, Tx},
    envelope,
    links::{self, Link},
};
use crate::{auth::Caller, error::ApiError, http::host::Context, service::Service};

/// The `dataType` of PEO link records.
const DATA_TYPE: &str = "peoToProjectLink";

impl PeoApi for Service {
    async fn peos_links_persist(
        &self,
        context: &Context,
        input: PimType,
    ) -> Result<PimType, ApiError> {
        envelope::accept(input.schema_version.as_ref(), input.meta.as_ref())?;
        let links = input.links.ok_or_else(|| ApiError::missing("", "links"))?;
        let pairs = links::of(&links);
        batch::check_size("links/itms/itms", pairs.len())?;
        let caller = context.caller.clone();
        let response = batch::run(
            &self.database,
            &pairs,
            echo,
            move |transaction, pair, _now| {
                let caller = caller.clone();
                Box::pin(async move { link(transaction, &caller, pair).await })
            },
        )
        .await;
        Ok(PimType {
            responses: Some(Responses { response }),
            ..envelope::answer(self, None)
        })
    }
}

/// The record of a pair: `details` (mode `delta`) repeat its keys.
fn echo(pair: &Link<'_>) -> ResponseType {
    let mut record = batch::record(DATA_TYPE, "link", ResponseTypeStatus::Error, "");
    record.details = Some(Details {
        mode: Some("delta".to_string()),
        itm: pair
            .group
            .itm
            .iter()
            .map(|item| Itm {
                key: item.key.clone(),
                value: item.value.clone(),
                loc: None,
                pos: None,
            })
            .collect(),
        itms: Vec::new(),
    });
    record
}

/// The one value of a key in a pair, if it occurs exactly once.
fn value<'a>(group: &'a Itms, key: &str) -> Option<&'a str> {
    match links::values(group, key).as_slice() {
        [value] => Some(value),
        _ => None,
    }
}

/// Links one PEO to one project (a channel) in its transaction; linking again succeeds.
async fn link(
    transaction: &mut Tx,
    caller: &Caller,
    pair: &Link<'_>,
) -> Result<ResponseType, ItemError> {
    let echo = echo(pair);
    if pair.kind != Some("peoToProject") {
        return Err(batch::refuse(
            &echo,
            format!("Unsupported link type '{}'", pair.kind.unwrap_or_default()),
        ));
    }
    let group = pair.group;
    let keys = group
        .itm
        .iter()
        .filter_map(|item| item.key.as_deref())
        .count();
    let (peo, project) = match (
        value(group, "peoTid"),
        value(group, "projectTid"),
        value(group, "peoId").map(|id| id.trim().parse::<i64>()),
        value(group, "projectId").map(|id| id.trim().parse::<i64>()),
    ) {
        (Some(peo), Some(project), None, None) if keys == 2 => (Key::Tid(peo), Key::Tid(project)),
        (None, None, Some(Ok(peo)), Some(Ok(project))) if keys == 2 => {
            (Key::Id(peo), Key::Id(project))
        }
        _ => return Err(batch::refuse(&echo, "Invalid link definition")),
    };
    let (peo_id, roles) = restricted(transaction, Restricted::Peo, &peo)
        .await?
        .ok_or_else(|| batch::refuse(&echo, "PEO not found"))?;
    if !caller.sees(&roles) {
        return Err(batch::refuse(
            &echo,
            "PEO is not available by access rights",
        ));
    }
    let found = match project {
        Key::Tid(tid) => sqlx::query("SELECT id FROM channels WHERE tid = $1").bind(tid),
        Key::Id(id) => sqlx::query("SELECT id FROM channels WHERE id = $1").bind(id),
    }
    .fetch_optional(&mut **transaction)
    .await?;
    let channel_id: i64 = match found {
        Some(row) => row.try_get("id")?,
        None => return Err(batch::refuse(&echo, "Project not found")),
    };
    sqlx::query(
        "INSERT INTO peo_channels (peo_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(peo_id)
    .bind(channel_id)
    .execute(&mut **transaction)
    .await?;
    Ok(ResponseType {
        status: ResponseTypeStatus::Success,
        description: Some("The link has been saved successfully".to_string()),
        ..echo
    })
}
