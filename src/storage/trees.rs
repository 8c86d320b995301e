//! Classifications with their trees, read as classes retrieve writes them (D-22, D-59): the
//! classifications a request selects with their names (one statement for a list of ids or of
//! tids, which reads no other classification and alone answers a read without nodes), then
//! each one's nodes in depth-first pre-order, in pages of [`PAGE`] nodes with their names and
//! attributes, all in one read transaction (one snapshot) and handed over as the answer takes
//! them.
//!
//! A tree's order comes from its skeleton (each node's id, parent and place among its siblings),
//! read in one statement and ordered here: about 40 bytes a node, a small part of the answer.
//! Each page is one statement whose rows the database aggregates into one JSON text: `sqlx`
//! hands a result over row by row through its driver (on SQLite from a worker thread), at about
//! 3 µs a row, while `serde_json` reads the same data as one text at hundreds of MB/s.

use std::collections::HashMap;

use futures_util::stream::BoxStream;
use serde::Deserialize;
use sqlx::{AnyConnection, Connection};

use super::{
    Backend, Database,
    classifications::{self, Classification, Name},
    flag::Flag,
    json_rows, json_text, stream,
};

/// How many nodes a page holds.
pub(crate) const PAGE: usize = 512;

/// Which classifications a read selects.
#[derive(Debug)]
pub(crate) struct Selection {
    /// These ids and these tids (both empty: every classification).
    pub(crate) ids: Vec<i64>,
    /// See `ids`.
    pub(crate) tids: Vec<String>,
    /// Whether their nodes are read too.
    pub(crate) nodes: bool,
}

/// What a read hands over, in this order: the classifications once, then for each of them (when
/// nodes are asked) its start and its pages.
#[derive(Debug)]
pub(crate) enum Read {
    /// The classifications selected, by id, and every classification name by classification
    /// and locale.
    Classifications(Vec<Classification>, Vec<Name>),
    /// The nodes of the classification at this place among those selected follow.
    Tree(usize),
    /// The next nodes of the current classification, in depth-first pre-order.
    Nodes(Vec<PageNode>),
}

/// A node of a page, with what its answer holds.
#[derive(Debug)]
pub(crate) struct PageNode {
    /// Its id.
    pub(crate) id: i64,
    /// Its parent (none for a root).
    pub(crate) parent_id: Option<i64>,
    /// How many ancestors it has.
    pub(crate) depth: usize,
    /// Whether children follow it.
    pub(crate) parent: bool,
    /// Its path.
    pub(crate) path: String,
    /// Its names, by locale.
    pub(crate) names: Vec<TreeName>,
    /// Its attributes, by id.
    pub(crate) attributes: Vec<TreeAttribute>,
}

/// A node's place in its tree, as its skeleton gives it.
#[derive(Debug, Deserialize)]
struct Bone {
    id: i64,
    parent_id: Option<i64>,
    position: i64,
}

/// A node in pre-order: what its page needs besides the row.
#[derive(Debug, Clone, Copy)]
struct Placed {
    id: i64,
    parent_id: Option<i64>,
    depth: usize,
    parent: bool,
}

/// A node's row of a page (read from a JSON array in this field order).
#[derive(Debug, Deserialize)]
struct PageRow {
    id: i64,
    path: String,
    names: Vec<TreeName>,
    attributes: Vec<TreeAttribute>,
}

/// A name of a node.
#[derive(Debug, Deserialize)]
pub(crate) struct TreeName {
    /// The locale (empty for the default name).
    pub(crate) loc: String,
    /// The name.
    pub(crate) name: String,
}

/// An attribute of a node, with its definition's tid (its `key`).
#[derive(Debug, Deserialize)]
pub(crate) struct TreeAttribute {
    /// Its id.
    pub(crate) id: i64,
    /// Its definition's tid.
    pub(crate) key: String,
    /// `level`.
    pub(crate) level: Option<String>,
    /// `inheritance`.
    pub(crate) inheritance: Option<String>,
    /// `restriction`.
    pub(crate) restriction: Option<String>,
    /// `localized`.
    pub(crate) localized: Flag,
}

/// The statements of one backend: a classification's skeleton (`$1`) and the rows of a page's
/// nodes (`$1`, their ids as a JSON array).
struct Statements {
    skeleton: &'static str,
    page: &'static str,
}

const SQLITE: Statements = Statements {
    skeleton: sql!(sqlite: "SELECT json_group_array(json_array(id, parent_id, position)) \
            FROM classification_nodes WHERE classification_id = $1"),
    page: sql!(sqlite: "SELECT json_group_array(json_array(n.id, n.path, \
            json((SELECT json_group_array(json_array(nn.loc, nn.name)) FROM node_names nn \
                  WHERE nn.node_id = n.id)), \
            json((SELECT json_group_array(json_array(a.id, d.tid, a.level, a.inheritance, \
                  a.restriction, a.localized)) FROM node_attributes a \
                  JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
                  WHERE a.node_id = n.id)))) \
            FROM json_each($1) j JOIN classification_nodes n ON n.id = j.value"),
};

const POSTGRES: Statements = Statements {
    skeleton: sql!(postgres: "SELECT COALESCE(json_agg(json_build_array(id, parent_id, \
            position)), '[]')::text FROM classification_nodes WHERE classification_id = $1"),
    page: sql!(postgres: "SELECT COALESCE(json_agg(json_build_array(n.id, n.path, \
            (SELECT COALESCE(json_agg(json_build_array(nn.loc, nn.name)), '[]') \
             FROM node_names nn WHERE nn.node_id = n.id), \
            (SELECT COALESCE(json_agg(json_build_array(a.id, d.tid, a.level, a.inheritance, \
             a.restriction, a.localized)), '[]') FROM node_attributes a \
             JOIN attribute_definitions d ON d.id = a.attribute_definition_id \
             WHERE a.node_id = n.id))), '[]')::text \
            FROM json_array_elements_text($1::json) j \
            JOIN classification_nodes n ON n.id = j.value::bigint"),
};

/// The classifications `selection` selects and, when asked, their trees: one snapshot, read
/// while the answer is written and bounded like every streamed read (`storage::stream`).
pub(crate) fn read(
    database: &Database,
    selection: Selection,
) -> BoxStream<'static, Result<Read, sqlx::Error>> {
    let backend = database.backend();
    stream::read(database, move |mut connection, sender| async move {
        if !selection.nodes && classifications::read_at_once(&selection.ids, &selection.tids) {
            // One statement is one snapshot: no transaction around it.
            let (selected, names) =
                classifications::selected(&mut connection, &selection.ids, &selection.tids).await?;
            let _ = sender
                .send(Ok(Read::Classifications(selected, names)))
                .await;
            return Ok(());
        }
        let mut transaction = connection.begin_with(stream::snapshot(backend)).await?;
        let (selected, names) =
            classifications::selected(&mut transaction, &selection.ids, &selection.tids).await?;
        let ids: Vec<i64> = selected.iter().map(|class| class.id).collect();
        if sender
            .send(Ok(Read::Classifications(selected, names)))
            .await
            .is_err()
            || !selection.nodes
        {
            return transaction.rollback().await;
        }
        for (at, id) in ids.into_iter().enumerate() {
            if sender.send(Ok(Read::Tree(at))).await.is_err()
                || !send_tree(&mut transaction, backend, id, &sender).await?
            {
                break;
            }
        }
        transaction.rollback().await
    })
}

/// Sends the pages of the tree of the classification `id`; answers whether the answer still
/// takes them.
async fn send_tree(
    connection: &mut AnyConnection,
    backend: Backend,
    id: i64,
    sender: &tokio::sync::mpsc::Sender<Result<Read, sqlx::Error>>,
) -> Result<bool, sqlx::Error> {
    let statements = match backend {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    let text = sqlx::query_scalar(statements.skeleton)
        .bind(id)
        .fetch_one(&mut *connection)
        .await?;
    let order = pre_order(json_rows(text)?);
    for page in order.chunks(PAGE) {
        let ids = json_text(&page.iter().map(|node| node.id).collect::<Vec<_>>())?;
        let text = sqlx::query_scalar(statements.page)
            .bind(ids)
            .fetch_one(&mut *connection)
            .await?;
        let nodes = in_order(page, json_rows(text)?);
        if sender.send(Ok(Read::Nodes(nodes))).await.is_err() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The nodes of a tree in depth-first pre-order, siblings in the order they were created (by
/// position, then id), walked with an explicit stack; a node whose parent is not in the tree is
/// a root.
fn pre_order(mut bones: Vec<Bone>) -> Vec<Placed> {
    bones.sort_unstable_by_key(|bone| (bone.position, bone.id));
    let index: HashMap<i64, usize> = bones
        .iter()
        .enumerate()
        .map(|(at, bone)| (bone.id, at))
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); bones.len()];
    let mut roots = Vec::new();
    for (at, bone) in bones.iter().enumerate() {
        match bone.parent_id.and_then(|parent| index.get(&parent)) {
            Some(&parent) => children[parent].push(at),
            None => roots.push(at),
        }
    }
    let mut order = Vec::with_capacity(bones.len());
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&root| (root, 0)).collect();
    while let Some((at, depth)) = stack.pop() {
        let bone = &bones[at];
        order.push(Placed {
            id: bone.id,
            parent_id: bone.parent_id,
            depth,
            parent: !children[at].is_empty(),
        });
        stack.extend(children[at].iter().rev().map(|&child| (child, depth + 1)));
    }
    order
}

/// A page's rows in the order of `page`, names by locale and attributes by id; a node whose row
/// is missing is left out.
fn in_order(page: &[Placed], rows: Vec<PageRow>) -> Vec<PageNode> {
    let mut rows: HashMap<i64, PageRow> = rows.into_iter().map(|row| (row.id, row)).collect();
    page.iter()
        .filter_map(|placed| {
            let mut row = rows.remove(&placed.id)?;
            row.names.sort_unstable_by(|a, b| a.loc.cmp(&b.loc));
            row.attributes
                .sort_unstable_by_key(|attribute| attribute.id);
            Some(PageNode {
                id: placed.id,
                parent_id: placed.parent_id,
                depth: placed.depth,
                parent: placed.parent,
                path: row.path,
                names: row.names,
                attributes: row.attributes,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    /// What a read of the demo hands over, as `(classifications, trees)`.
    async fn reads(ids: Vec<i64>, tids: &[&str], nodes: bool) -> (usize, usize) {
        let database = Database::connect("sqlite::memory:")
            .await
            .expect("a database");
        crate::bootstrap::load_demo(&database)
            .await
            .expect("the demo loads");
        let selection = Selection {
            ids,
            tids: tids.iter().map(|tid| tid.to_string()).collect(),
            nodes,
        };
        let mut counted = (0, 0);
        let mut read = super::read(&database, selection);
        while let Some(item) = read.next().await {
            match item.expect("a read") {
                Read::Classifications(selected, _) => counted.0 += selected.len(),
                Read::Tree(_) => counted.1 += 1,
                Read::Nodes(_) => {}
            }
        }
        counted
    }

    #[tokio::test]
    async fn a_read_without_nodes_ends_after_the_classifications() {
        // Both lists: two statements in the read transaction, then nothing more.
        assert_eq!(reads(vec![i64::MAX], &["Apparel"], false).await, (1, 0));
        assert_eq!(reads(Vec::new(), &["Apparel"], false).await, (1, 0));
        assert_eq!(reads(vec![i64::MAX], &["Apparel"], true).await, (1, 1));
    }

    fn bone(id: i64, parent_id: Option<i64>, position: i64) -> Bone {
        Bone {
            id,
            parent_id,
            position,
        }
    }

    #[test]
    fn pre_order_puts_children_after_their_parent_in_creation_order() {
        let order = pre_order(vec![
            bone(4, Some(1), 3),
            bone(2, Some(1), 1),
            bone(1, None, 0),
            bone(3, Some(2), 2),
        ]);
        let placed: Vec<(i64, usize, bool)> = order
            .iter()
            .map(|node| (node.id, node.depth, node.parent))
            .collect();
        assert_eq!(
            placed,
            [(1, 0, true), (2, 1, true), (3, 2, false), (4, 1, false)]
        );
    }
}
