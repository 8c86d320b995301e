//! `attributes/retrieve` and `attributes/query`: one selection (D-51), inherited attributes
//! from the ancestors when asked (those whose inheritance is `visible`), and the `attr`
//! answers with domain and default values.

use std::collections::{HashMap, HashSet};

use core_api::types::{
    Attr, AttributesQueryRequest, AttributesRetrieveRequest, DefaultVal, DomainVal, DomainVals, Itm,
};

use super::plain;
use crate::{
    auth::Caller,
    error::ApiError,
    storage::{
        Database,
        attributes::{self as stored, Attribute, Chosen, DomainValue, Selected},
    },
};

/// What a retrieve or query request selects: exactly one list is given (the document's rule).
pub(crate) struct Selection<'r> {
    ids: &'r [i64],
    product_ids: &'r [i64],
    product_tids: &'r [String],
    node_ids: &'r [i64],
    node_paths: &'r [String],
    include_parents: bool,
}

impl<'r> From<&'r AttributesRetrieveRequest> for Selection<'r> {
    fn from(request: &'r AttributesRetrieveRequest) -> Selection<'r> {
        Selection {
            ids: &request.ids,
            product_ids: &request.product_ids,
            product_tids: &request.product_tids,
            node_ids: &request.node_ids,
            node_paths: &request.node_paths,
            include_parents: request.include_parent_attributes,
        }
    }
}

impl<'r> From<&'r AttributesQueryRequest> for Selection<'r> {
    fn from(request: &'r AttributesQueryRequest) -> Selection<'r> {
        Selection {
            ids: &[],
            product_ids: &request.product_id,
            product_tids: &request.product_tid,
            node_ids: &request.node_id,
            node_paths: &request.node_path,
            include_parents: request.include_parent_attributes,
        }
    }
}

/// The attributes a selection names, in answer order: by `ids` in request order; for nodes (a
/// product's nodes, in the order it was classified) each node's inherited attributes from the
/// root down, then its own, each node's by id, an attribute once (D-51). 404 when none of the
/// requested exists. One statement reads them with their domain values when asked.
pub(crate) async fn select(
    database: &Database,
    caller: &Caller,
    selection: &Selection<'_>,
    with_domain_values: bool,
) -> Result<Vec<Found>, ApiError> {
    let (chosen, none) = if !selection.ids.is_empty() {
        (
            Chosen::Ids(selection.ids),
            "None of the requested attributes exists",
        )
    } else if !selection.product_ids.is_empty() || !selection.product_tids.is_empty() {
        (
            Chosen::Products(selection.product_ids, selection.product_tids),
            "None of the requested products exists",
        )
    } else if !selection.node_ids.is_empty() {
        (
            Chosen::NodeIds(selection.node_ids),
            "None of the requested nodes exists",
        )
    } else if !selection.node_paths.is_empty() {
        (
            Chosen::NodePaths(selection.node_paths),
            "None of the requested nodes exists",
        )
    } else {
        return Err(ApiError::NotFound(
            "The selector names no attribute, node or product".into(),
        ));
    };
    let rows = stored::select(
        database,
        chosen,
        selection.include_parents,
        with_domain_values,
    )
    .await?;
    let hidden = hidden_products(caller, &rows);
    let mut named = false;
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for row in rows {
        if row
            .product_id
            .is_some_and(|product| hidden.contains(&product))
        {
            continue;
        }
        named = true;
        if let Some(attribute) = row.attribute
            && seen.insert(attribute.id)
        {
            found.push(Found {
                attribute,
                domain: row.domain,
            });
        }
    }
    if !named {
        return Err(ApiError::NotFound(none.into()));
    }
    Ok(found)
}

/// An attribute selected, with its domain values when they were asked for.
pub(crate) struct Found {
    /// The attribute.
    pub(crate) attribute: Attribute,
    /// Its domain values, each text a row, in order.
    domain: Vec<DomainValue>,
}

/// The products among `rows` the caller may not see: those restricted to roles it holds none of.
fn hidden_products(caller: &Caller, rows: &[Selected]) -> HashSet<i64> {
    let mut roles: HashMap<i64, Vec<&str>> = HashMap::new();
    for row in rows {
        if let (Some(product), Some(role)) = (row.product_id, row.role.as_deref()) {
            roles.entry(product).or_default().push(role);
        }
    }
    roles
        .into_iter()
        .filter(|(_, roles)| !caller.sees(roles))
        .map(|(product, _)| product)
        .collect()
}

/// The `attr` answers of selected attributes, with domain and default values when asked.
pub(crate) fn answer(
    found: Vec<Found>,
    with_domain_values: bool,
    with_default_values: bool,
) -> Vec<Attr> {
    found
        .into_iter()
        .map(|Found { attribute, domain }| {
            let domain_vals = with_domain_values.then(|| DomainVals {
                allow_new_value: attribute.allow_new_value.map(bool::from),
                sort_direction: attribute.sort_direction.clone(),
                mode: attribute.mode.clone(),
                domain_val: domain_vals(domain),
            });
            let default_val = if with_default_values {
                attribute
                    .default_value
                    .clone()
                    .map(|tid| DefaultVal { tid })
            } else {
                None
            };
            Attr {
                default_val,
                domain_vals,
                ..plain(attribute)
            }
        })
        .collect()
}

/// The `domainVal` list of an attribute from its rows: a value with each of its texts.
fn domain_vals(rows: Vec<DomainValue>) -> Vec<DomainVal> {
    let mut values: Vec<DomainVal> = Vec::new();
    for row in rows {
        if values.last().is_none_or(|last| last.tid != row.tid) {
            values.push(DomainVal {
                tid: row.tid,
                itm: Vec::new(),
            });
        }
        if let (Some(loc), Some(value), Some(last)) = (row.loc, row.value, values.last_mut()) {
            last.itm.push(Itm {
                key: None,
                loc: (!loc.is_empty()).then_some(loc),
                pos: None,
                value,
            });
        }
    }
    values
}
