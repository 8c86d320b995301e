//! `attributes/retrieve` and `attributes/query`: one selection (D-51), inherited attributes
//! from the ancestors when asked, and the `attr` answers with domain and default values.

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
        attributes::{self as stored, Attribute},
        nodes::{self, Node},
        records::{self, Identity, PRODUCTS},
    },
};

/// The inheritance of the attributes that descendants inherit (D-51).
const VISIBLE: &str = "visible";

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
/// requested exists.
pub(crate) async fn select(
    database: &Database,
    caller: &Caller,
    selection: &Selection<'_>,
) -> Result<Vec<Attribute>, ApiError> {
    let pool = database.reads();
    let lists = [
        selection.ids.len(),
        selection.product_ids.len(),
        selection.product_tids.len(),
        selection.node_ids.len(),
        selection.node_paths.len(),
    ];
    if lists.iter().all(|length| *length == 0) {
        return Err(ApiError::NotFound(
            "The selector names no attribute, node or product".into(),
        ));
    }
    if !selection.ids.is_empty() {
        let mut found: HashMap<i64, Attribute> = stored::by_ids(pool, selection.ids)
            .await?
            .into_iter()
            .map(|attribute| (attribute.id, attribute))
            .collect();
        let ordered: Vec<Attribute> = selection
            .ids
            .iter()
            .filter_map(|id| found.remove(id))
            .collect();
        if ordered.is_empty() {
            return Err(ApiError::NotFound(
                "None of the requested attributes exists".into(),
            ));
        }
        return Ok(ordered);
    }
    let (selected, include_parents) = if !selection.product_ids.is_empty()
        || !selection.product_tids.is_empty()
    {
        (products_nodes(database, caller, selection).await?, true)
    } else {
        let found = if selection.node_ids.is_empty() {
            nodes::by_paths(pool, selection.node_paths).await?
        } else {
            nodes::by_ids(pool, selection.node_ids).await?
        };
        let mut by_id: HashMap<i64, Node> = found.into_iter().map(|node| (node.id, node)).collect();
        let by_path: HashMap<String, i64> = by_id
            .values()
            .map(|node| (node.path.clone(), node.id))
            .collect();
        let ordered: Vec<Node> = if selection.node_ids.is_empty() {
            selection
                .node_paths
                .iter()
                .filter_map(|path| by_path.get(path).and_then(|id| by_id.remove(id)))
                .collect()
        } else {
            selection
                .node_ids
                .iter()
                .filter_map(|id| by_id.remove(id))
                .collect()
        };
        if ordered.is_empty() {
            return Err(ApiError::NotFound(
                "None of the requested nodes exists".into(),
            ));
        }
        (ordered, selection.include_parents)
    };
    Ok(inherit(database, &selected, include_parents).await?)
}

/// The nodes of the requested products the caller may see, each product's in the order it was
/// classified. 404 when none of the products exists for the caller.
async fn products_nodes(
    database: &Database,
    caller: &Caller,
    selection: &Selection<'_>,
) -> Result<Vec<Node>, ApiError> {
    let mut connection = database.reads().acquire().await?;
    let identities = selection
        .product_ids
        .iter()
        .map(|id| Identity::Id(*id))
        .chain(selection.product_tids.iter().map(|tid| Identity::Key(tid)));
    let mut products = Vec::new();
    let mut seen = HashSet::new();
    for identity in identities {
        if let Some((id, roles)) =
            records::find_restricted(&mut connection, &PRODUCTS, identity).await?
            && caller.sees(&roles)
            && seen.insert(id)
        {
            products.push(id);
        }
    }
    drop(connection);
    if products.is_empty() {
        return Err(ApiError::NotFound(
            "None of the requested products exists".into(),
        ));
    }
    let mut by_product: HashMap<i64, Vec<Node>> = HashMap::new();
    for row in nodes::of_products(database.reads(), &products).await? {
        by_product.entry(row.product_id).or_default().push(row.node);
    }
    Ok(products
        .iter()
        .flat_map(|product| by_product.remove(product).unwrap_or_default())
        .collect())
}

/// The attributes of `selected` nodes, with those their ancestors pass down when
/// `include_parents`: two queries whatever the number of nodes.
async fn inherit(
    database: &Database,
    selected: &[Node],
    include_parents: bool,
) -> Result<Vec<Attribute>, sqlx::Error> {
    let pool = database.reads();
    let mut ancestors: HashMap<String, i64> = HashMap::new();
    if include_parents {
        let paths: HashSet<String> = selected
            .iter()
            .flat_map(|node| ancestor_paths(&node.path))
            .map(str::to_string)
            .collect();
        let paths: Vec<String> = paths.into_iter().collect();
        for node in nodes::by_paths(pool, &paths).await? {
            ancestors.insert(node.path, node.id);
        }
    }
    let mut ids: Vec<i64> = selected.iter().map(|node| node.id).collect();
    ids.extend(ancestors.values());
    ids.sort_unstable();
    ids.dedup();
    let mut of_node: HashMap<i64, Vec<Attribute>> = HashMap::new();
    for attribute in stored::of_nodes(pool, &ids).await? {
        of_node
            .entry(attribute.node_id)
            .or_default()
            .push(attribute);
    }
    for attributes in of_node.values_mut() {
        attributes.sort_by_key(|attribute| attribute.id);
    }
    let mut seen = HashSet::new();
    let mut ordered = Vec::new();
    for node in selected {
        let inherited = ancestor_paths(&node.path)
            .filter_map(|path| ancestors.get(path))
            .flat_map(|id| of_node.get(id).into_iter().flatten())
            .filter(|attribute| attribute.inheritance.as_deref() == Some(VISIBLE));
        let own = of_node.get(&node.id).into_iter().flatten();
        for attribute in inherited.chain(own) {
            if seen.insert(attribute.id) {
                ordered.push(attribute.clone());
            }
        }
    }
    Ok(ordered)
}

/// The paths of a node's ancestors, from the root down: `/A`, `/A/B` for `/A/B/C`.
fn ancestor_paths(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/')
        .skip(1)
        .map(move |(at, _)| &path[..at])
}

/// The `attr` answers of stored attributes, with domain and default values when asked.
pub(crate) async fn answer(
    database: &Database,
    attributes: Vec<Attribute>,
    with_domain_values: bool,
    with_default_values: bool,
) -> Result<Vec<Attr>, ApiError> {
    let mut domains: HashMap<i64, Vec<DomainVal>> = HashMap::new();
    if with_domain_values {
        let ids: Vec<i64> = attributes.iter().map(|attribute| attribute.id).collect();
        for row in stored::domain_values(database.reads(), &ids).await? {
            let values = domains.entry(row.attribute_id).or_default();
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
    }
    Ok(attributes
        .into_iter()
        .map(|attribute| {
            let domain_vals = with_domain_values.then(|| DomainVals {
                allow_new_value: attribute.allow_new_value.map(bool::from),
                sort_direction: attribute.sort_direction.clone(),
                mode: attribute.mode.clone(),
                domain_val: domains.remove(&attribute.id).unwrap_or_default(),
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
        .collect())
}
