//! PEO links persist (D-32): each PEO-to-project pair of the request linked in its transaction.

use std::marker::PhantomData;

use core_api::messages;
use core_api::types::{Details, Itm, ResponseType, ResponseTypeStatus};
use core_api_support::fill;

use crate::modules::{
    batch::{self, Apply, ItemError, Scope, Tx},
    links::{self, Link},
};
use crate::storage::{
    peos,
    records::{self, CHANNELS, Identity, PEOS, PRODUCTS},
};

/// The `dataType` of PEO link records.
const DATA_TYPE: &str = "peoToProjectLink";

/// `peos/links/persist`: each pair linked in its transaction.
pub(super) struct LinkPersist<'r>(PhantomData<&'r ()>);

impl<'r> Apply for LinkPersist<'r> {
    type Item = Link<'r>;

    /// The record of a pair: `details` (mode `delta`) repeat its keys.
    fn echo(pair: &Link<'r>) -> ResponseType {
        let mut record = batch::record(DATA_TYPE, "link", ResponseTypeStatus::Error, "");
        record.details = Some(Details {
            mode: Some("delta".to_string()),
            itm: pair
                .group
                .itm
                .iter()
                .map(|item| Itm {
                    loc: None,
                    pos: None,
                    ..item.clone()
                })
                .collect(),
            itms: Vec::new(),
        });
        record
    }

    /// Links one PEO to one project (a channel); linking again succeeds.
    async fn apply<'a>(
        transaction: &'a mut Tx,
        pair: &'a Link<'r>,
        scope: &'a Scope<'a>,
    ) -> Result<ResponseType, ItemError> {
        let echo = LinkPersist::echo(pair);
        if pair.kind != Some("peoToProject") {
            return Err(batch::refuse(
                &echo,
                fill(
                    messages::UNSUPPORTED_LINK_TYPE_TYPE,
                    &[&pair.kind.unwrap_or_default()],
                ),
            ));
        }
        let group = pair.group;
        let keys = group
            .itm
            .iter()
            .filter_map(|item| item.key.as_deref())
            .count();
        let id = |key| links::value(group, key).map(|id| id.trim().parse::<i64>());
        let (peo, project) = match (
            links::value(group, "peoTid"),
            links::value(group, "projectTid"),
            id("peoId"),
            id("projectId"),
        ) {
            (Some(peo), Some(project), None, None) if keys == 2 => {
                (Identity::Key(peo), Identity::Key(project))
            }
            (None, None, Some(Ok(peo)), Some(Ok(project))) if keys == 2 => {
                (Identity::Id(peo), Identity::Id(project))
            }
            _ => {
                return Err(batch::refuse(&echo, messages::INVALID_LINK_DEFINITION));
            }
        };
        let peo = batch::visible(transaction, scope.caller, &PEOS, peo, "PEO", &echo).await?;
        // A PEO shares its product's access rights (D-58).
        if let Some(product) = peos::product_of(transaction, peo).await? {
            let roles = records::find_restricted(transaction, &PRODUCTS, Identity::Id(product))
                .await?
                .map(|(_, roles)| roles)
                .unwrap_or_default();
            if !scope.caller.sees(&roles) {
                return Err(batch::refuse(
                    &echo,
                    messages::PEO_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS,
                ));
            }
        }
        let channel = records::find(&mut **transaction, &CHANNELS, project)
            .await?
            .ok_or_else(|| batch::refuse(&echo, messages::PROJECT_NOT_FOUND))?;
        peos::link_channel(transaction, peo, channel.id).await?;
        Ok(batch::success(
            echo,
            messages::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY,
        ))
    }
}
