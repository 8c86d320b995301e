//! Node attributes: `attributes/retrieve` and `attributes/query` (one selection, D-51),
//! `attributes/persist` (D-26, D-52) and `attributes/perform` (D-27). Saving one attribute is
//! shared with the `attr` entries of classes persist ([`save`]).

use std::collections::{HashMap, HashSet};

use core_api::types::{
    Action, Attr, AttributesQueryRequest, AttributesRetrieveRequest, DefaultVal, DomainVal,
    DomainVals, Itm, ResponseType, ResponseTypeStatus,
};
use sqlx::AnyConnection;

use super::super::{
    Locales,
    batch::{self, Apply, ItemError, Scope, Tx},
};
use crate::{
    auth::Caller,
    error::ApiError,
    storage::{
        Database,
        attributes::{self as stored, Attribute},
        definitions,
        flag::Flag,
        nodes::{self, Node},
        records::{self, ATTRIBUTE_DEFINITIONS, Identity, PRODUCTS},
    },
};

/// The `dataType` of attribute records.
const DATA_TYPE: &str = "attribute";

/// The values each enumerated property of an attribute accepts: the values seen (D-52).
const ALLOWED: [(&str, &[&str]); 5] = [
    ("level", &["p"]),
    ("inheritance", &["visible", "not_visible"]),
    ("restriction", &["optional"]),
    ("sortDirection", &["MANUAL"]),
    ("mode", &["FULL"]),
];

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

/// An attribute's `attr` without domain and default values, as nodes list them.
pub(crate) fn plain(attribute: Attribute) -> Attr {
    Attr {
        default_val: None,
        domain_vals: None,
        id: Some(attribute.id),
        inheritance: attribute.inheritance,
        key: Some(attribute.key),
        level: attribute.level,
        localized: Some(attribute.localized.into()),
        node_id: Some(attribute.node_id),
        node_path: Some(attribute.node_path),
        restriction: attribute.restriction,
    }
}

/// Why one attribute was not saved.
#[derive(Debug)]
pub(crate) enum Fault {
    /// It breaks a rule: the text says which.
    Refused(String),
    /// The database failed.
    Storage(sqlx::Error),
}

impl From<sqlx::Error> for Fault {
    fn from(error: sqlx::Error) -> Fault {
        Fault::Storage(error)
    }
}

impl Fault {
    /// The fault as a batch item's: a refusal with the item's record.
    fn of_item(self, echo: &ResponseType) -> ItemError {
        match self {
            Fault::Refused(text) => batch::refuse(echo, text),
            Fault::Storage(error) => ItemError::Storage(error),
        }
    }
}

fn refused<T>(text: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Refused(text.into()))
}

fn invalid(value: &str, field: &str) -> Fault {
    Fault::Refused(format!("Invalid value '{value}' for '{field}'"))
}

/// Refuses a new attribute on a node that holds as many as an answer's node may list (the
/// document's `maxItems` of `attr`).
async fn check_room(connection: &mut AnyConnection, node: &Node) -> Result<(), Fault> {
    let most = core_api::tables::NODE
        .field("attr")
        .and_then(|field| field.max_items)
        .map_or(i64::MAX, i64::from);
    if stored::count_on_node(connection, node.id).await? >= most {
        return refused(format!(
            "Node {} has {most} attributes, the most a node holds",
            node.path
        ));
    }
    Ok(())
}

/// An attribute saved: as stored now, and whether it was created.
pub(crate) struct Saved {
    /// The attribute.
    pub(crate) attribute: Attribute,
    /// Whether it is new.
    pub(crate) created: bool,
}

impl Saved {
    /// Its SUCCESS record.
    fn record(&self) -> ResponseType {
        let (action, text) = if self.created {
            ("create", "The attribute has been created successfully")
        } else {
            ("update", "The attribute has been saved successfully")
        };
        identified(
            batch::record(DATA_TYPE, action, ResponseTypeStatus::Success, text),
            &self.attribute,
        )
    }
}

/// A record naming a stored attribute.
fn identified(mut record: ResponseType, attribute: &Attribute) -> ResponseType {
    record.id = Some(attribute.id);
    record.node_id = Some(attribute.node_id);
    record.node_path = Some(attribute.node_path.clone());
    record.key = Some(attribute.key.clone());
    record
}

/// Saves one `attr` (D-26): on `node` when given (an `attr` of classes persist, found by its
/// `key` there), else found by `id`, or by `nodeId`/`nodePath` with `key` (created when that
/// node has no attribute of that definition). Everything is checked before anything is written.
pub(crate) async fn save(
    connection: &mut AnyConnection,
    attr: &Attr,
    node: Option<&Node>,
) -> Result<Saved, Fault> {
    let supplied = [
        ("level", &attr.level),
        ("inheritance", &attr.inheritance),
        ("restriction", &attr.restriction),
        (
            "sortDirection",
            &attr
                .domain_vals
                .as_ref()
                .and_then(|d| d.sort_direction.clone()),
        ),
        (
            "mode",
            &attr.domain_vals.as_ref().and_then(|d| d.mode.clone()),
        ),
    ];
    for ((field, value), (_, allowed)) in supplied.iter().zip(ALLOWED) {
        if let Some(value) = value
            && !allowed.contains(&value.as_str())
        {
            return Err(invalid(value, field));
        }
    }
    let (existing, target) = match (node, attr.id) {
        (None, Some(id)) => {
            let Some(existing) = stored::find_id(connection, id).await? else {
                return refused(format!("Attribute with id {id} was not found."));
            };
            if let Some(key) = attr.key.as_deref().filter(|key| *key != existing.key) {
                return Err(invalid(key, "key"));
            }
            if let Some(node) = attr.node_id.filter(|node| *node != existing.node_id) {
                return Err(invalid(&node.to_string(), "nodeId"));
            }
            if let Some(path) = attr
                .node_path
                .as_deref()
                .filter(|p| *p != existing.node_path)
            {
                return Err(invalid(path, "nodePath"));
            }
            let target = (
                existing.node_id,
                existing.node_path.clone(),
                existing.definition_id,
            );
            (Some(existing), target)
        }
        _ => {
            let node = match node {
                Some(node) => node.clone(),
                None => find_node(connection, attr.node_id, attr.node_path.as_deref()).await?,
            };
            let Some(key) = attr.key.as_deref() else {
                return refused("Missing required value 'key'");
            };
            // Held until the transaction ends, so a concurrent delete of the definition waits
            // (or has ended, and it is not found).
            let Some(definition) = definitions::hold(connection, key).await? else {
                return refused(format!("Attribute definition: '{key}' cannot be found"));
            };
            // Concurrent saves of attributes of one node wait for each other (PostgreSQL), so
            // that the second of two creates of one attribute finds the first and updates it.
            nodes::lock(connection, node.id).await?;
            let existing = stored::find_on(connection, node.id, definition).await?;
            if existing.is_none() {
                check_room(connection, &node).await?;
            }
            (existing, (node.id, node.path, definition))
        }
    };
    let created = existing.is_none();
    let mut attribute = match existing {
        Some(existing) => existing,
        None => {
            let required = [
                ("level", attr.level.is_none()),
                ("inheritance", attr.inheritance.is_none()),
                ("restriction", attr.restriction.is_none()),
                ("localized", attr.localized.is_none()),
            ];
            if let Some((field, _)) = required.iter().find(|(_, missing)| *missing) {
                return refused(format!("Missing required value '{field}'"));
            }
            Attribute {
                id: 0,
                node_id: target.0,
                node_path: target.1,
                definition_id: target.2,
                key: attr.key.clone().unwrap_or_default(),
                level: None,
                inheritance: None,
                restriction: None,
                localized: Flag(false),
                allow_new_value: None,
                sort_direction: None,
                mode: None,
                default_value: None,
            }
        }
    };
    // Only the supplied properties change.
    for (stored, given) in [
        (&mut attribute.level, &attr.level),
        (&mut attribute.inheritance, &attr.inheritance),
        (&mut attribute.restriction, &attr.restriction),
    ] {
        if given.is_some() {
            stored.clone_from(given);
        }
    }
    if let Some(localized) = attr.localized {
        attribute.localized = Flag(localized);
    }
    let domain = match &attr.domain_vals {
        Some(domain) => Some(domain_values(connection, domain).await?),
        None => None,
    };
    if let Some(domain) = &attr.domain_vals {
        if domain.allow_new_value.is_some() {
            attribute.allow_new_value = domain.allow_new_value.map(Flag);
        }
        for (stored, given) in [
            (&mut attribute.sort_direction, &domain.sort_direction),
            (&mut attribute.mode, &domain.mode),
        ] {
            if given.is_some() {
                stored.clone_from(given);
            }
        }
    }
    // The default value is one of the domain values: those given, else those stored.
    let tids: HashSet<String> = match &domain {
        Some(values) => values.iter().map(|(tid, _)| tid.clone()).collect(),
        None if created => HashSet::new(),
        None => stored::domain_value_tids(connection, attribute.id)
            .await?
            .into_iter()
            .collect(),
    };
    if let Some(default) = &attr.default_val {
        if !tids.contains(&default.tid) {
            return Err(invalid(&default.tid, "defaultVal"));
        }
        attribute.default_value = Some(default.tid.clone());
    } else if attribute
        .default_value
        .as_ref()
        .is_some_and(|tid| !tids.contains(tid))
    {
        // A replaced list without the former default leaves the attribute without one.
        attribute.default_value = None;
    }
    attribute.id = stored::save(connection, &attribute).await?;
    if let Some(values) = &domain {
        stored::replace_domain_values(connection, attribute.id, values).await?;
    }
    Ok(Saved { attribute, created })
}

/// The node an `attr` names by `nodeId` (first) or `nodePath`.
async fn find_node(
    connection: &mut AnyConnection,
    id: Option<i64>,
    path: Option<&str>,
) -> Result<Node, Fault> {
    match (id, path) {
        (Some(id), path) => match nodes::find_id(connection, id).await? {
            Some(node) if path.is_none_or(|path| path == node.path) => Ok(node),
            Some(_) => Err(invalid(path.unwrap_or_default(), "nodePath")),
            None => refused(format!("Node with id {id} not found")),
        },
        (None, Some(path)) => match nodes::find_path(connection, path).await? {
            Some(node) => Ok(node),
            None => refused(format!("Node with path {path} not found")),
        },
        (None, None) => refused("Missing required value 'nodeId or nodePath'"),
    }
}

/// The domain values of a `domainVals` (the whole list, mode `FULL`): each tid once, with its
/// texts by locale (`""` for a text without one), each locale known.
async fn domain_values(
    connection: &mut AnyConnection,
    domain: &DomainVals,
) -> Result<Vec<(String, Vec<(String, String)>)>, Fault> {
    let mut values: Vec<(String, Vec<(String, String)>)> =
        Vec::with_capacity(domain.domain_val.len());
    let mut tids = HashSet::with_capacity(domain.domain_val.len());
    let mut locales = Locales::default();
    for value in &domain.domain_val {
        if !tids.insert(value.tid.as_str()) {
            return Err(invalid(&value.tid, "domainVal"));
        }
        let mut texts: Vec<(String, String)> = Vec::with_capacity(value.itm.len());
        let mut given = HashSet::with_capacity(value.itm.len());
        for item in &value.itm {
            let loc = item.loc.clone().unwrap_or_default();
            if !given.insert(loc.clone()) {
                return Err(invalid(&loc, "loc"));
            }
            if !locales.known(connection, &loc).await? {
                return Err(invalid(&loc, "loc"));
            }
            texts.push((loc, item.value.clone()));
        }
        values.push((value.tid.clone(), texts));
    }
    Ok(values)
}

/// `attributes/persist`: each `attr` created or updated in its transaction.
pub(crate) struct Persist;

impl Apply for Persist {
    type Item = Attr;

    /// What identifies an attribute item before it is applied.
    fn echo(attr: &Attr) -> ResponseType {
        let action = if attr.id.is_some() {
            "update"
        } else {
            "create"
        };
        let mut record = batch::record(DATA_TYPE, action, ResponseTypeStatus::Error, "");
        record.id = attr.id;
        record.node_id = attr.node_id;
        record.node_path = attr.node_path.clone();
        record.key = attr.key.clone();
        record
    }

    async fn apply(
        transaction: &mut Tx,
        attr: &Attr,
        _scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        match save(transaction, attr, None).await {
            Ok(saved) => Ok(saved.record()),
            Err(fault) => Err(fault.of_item(&Persist::echo(attr))),
        }
    }
}

/// `attributes/perform`: each `delete` action applied in its transaction (D-27).
pub(crate) struct Perform;

impl Apply for Perform {
    type Item = Action;

    /// What identifies a delete action before it is applied.
    fn echo(action: &Action) -> ResponseType {
        let mut record = batch::record(DATA_TYPE, "delete", ResponseTypeStatus::Error, "");
        record.id = action.id;
        record.node_id = action.node_id;
        record.node_path = action.node_path.clone();
        record.key = action.key.clone();
        record
    }

    async fn apply(
        transaction: &mut Tx,
        action: &Action,
        _scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Perform::echo(action);
        batch::supported(action, DATA_TYPE, &["delete"], &echo)?;
        let attribute = target(transaction, action)
            .await
            .map_err(|fault| fault.of_item(&echo))?;
        stored::delete(transaction, attribute.id).await?;
        Ok(identified(
            batch::record(
                DATA_TYPE,
                "delete",
                ResponseTypeStatus::Success,
                "The attribute has been deleted successfully",
            ),
            &attribute,
        ))
    }
}

/// The attribute a delete action names: by `id`, else by its node and `key`.
async fn target(connection: &mut AnyConnection, action: &Action) -> Result<Attribute, Fault> {
    if let Some(id) = action.id {
        return match stored::find_id(connection, id).await? {
            Some(attribute) => Ok(attribute),
            None => refused(format!("Attribute with id {id} was not found.")),
        };
    }
    let (Some(key), true) = (
        action.key.as_deref(),
        action.node_id.is_some() || action.node_path.is_some(),
    ) else {
        return refused("Missing required value 'id'");
    };
    let node = find_node(connection, action.node_id, action.node_path.as_deref()).await?;
    let definition =
        records::find(&mut *connection, &ATTRIBUTE_DEFINITIONS, Identity::Key(key)).await?;
    let attribute = match definition {
        Some(definition) => stored::find_on(connection, node.id, definition.id).await?,
        None => None,
    };
    attribute.ok_or_else(|| {
        Fault::Refused(format!(
            "Attribute '{key}' was not found on node {}",
            node.path
        ))
    })
}
