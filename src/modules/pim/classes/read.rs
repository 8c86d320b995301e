//! `getClasses` and `classes/retrieve` (D-21, D-22, D-25): classifications with their trees,
//! flat or nested, written as `storage::trees` reads them (D-59): the classifications first,
//! then each one's nodes in depth-first pre-order, page by page.

use core_api::service::ClassesRetrieveItem;
use core_api::types::{Attr, Class, ClassificationRequest, Node, Nodes};
use core_api_support::{Either, Entry};
use futures_util::{StreamExt, stream::BoxStream};

use super::{name_item, named};
use crate::{
    error::ApiError,
    storage::{
        Database,
        trees::{self, PageNode, Read, Selection, TreeAttribute},
    },
};

/// An item of the answer: a classification, or a node.
pub(crate) type Item = Entry<ClassesRetrieveItem>;

/// How a retrieve answers the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Without nodes: the classifications alone.
    Bare,
    /// Every node in one `nodes` list beside `classes`.
    Flat,
    /// Each classification's nodes inside it, children inside their parent.
    Nested,
}

/// A retrieve's answer: the classifications (whole in the bare and flat forms), and the items
/// streamed after them.
pub(crate) struct Retrieved {
    /// The form asked for.
    pub(crate) form: Form,
    /// The classifications the answer holds whole, with their names, without nodes (none in the
    /// nested form, which streams them).
    pub(crate) classes: Vec<Class>,
    /// The nested form's classifications with their nodes, or the flat form's nodes; nothing
    /// for the bare form.
    pub(crate) items: BoxStream<'static, Result<Item, ApiError>>,
}

/// The classifications a request selects (all for an empty body, an empty `ids` or an empty
/// `tids`; otherwise the union of both, unknown ones skipped, 404 when none exists), by id,
/// with their nodes when asked: flat (returned beside) or nested in each `class`.
pub(crate) async fn retrieve(
    database: &Database,
    request: &ClassificationRequest,
) -> Result<Retrieved, ApiError> {
    let form = match (request.with_nodes, request.flat_nodes) {
        (false, _) => Form::Bare,
        (true, true) => Form::Flat,
        (true, false) => Form::Nested,
    };
    let everything = request.ids.is_empty() && request.tids.is_empty();
    let mut read = trees::read(
        database,
        Selection {
            ids: request.ids.clone(),
            tids: request.tids.clone(),
            nodes: form != Form::Bare,
        },
    );
    let Some(Read::Classifications(selected)) = read.next().await.transpose()? else {
        return Err(sqlx::Error::Protocol(
            "a classes read began without its classifications".into(),
        )
        .into());
    };
    if selected.is_empty() && !everything {
        return Err(ApiError::NotFound(
            "None of the requested classifications exists".into(),
        ));
    }
    let classes: Vec<Class> = selected
        .into_iter()
        .map(|classification| Class {
            id: Some(classification.id),
            name: named(
                classification
                    .names
                    .into_iter()
                    .map(|name| name_item(&name.loc, name.name))
                    .collect(),
            ),
            tid: Some(classification.tid),
            meta: None,
            nodes: None,
        })
        .collect();
    let (classes, items) = match form {
        Form::Bare => (classes, futures_util::stream::empty().boxed()),
        Form::Flat => {
            let tids = classes
                .iter()
                .map(|class| Class {
                    tid: class.tid.clone(),
                    ..Class::default()
                })
                .collect();
            (classes, entries(form, tids, read))
        }
        Form::Nested => (Vec::new(), entries(form, classes, read)),
    };
    Ok(Retrieved {
        form,
        classes,
        items,
    })
}

/// The items of the flat or nested form, from the pages read and the selected `classes` (whole
/// in the nested form, which streams them; their tids are enough for the flat form).
fn entries(
    form: Form,
    mut classes: Vec<Class>,
    read: BoxStream<'static, Result<Read, sqlx::Error>>,
) -> BoxStream<'static, Result<Item, ApiError>> {
    let mut current = String::new();
    read.flat_map(move |read| {
        let entries: Vec<Result<Item, ApiError>> = match read {
            Err(error) => vec![Err(error.into())],
            Ok(Read::Classifications(..)) => Vec::new(),
            Ok(Read::Tree(at)) => {
                let class = classes.get_mut(at).map(std::mem::take).unwrap_or_default();
                current = class.tid.clone().unwrap_or_default();
                match form {
                    Form::Nested => vec![Ok(Entry::top(Either::Left(Class {
                        nodes: Some(Nodes::default()),
                        ..class
                    })))],
                    _ => Vec::new(),
                }
            }
            Ok(Read::Nodes(nodes)) => nodes
                .into_iter()
                .map(|node| Ok(entry(form, &current, node)))
                .collect(),
        };
        futures_util::stream::iter(entries)
    })
    .boxed()
}

/// The item of a node of the classification `class`: at the top of the flat `nodes`, or below
/// its classification in the nested form, holding its child collection when children follow.
fn entry(form: Form, class: &str, stored: PageNode) -> Item {
    let nested = form == Form::Nested;
    let parent_path = stored
        .parent_id
        .and_then(|_| stored.path.rsplit_once('/'))
        .map(|(parent, _)| parent.to_string());
    let attr = stored
        .attributes
        .into_iter()
        .map(|attribute| attr(attribute, stored.id, &stored.path))
        .collect();
    let name = stored
        .names
        .into_iter()
        .map(|name| name_item(&name.loc, name.name))
        .collect();
    Entry {
        depth: if nested { stored.depth + 1 } else { 0 },
        item: Either::Right(Node {
            attr,
            class: Some(class.to_string()),
            id: Some(stored.id),
            name: named(name),
            nodes: (nested && stored.parent).then(Nodes::default),
            parent_id: stored.parent_id,
            parent_path,
            path: Some(stored.path),
        }),
    }
}

/// The `attr` answer of an attribute of the node `node_id` at `node_path`.
fn attr(attribute: TreeAttribute, node_id: i64, node_path: &str) -> Attr {
    Attr {
        default_val: None,
        domain_vals: None,
        id: Some(attribute.id),
        inheritance: attribute.inheritance,
        key: Some(attribute.key),
        level: attribute.level,
        localized: Some(attribute.localized.into()),
        node_id: Some(node_id),
        node_path: Some(node_path.to_string()),
        restriction: attribute.restriction,
    }
}
