//! PEOs read: PEO retrieve (whole or `namesOnly`, D-30), the answer of a PEO (which retrieved
//! channels embed too), and PEO query (D-31). PEOs restricted to roles the caller holds none of
//! are left out, and so are PEOs of a product the caller may not see (D-58): a PEO never names a
//! hidden product.

use std::collections::{HashMap, HashSet, hash_map::Entry};

use core_api::messages;
use core_api::types::{Meta, Peo, PeoNodes, PeoQuery, PeoQueryResponse, PeoRequest, Vals};
use core_api_support::fill;

use crate::{
    auth::Caller,
    error::ApiError,
    local_time::TimeZone,
    modules::{itm, vals},
    storage::{
        Database,
        peos::{self, Candidate, Named, Project, Selection},
    },
};

/// The PEOs a retrieve request names that the caller may see, in request order (`tids` when
/// it holds entries, else `ids`), each once; 404 when none remains. One statement reads them
/// with their nodes, values and restrictions.
pub(crate) async fn retrieve(
    database: &Database,
    caller: &Caller,
    request: &PeoRequest,
) -> Result<Vec<Peo>, ApiError> {
    let named = if request.tids.is_empty() {
        Named::Ids(&request.ids)
    } else {
        Named::Tids(&request.tids)
    };
    let mut seen = HashSet::new();
    let peos: Vec<Peo> = peos::retrieve(database, named, request.names_only)
        .await?
        .into_iter()
        .filter(|stored| sees(caller, &stored.roles, &stored.product_roles))
        .filter(|stored| seen.insert(stored.peo.id))
        .map(|stored| {
            if request.names_only {
                named_only(stored.peo, request.with_metadata)
            } else {
                let id = stored.peo.id;
                let vals = vals::by_owner(stored.vals).remove(&id);
                let vals = vals.unwrap_or_default();
                shown(stored.peo, stored.nodes, vals, request.with_metadata)
            }
        })
        .collect();
    if peos.is_empty() {
        return Err(ApiError::NotFound(
            messages::NONE_OF_THE_REQUESTED_PEOS_WAS_FOUND.to_string(),
        ));
    }
    Ok(peos)
}

/// The candidates the caller may see, each once: PEOs it may see whose product, if any, it may
/// see too (D-58). `rows` holds a candidate once per role it and its product are restricted to.
fn visible(caller: &Caller, rows: Vec<Candidate>) -> Vec<Candidate> {
    let mut roles: HashMap<i64, Restricted> = HashMap::new();
    let mut candidates = Vec::new();
    for mut row in rows {
        let (role, product_role) = (row.role.take(), row.product_role.take());
        let restricted = match roles.entry(row.id) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => {
                candidates.push(row);
                entry.insert(Restricted::default())
            }
        };
        let peo = &mut restricted.peo;
        peo.extend(role.filter(|role| !peo.contains(role)));
        let product = &mut restricted.product;
        product.extend(product_role.filter(|role| !product.contains(role)));
    }
    candidates.retain(|candidate| {
        roles
            .get(&candidate.id)
            .is_none_or(|restricted| sees(caller, &restricted.peo, &restricted.product))
    });
    candidates
}

/// The roles a PEO and its product are restricted to (each empty: unrestricted).
#[derive(Debug, Default)]
struct Restricted {
    /// The PEO's.
    peo: Vec<String>,
    /// Its product's.
    product: Vec<String>,
}

/// Whether the caller may see a PEO restricted to `roles` whose product is restricted to
/// `product_roles` (each empty: unrestricted; D-58: a PEO never names a hidden product).
pub(crate) fn sees(caller: &Caller, roles: &[String], product_roles: &[String]) -> bool {
    caller.sees(roles) && caller.sees(product_roles)
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
fn named_only(row: peos::Peo, with_metadata: bool) -> Peo {
    Peo {
        meta: with_metadata.then(|| meta(row.id, &row.created_at, &row.modified_at)),
        tid: Some(row.tid),
        name: row.name,
        ..Peo::default()
    }
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

/// PEO query: the tids of the PEOs matching every criterion given that the caller may see,
/// sorted.
pub(crate) async fn query(
    database: &Database,
    caller: &Caller,
    time_zone: TimeZone,
    request: &PeoQuery,
) -> Result<PeoQueryResponse, ApiError> {
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
    let names: HashSet<&str> = request.names.iter().map(String::as_str).collect();
    let listed: Vec<&str> = names.iter().copied().collect();
    let project = request.tid_project.as_deref().map(|tid| Project {
        tid,
        // Without its children, the project alone: its subtree down to level 0.
        level: (!request.with_children).then_some(0),
    });
    // The product and the project are conditions of the statement itself; without them it
    // reads by the most selective of the names and the bounds, and both are compared here.
    let selection = match (request.tid_product.as_deref(), project) {
        (Some(product), project) => Selection::Product(product, project),
        (None, Some(project)) => Selection::Project(project),
        (None, None) if !listed.is_empty() => Selection::Names(&listed),
        (None, None) if from.is_some() || until.is_some() => {
            Selection::Modified(from.as_deref(), until.as_deref())
        }
        (None, None) => Selection::All,
    };
    let read = peos::query(database, selection).await?;
    let product_seen = read.product.is_some_and(|roles| caller.sees(&roles));
    if let (Some(tid), false) = (&request.tid_product, product_seen) {
        return Err(ApiError::NotFound(fill(
            messages::PRODUCT_TID_NOT_FOUND,
            &[&tid],
        )));
    }
    if let (Some(tid), false) = (&request.tid_project, read.project) {
        return Err(ApiError::NotFound(fill(
            messages::PROJECT_TID_NOT_FOUND,
            &[&tid],
        )));
    }
    let mut tids: Vec<String> = visible(caller, read.candidates)
        .into_iter()
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
        .map(|peo| peo.tid)
        .collect();
    tids.sort_unstable();
    Ok(PeoQueryResponse { tids })
}
