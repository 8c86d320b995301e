//! `classes/persist`: each classification with its nodes in one transaction (the six rules of
//! the specification, D-23, D-24, D-40).

use std::{collections::HashMap, marker::PhantomData};

use core_api::messages;
use core_api::types::{
    Class, ClassesPersistRequest, Node as NodeAnswer, ResponseType, ResponseTypeStatus,
};
use core_api_support::fill;
use serde::{Serialize, Serializer};
use sqlx::AnyConnection;

use super::{DATA_TYPE, find, known};
use crate::{
    error::ApiError,
    modules::{
        Locales,
        batch::{self, Apply, ItemError, Scope, Tx},
        pim::attributes::{self, Fault},
    },
    storage::{
        classifications as stored,
        nodes::{self, MAX_DEPTH, Node},
        records::{self, Identity},
    },
};

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
        let found = locate(transaction, item.class, &echo).await?;
        let created = found.is_none();
        let (id, tid) = match found {
            Some(found) => {
                stored::touch(transaction, found.id, scope.now).await?;
                (found.id, found.key.unwrap_or_default())
            }
            None => {
                let tid = creatable(item, &echo)?;
                (stored::create(transaction, &tid, scope.now).await?, tid)
            }
        };
        let mut warnings = Vec::new();
        let mut locales = Locales::default();
        save_names(transaction, item.class, id, &mut locales, &mut warnings).await?;
        let mut position = nodes::next_position(transaction, id).await?;
        for node in &item.nodes {
            let mut place = Place {
                classification: id,
                tid: &tid,
                position: &mut position,
                locales: &mut locales,
                warnings: &mut warnings,
            };
            match save_node(transaction, node, &mut place).await {
                Ok(()) => {}
                Err(Fault::Refused(text)) => warnings.push(text),
                Err(Fault::Storage(error)) => return Err(error.into()),
            }
        }
        let (action, text) = if created {
            (
                "create",
                messages::THE_CLASSIFICATION_HAS_BEEN_CREATED_SUCCESSFULLY,
            )
        } else {
            (
                "update",
                messages::THE_CLASSIFICATION_HAS_BEEN_SAVED_SUCCESSFULLY,
            )
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

/// The stored classification a `class` names (by `id`, whose tid it may not change, else by
/// `tid`), locked; none when it is new.
async fn locate(
    transaction: &mut Tx,
    class: &Class,
    echo: &ResponseType,
) -> Result<Option<records::Found>, ItemError> {
    match (class.id, class.tid.as_deref()) {
        (Some(id), given) => match find(transaction, Identity::Id(id)).await? {
            None => {
                let text = fill(
                    messages::THERE_IS_NO_CLASSIFICATION_WITH_THE_GIVEN_IDENTITY_ID,
                    &[&id],
                );
                Err(batch::refuse(echo, text))
            }
            Some(found) if given.is_some_and(|tid| Some(tid) != found.key.as_deref()) => {
                let text = fill(
                    messages::THE_TID_OF_CLASSIFICATION_ID_IS_TID_AND_CANNOT_BE_CHANGED,
                    &[&id, &found.key.unwrap_or_default()],
                );
                Err(batch::refuse(echo, text))
            }
            Some(found) => {
                stored::lock_tid(transaction, found.key.as_deref().unwrap_or_default()).await?;
                Ok(Some(found))
            }
        },
        // Found after the lock: a concurrent create of it has ended by then.
        (None, Some(tid)) => {
            stored::lock_tid(transaction, tid).await?;
            Ok(find(transaction, Identity::Key(tid)).await?)
        }
        (None, None) => Err(batch::refuse(echo, messages::MISSING_REQUIRED_VALUE_TID)),
    }
}

/// The tid of a new classification, whose first node must be its root `/<tid>`.
fn creatable(item: &ClassItem<'_>, echo: &ResponseType) -> Result<String, ItemError> {
    let tid = item.class.tid.clone().unwrap_or_default();
    let root = format!("/{tid}");
    let first = item.nodes.first();
    let rooted = first.is_some_and(|node| {
        node.path.as_deref() == Some(root.as_str())
            && node.parent_id.is_none()
            && node.parent_path.is_none()
    });
    if !rooted || tid.is_empty() || tid.contains('/') {
        let path = first.and_then(|node| node.path.clone()).unwrap_or(root);
        let text = fill(
            messages::UNABLE_TO_CREATE_THE_ROOT_NODE_PATH_OF_CLASSIFICATION_TID,
            &[&path, &tid],
        );
        return Err(batch::refuse(echo, text));
    }
    Ok(tid)
}

/// Saves a classification's names; one in an unknown locale or taken by another is a warning.
async fn save_names(
    transaction: &mut Tx,
    class: &Class,
    id: i64,
    locales: &mut Locales,
    warnings: &mut Vec<String>,
) -> Result<(), sqlx::Error> {
    for name in class.name.iter().flat_map(|name| &name.itm) {
        let loc = name.loc.as_deref().unwrap_or_default();
        if !known(locales, transaction, loc, warnings).await? {
            continue;
        }
        if !loc.is_empty() {
            stored::lock_name(transaction, loc, &name.value).await?;
        }
        if !loc.is_empty() && stored::name_taken(transaction, id, loc, &name.value).await? {
            warnings.push(fill(messages::UNABLE_TO_CREATE_NEW_CLASSIFICATION_NAME_NAME_FOR_LANGUAGE_CODE_BECAUSE_IT_ALREADY_EXIST, &[&name.value, &loc]));
            continue;
        }
        stored::set_name(transaction, id, loc, &name.value).await?;
    }
    Ok(())
}

/// Where a node of a persist item is saved, and what the item's nodes share.
struct Place<'p> {
    /// The classification's id.
    classification: i64,
    /// Its tid: the root node's identifier.
    tid: &'p str,
    /// The position the next new node takes.
    position: &'p mut i64,
    /// The locales known so far.
    locales: &'p mut Locales,
    /// The item's warnings.
    warnings: &'p mut Vec<String>,
}

/// Saves one node of a classification (found by path, created when missing) with its names and
/// attributes. A refusal leaves the node unsaved; an attribute's refusal is a warning.
async fn save_node(
    connection: &mut AnyConnection,
    node: &NodeAnswer,
    place: &mut Place<'_>,
) -> Result<(), Fault> {
    let Some(path) = node.path.as_deref() else {
        return refused(messages::MISSING_REQUIRED_VALUE_PATH.into());
    };
    check_path(path, place.tid)?;
    let existing = nodes::find(connection, place.classification, path).await?;
    if let Some(id) = node.id
        && existing.as_ref().is_none_or(|existing| existing.id != id)
    {
        return refused(fill(messages::NODE_WITH_ID_ID_NOT_FOUND, &[&id]));
    }
    let parent = parent(connection, node, path, place).await?;
    // Names in unknown locales are left out with a warning; the rest is written below.
    let mut names = Vec::new();
    for name in node.name.iter().flat_map(|name| &name.itm) {
        let loc = name.loc.as_deref().unwrap_or_default();
        if known(place.locales, connection, loc, place.warnings).await? {
            names.push((loc, name.value.as_str()));
        }
    }
    let stored = match existing {
        Some(existing) => existing,
        None => {
            let (classification, position) = (place.classification, *place.position);
            let id = nodes::create(connection, classification, parent, path, position).await?;
            *place.position += 1;
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
            Err(Fault::Refused(text)) => place.warnings.push(text),
            Err(Fault::Storage(error)) => return Err(Fault::Storage(error)),
        }
    }
    Ok(())
}

fn refused<T>(text: String) -> Result<T, Fault> {
    Err(Fault::Refused(text))
}

/// Refuses a node path outside the classification or deeper than a tree may be.
fn check_path(path: &str, tid: &str) -> Result<(), Fault> {
    let root = format!("/{tid}");
    let inside = path == root
        || path
            .strip_prefix(&root)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| rest.split('/').all(|segment| !segment.is_empty()));
    if !inside {
        return refused(fill(
            messages::NODE_PATH_PATH_IS_NOT_INSIDE_CLASSIFICATION_TID,
            &[&path, &tid],
        ));
    }
    if path.matches('/').count() > MAX_DEPTH {
        return refused(format!("Node '{path}' is deeper than {MAX_DEPTH} levels"));
    }
    Ok(())
}

/// The id of a node's parent (none for the root), which `parentId` and `parentPath` must name
/// when given.
async fn parent(
    connection: &mut AnyConnection,
    node: &NodeAnswer,
    path: &str,
    place: &Place<'_>,
) -> Result<Option<i64>, Fault> {
    if path == format!("/{}", place.tid) {
        if node.parent_id.is_some() || node.parent_path.is_some() {
            return refused(fill(
                messages::UNABLE_TO_CREATE_THE_ROOT_NODE_PATH_OF_CLASSIFICATION_TID,
                &[&path, &place.tid],
            ));
        }
        return Ok(None);
    }
    let parent_path = path.rsplit_once('/').map_or("", |(parent, _)| parent);
    if let Some(given) = node.parent_path.as_deref()
        && given != parent_path
    {
        return refused(fill(
            messages::PARENT_NODE_WITH_PATH_PATH_NOT_FOUND_FOR_NODE_PATH,
            &[&given, &path],
        ));
    }
    match nodes::find(connection, place.classification, parent_path).await? {
        Some(parent) if node.parent_id.is_none_or(|id| id == parent.id) => Ok(Some(parent.id)),
        _ => refused(fill(
            messages::PARENT_NODE_WITH_PATH_PATH_NOT_FOUND_FOR_NODE_PATH,
            &[&parent_path, &path],
        )),
    }
}
