//! PEOs read: PEO retrieve (whole or `namesOnly`, D-30), the answer of a PEO (which retrieved
//! channels embed too), and PEO query (D-31). PEOs restricted to roles the caller holds none of
//! are left out, and so are PEOs of a product the caller may not see (D-58): a PEO never names a
//! hidden product.

use std::collections::{HashMap, HashSet};

use core_api::messages;
use core_api::types::{Meta, Peo, PeoNodes, PeoQuery, PeoQueryResponse, PeoRequest, Vals};
use core_api_support::fill;
use sqlx::{AnyConnection, AnyPool};

use crate::{
    auth::Caller,
    error::ApiError,
    local_time::TimeZone,
    modules::{itm, vals},
    storage::{
        Database, channels,
        peos::{self, Named, Selection},
        records::{self, Identity, PEOS, PRODUCTS},
        values,
    },
};

/// The PEOs a retrieve request names that the caller may see, in request order (`tids` when
/// it holds entries, else `ids`), each once; 404 when none remains.
pub(crate) async fn retrieve(
    database: &Database,
    caller: &Caller,
    request: &PeoRequest,
) -> Result<Vec<Peo>, ApiError> {
    let pool = database.reads();
    let by_tid = !request.tids.is_empty();
    let peos = if request.names_only {
        let rows = if by_tid {
            peos::names_by_tids(pool, &request.tids).await?
        } else {
            peos::names_by_ids(pool, &request.ids).await?
        };
        let mut connection = pool.acquire().await?;
        let rows = in_request_order(
            request,
            visible(&mut connection, caller, rows, |row| {
                (row.id, row.product_id)
            })
            .await?,
            |row| (row.id, &row.tid),
        );
        rows.into_iter()
            .map(|row| named(row, request.with_metadata))
            .collect()
    } else {
        let mut connection = pool.acquire().await?;
        let rows = if by_tid {
            peos::by_tids(&mut connection, &request.tids).await?
        } else {
            peos::by_ids(&mut connection, &request.ids).await?
        };
        let rows = in_request_order(
            request,
            visible(&mut connection, caller, rows, |row| {
                (row.id, row.product_id)
            })
            .await?,
            |row| (row.id, &row.tid),
        );
        whole(&mut connection, rows, request.with_metadata).await?
    };
    if peos.is_empty() {
        return Err(ApiError::NotFound(
            messages::NONE_OF_THE_REQUESTED_PEOS_WAS_FOUND.to_string(),
        ));
    }
    Ok(peos)
}

/// The rows the caller may see: PEOs it may see whose product, if any, it may see too (D-58).
/// `ids` gives a row's PEO id and product id.
async fn visible<T>(
    connection: &mut AnyConnection,
    caller: &Caller,
    rows: Vec<T>,
    ids: impl Fn(&T) -> (i64, Option<i64>),
) -> Result<Vec<T>, sqlx::Error> {
    let peos: Vec<i64> = rows.iter().map(|row| ids(row).0).collect();
    let mut products: Vec<i64> = rows.iter().filter_map(|row| ids(row).1).collect();
    products.sort_unstable();
    products.dedup();
    let restricted = records::restrictions(&mut *connection, &PEOS, &peos).await?;
    let hidden = records::restrictions(&mut *connection, &PRODUCTS, &products).await?;
    Ok(rows
        .into_iter()
        .filter(|row| {
            let (peo, product) = ids(row);
            sees(
                caller,
                roles(&restricted, Some(peo)),
                roles(&hidden, product),
            )
        })
        .collect())
}

/// The roles a record is restricted to, from `restrictions` (empty: unrestricted, or no record).
fn roles(restrictions: &HashMap<i64, Vec<String>>, id: Option<i64>) -> &[String] {
    id.and_then(|id| restrictions.get(&id))
        .map_or(&[], Vec::as_slice)
}

/// Whether the caller may see a PEO restricted to `roles` whose product is restricted to
/// `product_roles` (each empty: unrestricted; D-58: a PEO never names a hidden product).
pub(crate) fn sees(caller: &Caller, roles: &[String], product_roles: &[String]) -> bool {
    caller.sees(roles) && caller.sees(product_roles)
}

/// Rows in the order the request names them, each once.
fn in_request_order<T>(
    request: &PeoRequest,
    rows: Vec<T>,
    key: impl Fn(&T) -> (i64, &String),
) -> Vec<T> {
    let mut by_id: HashMap<i64, T> = HashMap::new();
    let mut by_tid: HashMap<String, i64> = HashMap::new();
    for row in rows {
        let (id, tid) = key(&row);
        by_tid.insert(tid.clone(), id);
        by_id.insert(id, row);
    }
    let order: Vec<i64> = if request.tids.is_empty() {
        request.ids.clone()
    } else {
        request
            .tids
            .iter()
            .filter_map(|tid| by_tid.get(tid).copied())
            .collect()
    };
    order
        .into_iter()
        .filter_map(|id| by_id.remove(&id))
        .collect()
}

/// `meta` of a PEO: `id`, `creationDate`, `modificationDate`.
fn meta(id: i64, created_at: &str, modified_at: &str) -> Meta {
    Meta {
        itm: vec![
            itm::meta("id", id.to_string()),
            itm::meta("creationDate", created_at),
            itm::meta("modificationDate", modified_at),
        ],
    }
}

/// A PEO as `namesOnly` shows it.
fn named(row: Named, with_metadata: bool) -> Peo {
    Peo {
        meta: with_metadata.then(|| meta(row.id, &row.created_at, &row.modified_at)),
        tid: Some(row.tid),
        name: row.name,
        ..Peo::default()
    }
}

/// PEOs whole, in the order of `rows`: their nodes and values read for all of them at once.
async fn whole(
    connection: &mut AnyConnection,
    rows: Vec<peos::Peo>,
    with_metadata: bool,
) -> Result<Vec<Peo>, sqlx::Error> {
    let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
    let mut nodes: HashMap<i64, Vec<String>> = HashMap::new();
    for row in peos::nodes(&mut *connection, &ids).await? {
        nodes.entry(row.peo_id).or_default().push(row.node);
    }
    let mut vals = vals::by_owner(values::of_peos(&mut *connection, &ids).await?);
    Ok(rows
        .into_iter()
        .map(|row| {
            let (nodes, vals) = (nodes.remove(&row.id), vals.remove(&row.id));
            shown(
                row,
                nodes.unwrap_or_default(),
                vals.unwrap_or_default(),
                with_metadata,
            )
        })
        .collect())
}

/// A PEO's answer from its row, its nodes and its vals.
pub(crate) fn shown(row: peos::Peo, nodes: Vec<String>, vals: Vals, with_metadata: bool) -> Peo {
    Peo {
        meta: with_metadata.then(|| meta(row.id, &row.created_at, &row.modified_at)),
        nodes: Some(PeoNodes { node: nodes }),
        vals: Some(vals),
        tid: Some(row.tid),
        product: row.product,
        template: row.template,
        default: Some(row.is_default.into()),
        name: row.name,
    }
}

/// The id of a product the caller may see, by tid (404 otherwise).
async fn visible_product(pool: &AnyPool, caller: &Caller, tid: &str) -> Result<i64, ApiError> {
    let mut connection = pool.acquire().await?;
    let found = records::find_restricted(&mut connection, &PRODUCTS, Identity::Key(tid))
        .await?
        .filter(|(_, roles)| caller.sees(roles));
    match found {
        Some((id, _)) => Ok(id),
        None => Err(ApiError::NotFound(fill(
            messages::PRODUCT_TID_NOT_FOUND,
            &[&tid],
        ))),
    }
}

/// The ids of the PEOs linked to a channel (by tid; 404 when unknown), or to it and its
/// descendants.
async fn of_project(
    pool: &AnyPool,
    tid: &str,
    with_children: bool,
) -> Result<HashSet<i64>, ApiError> {
    // Without its children, the project alone: its subtree down to level 0.
    let level = (!with_children).then_some(0);
    let channels: Vec<i64> = channels::subtree(pool, Identity::Key(tid), level)
        .await?
        .into_iter()
        .map(|node| node.id)
        .collect();
    if channels.is_empty() {
        return Err(ApiError::NotFound(fill(
            messages::PROJECT_TID_NOT_FOUND,
            &[&tid],
        )));
    }
    let linked = channels::linked_peos(&mut *pool.acquire().await?, &channels).await?;
    Ok(linked.into_iter().collect())
}

/// PEO query: the tids of the PEOs matching every criterion given that the caller may see,
/// sorted.
pub(crate) async fn query(
    database: &Database,
    caller: &Caller,
    time_zone: TimeZone,
    request: &PeoQuery,
) -> Result<PeoQueryResponse, ApiError> {
    let pool = database.reads();
    let utc = |field: &str, local: Option<&str>| -> Result<Option<String>, ApiError> {
        local
            .map(|local| {
                time_zone.to_utc(local).ok_or_else(|| {
                    ApiError::Rule(format!("{field}: '{local}' is not a valid local timestamp"))
                })
            })
            .transpose()
    };
    let from = utc(
        "modifiedFrom",
        request.modified_from.as_deref().map(String::as_str),
    )?;
    let until = utc(
        "modifiedUntil",
        request.modified_until.as_deref().map(String::as_str),
    )?;
    let product = match &request.tid_product {
        Some(tid) => Some(visible_product(pool, caller, tid).await?),
        None => None,
    };
    let of_project = match &request.tid_project {
        Some(tid) => Some(of_project(pool, tid, request.with_children).await?),
        None => None,
    };
    let names: HashSet<&str> = request.names.iter().map(String::as_str).collect();
    let listed: Vec<&str> = names.iter().copied().collect();
    let linked: Vec<i64> = of_project.iter().flatten().copied().collect();
    // Read by the most selective criterion, compared with all of them.
    let selection = match (product, &of_project) {
        (Some(product), _) => Selection::Product(product),
        (None, Some(_)) => Selection::Ids(&linked),
        (None, None) if !listed.is_empty() => Selection::Names(&listed),
        (None, None) if from.is_some() || until.is_some() => {
            Selection::Modified(from.as_deref(), until.as_deref())
        }
        (None, None) => Selection::All,
    };
    let candidates = peos::candidates(pool, selection)
        .await?
        .into_iter()
        .filter(|peo| product.is_none_or(|product| peo.product_id == Some(product)))
        .filter(|peo| of_project.as_ref().is_none_or(|ids| ids.contains(&peo.id)))
        .filter(|peo| {
            names.is_empty() || peo.name.as_deref().is_some_and(|name| names.contains(name))
        })
        .filter(|peo| {
            from.as_deref()
                .is_none_or(|from| peo.modified_at.as_str() >= from)
        })
        .filter(|peo| {
            until
                .as_deref()
                .is_none_or(|until| peo.modified_at.as_str() <= until)
        })
        .collect();
    let mut connection = pool.acquire().await?;
    let mut tids: Vec<String> = visible(&mut connection, caller, candidates, |peo| {
        (peo.id, peo.product_id)
    })
    .await?
    .into_iter()
    .map(|peo| peo.tid)
    .collect();
    tids.sort_unstable();
    Ok(PeoQueryResponse { tids })
}
