//! Classifications: `getClasses` and `classes/retrieve` (D-21, D-22, D-25), `classes/persist`
//! (the six rules of the specification, D-23, D-24, D-40) and `classes/perform` (D-24).
//!
//! A classification's tid is its name and its root node's identifier: the root is `/<tid>` and
//! every other node's path starts with `/<tid>/`. Trees are read with three queries per
//! classification (nodes, names, attributes, each aggregated into one row: `storage::trees`) and
//! assembled in one pass, without recursion, so that retrieving large and deep trees stays
//! linear.

use std::{
    collections::{HashMap, HashSet},
    marker::PhantomData,
};

use core_api::types::{
    Action, Attr, Class, ClassesPersistRequest, ClassificationRequest, Name, NameItm,
    Node as NodeAnswer, Nodes, ResponseType, ResponseTypeStatus,
};
use serde::{Serialize, Serializer};
use sqlx::AnyConnection;

use super::{
    super::{
        Locales,
        batch::{self, Apply, ItemError, Scope, Tx},
        itm,
    },
    attributes::{self, Fault},
};
use crate::{
    error::ApiError,
    storage::{
        Database, classifications as stored,
        nodes::{self, MAX_DEPTH, Node},
        records::{self, CLASSIFICATIONS, Identity},
        trees::{self, TreeName, TreeNode},
    },
};

/// The `dataType` of classification records.
const DATA_TYPE: &str = "classification";

/// The classifications a request selects (all for an empty body, an empty `ids` or an empty
/// `tids`; otherwise the union of both, unknown ones skipped, 404 when none exists), by id,
/// with their nodes when asked: flat (returned beside) or nested in each `class`.
pub(crate) async fn retrieve(
    database: &Database,
    request: &ClassificationRequest,
) -> Result<(Vec<Class>, Option<Vec<NodeAnswer>>), ApiError> {
    let pool = database.reads();
    let all = stored::all(pool).await?;
    let everything = request.ids.is_empty() && request.tids.is_empty();
    let selected: Vec<stored::Classification> = if everything {
        all
    } else {
        let ids: HashSet<i64> = request.ids.iter().copied().collect();
        let tids: HashSet<&str> = request.tids.iter().map(String::as_str).collect();
        let selected: Vec<_> = all
            .into_iter()
            .filter(|class| ids.contains(&class.id) || tids.contains(class.tid.as_str()))
            .collect();
        if selected.is_empty() {
            return Err(ApiError::NotFound(
                "None of the requested classifications exists".into(),
            ));
        }
        selected
    };
    let mut names: HashMap<i64, Vec<NameItm>> = HashMap::new();
    for name in stored::names(pool).await? {
        names
            .entry(name.classification_id)
            .or_default()
            .push(name_item(&name.loc, name.name));
    }
    let mut classes = Vec::with_capacity(selected.len());
    let mut flat = (request.with_nodes && request.flat_nodes).then(Vec::new);
    for classification in selected {
        let nested = if request.with_nodes {
            let tree = tree(database, &classification).await?;
            match &mut flat {
                Some(flat) => {
                    flat.extend(tree.flat());
                    None
                }
                None => Some(Nodes {
                    node: tree.nested(),
                }),
            }
        } else {
            None
        };
        classes.push(Class {
            id: Some(classification.id),
            tid: Some(classification.tid),
            name: named(names.remove(&classification.id).unwrap_or_default()),
            meta: None,
            nodes: nested,
        });
    }
    Ok((classes, flat))
}

/// A name item: the default name for an empty `loc`.
fn name_item(loc: &str, value: String) -> NameItm {
    itm::name((!loc.is_empty()).then_some(loc), value)
}

/// A `name` element, absent when there is no name.
fn named(itm: Vec<NameItm>) -> Option<Name> {
    (!itm.is_empty()).then_some(Name { itm })
}

/// The nodes of one classification in depth-first pre-order, each with its names and
/// attributes.
struct Tree {
    /// The nodes' answers without children, in pre-order.
    nodes: Vec<NodeAnswer>,
    /// Each node's parent: its index in `nodes` (none for a root).
    parents: Vec<Option<usize>>,
}

/// Reads a classification's nodes, names and attributes (three aggregated statements, whatever
/// the size of the tree) and orders them: siblings in the order they were created, the tree in
/// depth-first pre-order, walked with an explicit stack.
async fn tree(
    database: &Database,
    classification: &stored::Classification,
) -> Result<Tree, ApiError> {
    let read = trees::of_classification(database, classification.id).await?;
    let mut stored_nodes = read.nodes;
    stored_nodes.sort_unstable_by_key(|node| (node.3, node.0));
    let index: HashMap<i64, usize> = stored_nodes
        .iter()
        .enumerate()
        .map(|(at, node)| (node.0, at))
        .collect();
    let mut names: Vec<Vec<NameItm>> = Vec::new();
    names.resize_with(stored_nodes.len(), Vec::new);
    let mut read_names = read.names;
    read_names.sort_unstable_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    for TreeName(node, loc, name) in read_names {
        if let Some(&at) = index.get(&node) {
            names[at].push(name_item(&loc, name));
        }
    }
    let mut attrs: Vec<Vec<Attr>> = Vec::new();
    attrs.resize_with(stored_nodes.len(), Vec::new);
    let mut read_attributes = read.attributes;
    read_attributes.sort_unstable_by_key(|attribute| (attribute.node_id, attribute.id));
    for attribute in read_attributes {
        if let Some(&at) = index.get(&attribute.node_id) {
            attrs[at].push(Attr {
                default_val: None,
                domain_vals: None,
                id: Some(attribute.id),
                inheritance: attribute.inheritance,
                key: Some(attribute.key),
                level: attribute.level,
                localized: Some(attribute.localized.into()),
                node_id: Some(attribute.node_id),
                node_path: Some(stored_nodes[at].2.clone()),
                restriction: attribute.restriction,
            });
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); stored_nodes.len()];
    let mut roots = Vec::new();
    for (at, node) in stored_nodes.iter().enumerate() {
        match node.1.and_then(|parent| index.get(&parent)) {
            Some(&parent) => children[parent].push(at),
            None => roots.push(at),
        }
    }
    let mut order = Vec::with_capacity(stored_nodes.len());
    let mut parents = Vec::with_capacity(stored_nodes.len());
    let mut stack: Vec<(usize, Option<usize>)> =
        roots.iter().rev().map(|&root| (root, None)).collect();
    while let Some((at, parent)) = stack.pop() {
        let position = order.len();
        order.push(at);
        parents.push(parent);
        stack.extend(
            children[at]
                .iter()
                .rev()
                .map(|&child| (child, Some(position))),
        );
    }
    let mut slots: Vec<Option<TreeNode>> = stored_nodes.into_iter().map(Some).collect();
    let nodes = order
        .into_iter()
        .filter_map(|at| slots[at].take().map(|node| (at, node)))
        .map(|(at, TreeNode(id, parent_id, path, _))| {
            let parent_path = parent_id
                .and_then(|_| path.rsplit_once('/'))
                .map(|(parent, _)| parent.to_string());
            NodeAnswer {
                attr: std::mem::take(&mut attrs[at]),
                class: Some(classification.tid.clone()),
                id: Some(id),
                name: named(std::mem::take(&mut names[at])),
                nodes: None,
                parent_id,
                parent_path,
                path: Some(path),
            }
        })
        .collect();
    Ok(Tree { nodes, parents })
}

impl Tree {
    /// The flat form: every node in pre-order.
    fn flat(self) -> Vec<NodeAnswer> {
        self.nodes
    }

    /// The nested form: the roots, each node holding its children in `nodes`. Built from the
    /// last node back, so that every node's children are complete before it is.
    fn nested(self) -> Vec<NodeAnswer> {
        let mut children: Vec<Vec<NodeAnswer>> = Vec::new();
        children.resize_with(self.nodes.len(), Vec::new);
        let mut roots = Vec::new();
        for (at, mut node) in self.nodes.into_iter().enumerate().rev() {
            let mut own = std::mem::take(&mut children[at]);
            if !own.is_empty() {
                own.reverse();
                node.nodes = Some(Nodes { node: own });
            }
            match self.parents[at] {
                Some(parent) => children[parent].push(node),
                None => roots.push(node),
            }
        }
        roots.reverse();
        roots
    }
}

/// A classification of a persist request with its nodes (those naming its tid in `class`).
pub(crate) struct ClassItem<'r> {
    class: &'r Class,
    nodes: Vec<&'r NodeAnswer>,
}

/// An item is checked by the rules of the `Class` schema, so it is written as its `class`.
impl Serialize for ClassItem<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.class.serialize(serializer)
    }
}

/// The items of a persist request: each `class` with its nodes, in request order. A node that
/// names no `class` of the request refuses the request (400, D-24).
pub(crate) fn items(request: &ClassesPersistRequest) -> Result<Vec<ClassItem<'_>>, ApiError> {
    let mut items: Vec<ClassItem<'_>> = request
        .classes
        .class
        .iter()
        .map(|class| ClassItem {
            class,
            nodes: Vec::new(),
        })
        .collect();
    let mut by_tid: HashMap<&str, usize> = HashMap::new();
    for (at, class) in request.classes.class.iter().enumerate() {
        if let Some(tid) = class.tid.as_deref() {
            by_tid.entry(tid).or_insert(at);
        }
    }
    let nodes = request.nodes.iter().flat_map(|nodes| &nodes.node);
    for (index, node) in nodes.enumerate() {
        let Some(&at) = node.class.as_deref().and_then(|class| by_tid.get(class)) else {
            return Err(ApiError::Rule(format!(
                "nodes/node[{}]/class: '{}' is not the tid of a class of this request",
                index + 1,
                node.class.as_deref().unwrap_or_default()
            )));
        };
        items[at].nodes.push(node);
    }
    Ok(items)
}

/// `classes/persist`: each classification with its nodes in one transaction.
pub(crate) struct Persist<'r>(PhantomData<&'r ()>);

impl<'r> Apply for Persist<'r> {
    type Item = ClassItem<'r>;

    /// What identifies a classification before it is applied.
    fn echo(item: &ClassItem<'r>) -> ResponseType {
        let action = if item.class.id.is_some() {
            "update"
        } else {
            "create"
        };
        let mut record = batch::record(DATA_TYPE, action, ResponseTypeStatus::Error, "");
        record.id = item.class.id;
        record.tid = item.class.tid.clone();
        record
    }

    async fn apply(
        transaction: &mut Tx,
        item: &ClassItem<'r>,
        scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Persist::echo(item);
        let class = item.class;
        let found = match (class.id, class.tid.as_deref()) {
            (Some(id), given) => match find(transaction, Identity::Id(id)).await? {
                None => {
                    let text = format!("There is no classification with the given identity '{id}'");
                    return Err(batch::refuse(&echo, text));
                }
                Some(found) if given.is_some_and(|tid| Some(tid) != found.key.as_deref()) => {
                    let text = format!(
                        "The tid of classification {id} is '{}' and cannot be changed",
                        found.key.unwrap_or_default()
                    );
                    return Err(batch::refuse(&echo, text));
                }
                Some(found) => {
                    stored::lock_tid(transaction, found.key.as_deref().unwrap_or_default()).await?;
                    Some(found)
                }
            },
            // Found after the lock: a concurrent create of it has ended by then.
            (None, Some(tid)) => {
                stored::lock_tid(transaction, tid).await?;
                find(transaction, Identity::Key(tid)).await?
            }
            (None, None) => return Err(batch::refuse(&echo, "Missing required value 'tid'")),
        };
        let created = found.is_none();
        let (id, tid) = match found {
            Some(found) => {
                stored::touch(transaction, found.id, scope.now).await?;
                (found.id, found.key.unwrap_or_default())
            }
            None => {
                let tid = class.tid.clone().unwrap_or_default();
                let root = format!("/{tid}");
                let first = item.nodes.first();
                let rooted = first.is_some_and(|node| {
                    node.path.as_deref() == Some(root.as_str())
                        && node.parent_id.is_none()
                        && node.parent_path.is_none()
                });
                if !rooted || tid.is_empty() || tid.contains('/') {
                    let path = first.and_then(|node| node.path.clone()).unwrap_or(root);
                    let text = format!(
                        "Unable to create the root node '{path}' of classification '{tid}'"
                    );
                    return Err(batch::refuse(&echo, text));
                }
                (stored::create(transaction, &tid, scope.now).await?, tid)
            }
        };
        let mut warnings = Vec::new();
        let mut locales = Locales::default();
        for name in class.name.iter().flat_map(|name| &name.itm) {
            let loc = name.loc.as_deref().unwrap_or_default();
            if !known(&mut locales, transaction, loc, &mut warnings).await? {
                continue;
            }
            if !loc.is_empty() {
                stored::lock_name(transaction, loc, &name.value).await?;
            }
            if !loc.is_empty() && stored::name_taken(transaction, id, loc, &name.value).await? {
                warnings.push(format!(
                    "Unable to create new classification name '{}' for language '{loc}', because it already exist.",
                    name.value
                ));
                continue;
            }
            stored::set_name(transaction, id, loc, &name.value).await?;
        }
        let mut position = nodes::next_position(transaction, id).await?;
        for node in &item.nodes {
            let saved = save_node(
                transaction,
                (id, &tid),
                node,
                &mut position,
                &mut locales,
                &mut warnings,
            )
            .await;
            match saved {
                Ok(()) => {}
                Err(Fault::Refused(text)) => warnings.push(text),
                Err(Fault::Storage(error)) => return Err(error.into()),
            }
        }
        let (action, text) = if created {
            ("create", "The classification has been created successfully")
        } else {
            ("update", "The classification has been saved successfully")
        };
        let mut record = batch::saved(
            batch::record(DATA_TYPE, action, ResponseTypeStatus::Success, ""),
            text,
            warnings,
        );
        record.id = Some(id);
        record.tid = Some(tid);
        Ok(record)
    }
}

/// A classification by its identity, in an item's transaction.
async fn find(
    transaction: &mut Tx,
    identity: Identity<'_>,
) -> Result<Option<records::Found>, sqlx::Error> {
    records::find(&mut **transaction, &CLASSIFICATIONS, identity).await
}

/// Whether a name's `loc` is empty (a default name) or a stored locale; an unknown one adds its
/// warning.
async fn known(
    locales: &mut Locales,
    connection: &mut AnyConnection,
    loc: &str,
    warnings: &mut Vec<String>,
) -> Result<bool, sqlx::Error> {
    let known = locales.known(connection, loc).await?;
    if !known {
        warnings.push(format!("Cannot find language id with code '{loc}'."));
    }
    Ok(known)
}

/// Saves one node of a classification (found by path, created when missing) with its names and
/// attributes. A refusal leaves the node unsaved; an attribute's refusal is a warning.
async fn save_node(
    connection: &mut AnyConnection,
    (classification, tid): (i64, &str),
    node: &NodeAnswer,
    position: &mut i64,
    locales: &mut Locales,
    warnings: &mut Vec<String>,
) -> Result<(), Fault> {
    let refused = |text: String| Err(Fault::Refused(text));
    let Some(path) = node.path.as_deref() else {
        return refused("Missing required value 'path'".into());
    };
    let root = format!("/{tid}");
    let inside = path == root
        || path
            .strip_prefix(&root)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| rest.split('/').all(|segment| !segment.is_empty()));
    if !inside {
        return refused(format!(
            "Node path '{path}' is not inside classification '{tid}'"
        ));
    }
    if path.matches('/').count() > MAX_DEPTH {
        return refused(format!("Node '{path}' is deeper than {MAX_DEPTH} levels"));
    }
    let existing = nodes::find(connection, classification, path).await?;
    if let Some(id) = node.id
        && existing.as_ref().is_none_or(|existing| existing.id != id)
    {
        return refused(format!("Node with id {id} not found"));
    }
    let parent = if path == root {
        if node.parent_id.is_some() || node.parent_path.is_some() {
            return refused(format!(
                "Unable to create the root node '{path}' of classification '{tid}'"
            ));
        }
        None
    } else {
        let parent_path = path.rsplit_once('/').map_or("", |(parent, _)| parent);
        if let Some(given) = node.parent_path.as_deref()
            && given != parent_path
        {
            return refused(format!(
                "Parent node with path '{given}' not found for node '{path}'"
            ));
        }
        match nodes::find(connection, classification, parent_path).await? {
            Some(parent) if node.parent_id.is_none_or(|id| id == parent.id) => Some(parent.id),
            _ => {
                return refused(format!(
                    "Parent node with path '{parent_path}' not found for node '{path}'"
                ));
            }
        }
    };
    // Names in unknown locales are left out with a warning; the rest is written below.
    let mut names = Vec::new();
    for name in node.name.iter().flat_map(|name| &name.itm) {
        let loc = name.loc.as_deref().unwrap_or_default();
        if known(locales, connection, loc, warnings).await? {
            names.push((loc, name.value.as_str()));
        }
    }
    let stored = match existing {
        Some(existing) => existing,
        None => {
            let id = nodes::create(connection, classification, parent, path, *position).await?;
            *position += 1;
            if !names.iter().any(|(loc, _)| loc.is_empty()) {
                names.insert(0, ("", path.rsplit('/').next().unwrap_or_default()));
            }
            Node {
                id,
                path: path.to_string(),
            }
        }
    };
    for (loc, name) in names {
        nodes::set_name(connection, stored.id, loc, name).await?;
    }
    for attr in &node.attr {
        match attributes::save(connection, attr, Some(&stored)).await {
            Ok(_) => {}
            Err(Fault::Refused(text)) => warnings.push(text),
            Err(Fault::Storage(error)) => return Err(Fault::Storage(error)),
        }
    }
    Ok(())
}

/// `classes/perform`: each `delete` action applied in its transaction.
pub(crate) struct Perform;

impl Apply for Perform {
    type Item = Action;

    /// What identifies a delete action before it is applied.
    fn echo(action: &Action) -> ResponseType {
        let mut record = batch::record(DATA_TYPE, "delete", ResponseTypeStatus::Error, "");
        record.id = action.id;
        record.tid = action.tid.clone();
        record
    }

    /// Deletes a classification found by `tid` (first) or `id`, with its nodes.
    async fn apply(
        transaction: &mut Tx,
        action: &Action,
        _scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        let echo = Perform::echo(action);
        batch::supported(action, DATA_TYPE, &["delete"], &echo)?;
        let Some(identity) = Identity::preferring_tid(action.tid.as_deref(), action.id) else {
            return Err(batch::refuse(&echo, "Missing required value 'tid'"));
        };
        let shown = match identity {
            Identity::Key(tid) => tid.to_string(),
            Identity::Id(id) => id.to_string(),
        };
        let Some(found) = find(transaction, identity).await? else {
            let text = format!("There is no classification with the given identity '{shown}'");
            return Err(batch::refuse(&echo, text));
        };
        stored::delete(transaction, found.id).await?;
        let mut record = batch::record(
            DATA_TYPE,
            "delete",
            ResponseTypeStatus::Success,
            "The classification has been deleted successfully",
        );
        record.id = Some(found.id);
        record.tid = found.key;
        Ok(record)
    }
}
