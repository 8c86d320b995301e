//! `getClasses` and `classes/retrieve` (D-21, D-22, D-25): classifications with their trees,
//! flat or nested, read in three aggregated statements each and ordered in one pass.

use std::collections::{HashMap, HashSet};

use core_api::types::{Attr, Class, ClassificationRequest, NameItm, Node as NodeAnswer, Nodes};

use super::{name_item, named};
use crate::{
    error::ApiError,
    storage::{
        Database, classifications as stored,
        trees::{self, TreeAttribute, TreeName, TreeNode},
    },
};

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
    stored_nodes.sort_unstable_by_key(|node| (node.position, node.id));
    let index: HashMap<i64, usize> = stored_nodes
        .iter()
        .enumerate()
        .map(|(at, node)| (node.id, at))
        .collect();
    let mut names = names_by_node(read.names, &index);
    let mut attrs = attrs_by_node(read.attributes, &index, &stored_nodes);
    let (order, parents) = pre_order(&stored_nodes, &index);
    let mut slots: Vec<Option<TreeNode>> = stored_nodes.into_iter().map(Some).collect();
    let nodes = order
        .into_iter()
        .filter_map(|at| slots[at].take().map(|node| (at, node)))
        .map(
            |(
                at,
                TreeNode {
                    id,
                    parent_id,
                    path,
                    ..
                },
            )| {
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
            },
        )
        .collect();
    Ok(Tree { nodes, parents })
}

/// The name items of each node (by its index), ordered by locale.
fn names_by_node(mut read: Vec<TreeName>, index: &HashMap<i64, usize>) -> Vec<Vec<NameItm>> {
    let mut names: Vec<Vec<NameItm>> = Vec::new();
    names.resize_with(index.len(), Vec::new);
    read.sort_unstable_by(|a, b| (a.node_id, &a.loc).cmp(&(b.node_id, &b.loc)));
    for TreeName { node_id, loc, name } in read {
        if let Some(&at) = index.get(&node_id) {
            names[at].push(name_item(&loc, name));
        }
    }
    names
}

/// The `attr` answers of each node (by its index), ordered by id.
fn attrs_by_node(
    mut read: Vec<TreeAttribute>,
    index: &HashMap<i64, usize>,
    nodes: &[TreeNode],
) -> Vec<Vec<Attr>> {
    let mut attrs: Vec<Vec<Attr>> = Vec::new();
    attrs.resize_with(nodes.len(), Vec::new);
    read.sort_unstable_by_key(|attribute| (attribute.node_id, attribute.id));
    for attribute in read {
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
                node_path: Some(nodes[at].path.clone()),
                restriction: attribute.restriction,
            });
        }
    }
    attrs
}

/// The nodes (by index) in depth-first pre-order, and each one's parent as its place in that
/// order, walked with an explicit stack.
fn pre_order(nodes: &[TreeNode], index: &HashMap<i64, usize>) -> (Vec<usize>, Vec<Option<usize>>) {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (at, node) in nodes.iter().enumerate() {
        match node.parent_id.and_then(|parent| index.get(&parent)) {
            Some(&parent) => children[parent].push(at),
            None => roots.push(at),
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut parents = Vec::with_capacity(nodes.len());
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
    (order, parents)
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
