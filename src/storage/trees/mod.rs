//! Classifications with their trees, read as classes retrieve writes them (D-22, D-59): the
//! classifications a request selects with their names, then each one's nodes in depth-first
//! pre-order with their names and attributes, as pages of one statement each, all one snapshot
//! read while the answer is written (`storage::stream::pages`).
//!
//! The pages, each echoing what it is and where it stands, so that the next one is known from
//! it:
//! - the classifications, with the first one's whole tree when it is small (at most [`PAGE`]
//!   nodes): a retrieve of one classification, with or without nodes, is this one statement;
//! - for each further classification, its whole tree when small, or else its skeleton (each
//!   node's id, parent and place among its siblings, about 40 bytes a node, ordered here);
//! - for a large tree, its nodes in pages of [`PAGE`], by the pre-order of its skeleton.
//!
//! Each list is aggregated by the database into one JSON text: `sqlx` hands a result over row
//! by row, at about 3 µs a row, while `serde_json` reads the same data as one text at hundreds
//! of MB/s.

use std::{
    collections::{BTreeSet, HashMap},
    sync::Arc,
};

use futures_util::{StreamExt, stream::BoxStream};
use serde::Deserialize;
use sqlx::{
    Any, FromRow,
    any::{AnyArguments, AnyRow},
    query::QueryAs,
};

mod statements;

use statements::{POSTGRES, SQLITE, Statements};

use super::{Backend, Database, flag::Flag, json_rows, json_text, stream};

/// How many nodes a page holds, and the most a tree read whole holds.
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
    /// The classifications selected, by id.
    Classifications(Vec<Selected>),
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

/// A node's row (read from a JSON array in this field order).
#[derive(Debug, Deserialize)]
struct NodeRow {
    id: i64,
    parent_id: Option<i64>,
    position: i64,
    path: String,
    names: Vec<TreeName>,
    attributes: Vec<TreeAttribute>,
}

/// A selected classification with its names (read from a JSON array in this field order).
#[derive(Debug, Deserialize)]
pub(crate) struct Selected {
    /// Its id.
    pub(crate) id: i64,
    /// Its tid.
    pub(crate) tid: String,
    /// Its names, by locale.
    pub(crate) names: Vec<TreeName>,
}

/// A name of a node or of a classification.
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

/// What the statement of a page kind answers, echoing where the page stands.
#[derive(Debug, sqlx::FromRow)]
struct PageText {
    /// [`CLASSES`], [`TREE`] or [`NODES`].
    kind: i64,
    /// The place of the page's classification among those selected.
    at: i64,
    /// A page of nodes: the place of its first node in its tree's pre-order.
    start: i64,
    /// The classifications (the first page).
    classes: Option<String>,
    /// Nodes: a whole small tree, or a page.
    tree: Option<String>,
    /// A large tree's skeleton.
    bones: Option<String>,
}

/// The kinds of page, as their statements echo them.
const CLASSES: i64 = 0;
/// See [`CLASSES`].
const TREE: i64 = 1;
/// See [`CLASSES`].
const NODES: i64 = 2;

/// A page, read from its text as it is fetched, so that the read finds the next page from it.
#[derive(Debug)]
enum Page {
    /// The classifications selected, with the first one's tree when it is small and asked.
    Classes {
        selected: Vec<Selected>,
        first: Option<Vec<PageNode>>,
    },
    /// The tree of the classification at `at`.
    Tree { at: usize, tree: Tree },
    /// Nodes of the large tree at `at`, from `start` in its pre-order.
    Nodes {
        at: usize,
        start: usize,
        rows: Vec<NodeRow>,
    },
}

/// A tree as its page holds it.
#[derive(Debug)]
enum Tree {
    /// Every node, in pre-order.
    Small(Vec<PageNode>),
    /// Its pre-order alone: pages of nodes follow.
    Large(Arc<[Placed]>),
}

impl<'r> FromRow<'r, AnyRow> for Page {
    fn from_row(row: &'r AnyRow) -> Result<Page, sqlx::Error> {
        let text = PageText::from_row(row)?;
        let place = |value: i64| {
            usize::try_from(value).map_err(|_| sqlx::Error::Protocol("a negative page".into()))
        };
        let at = place(text.at)?;
        Ok(match text.kind {
            CLASSES => Page::Classes {
                // Ordered by id: a classification both lists name comes twice in a row.
                selected: {
                    let mut selected: Vec<Selected> = json_rows(text.classes)?;
                    selected.dedup_by_key(|class| class.id);
                    selected
                },
                first: text
                    .tree
                    .map(|tree| json_rows(Some(tree)).map(whole))
                    .transpose()?,
            },
            TREE => Page::Tree {
                at,
                tree: match text.bones {
                    Some(bones) => Tree::Large(pre_order(json_rows(Some(bones))?).into()),
                    None => Tree::Small(whole(json_rows(text.tree)?)),
                },
            },
            NODES => Page::Nodes {
                at,
                start: place(text.start)?,
                rows: json_rows(text.tree)?,
            },
            kind => return Err(sqlx::Error::Protocol(format!("a page of kind {kind}"))),
        })
    }
}

/// The classifications `selection` selects and, when asked, their trees: one snapshot, read
/// while the answer is written and bounded like every streamed read (`storage::stream`).
pub(crate) fn read(
    database: &Database,
    selection: Selection,
) -> BoxStream<'static, Result<Read, sqlx::Error>> {
    let statements = match database.backend() {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    let lists = if selection.ids.is_empty() && selection.tids.is_empty() {
        None
    } else {
        // Each value once: the statement joins each list as given.
        let ids: BTreeSet<&i64> = selection.ids.iter().collect();
        let tids: BTreeSet<&String> = selection.tids.iter().collect();
        match (json_text(&ids), json_text(&tids)) {
            (Ok(ids), Ok(tids)) => Some((ids, tids)),
            (Err(error), _) | (_, Err(error)) => {
                return futures_util::stream::once(async { Err(error) }).boxed();
            }
        }
    };
    let nodes = selection.nodes;
    let first = move || match &lists {
        None => sqlx::query_as(statements.every).bind(nodes),
        Some((ids, tids)) => sqlx::query_as(statements.listed)
            .bind(nodes)
            .bind(ids.clone())
            .bind(tids.clone()),
    };
    let mut after = After {
        statements,
        nodes,
        ids: Vec::new(),
        order: Arc::from([]),
    };
    let mut order: Arc<[Placed]> = Arc::from([]);
    stream::pages(database, first, move |page| after.next(page))
        .flat_map(move |page| futures_util::stream::iter(reads(page, &mut order)))
        .boxed()
}

/// What finds the page after a page: the statements, whether nodes are asked, the
/// classifications selected and the pre-order of the current large tree.
struct After {
    statements: &'static Statements,
    nodes: bool,
    ids: Vec<i64>,
    order: Arc<[Placed]>,
}

/// A page's statement.
type Query = QueryAs<'static, Any, Page, AnyArguments>;

impl After {
    /// The statement of the page after `page`; none after the last.
    fn next(&mut self, page: &Page) -> Option<Query> {
        match page {
            Page::Classes { selected, first } => {
                self.ids = selected.iter().map(|class| class.id).collect();
                if !self.nodes {
                    return None;
                }
                self.tree(usize::from(first.is_some()))
            }
            Page::Tree {
                at,
                tree: Tree::Small(_),
            } => self.tree(at + 1),
            Page::Tree {
                at,
                tree: Tree::Large(order),
            } => {
                self.order = Arc::clone(order);
                self.nodes(*at, 0)
            }
            Page::Nodes { at, start, .. } => self.nodes(*at, start + PAGE),
        }
    }

    /// The tree of the classification at `at`, if one is there.
    fn tree(&self, at: usize) -> Option<Query> {
        let id = *self.ids.get(at)?;
        Some(
            sqlx::query_as(self.statements.tree)
                .bind(id)
                .bind(i64::try_from(at).ok()?),
        )
    }

    /// The page of the large tree at `at` from `start`; past its end, the next tree.
    fn nodes(&self, at: usize, start: usize) -> Option<Query> {
        let Some(page) = self.order.get(start..).filter(|rest| !rest.is_empty()) else {
            return self.tree(at + 1);
        };
        let ids: Vec<i64> = page.iter().take(PAGE).map(|node| node.id).collect();
        Some(
            sqlx::query_as(self.statements.nodes)
                .bind(json_text(&ids).ok()?)
                .bind(i64::try_from(at).ok()?)
                .bind(i64::try_from(start).ok()?),
        )
    }
}

/// What a page hands over to the answer; `order` keeps the current large tree's pre-order.
fn reads(
    page: Result<Page, sqlx::Error>,
    order: &mut Arc<[Placed]>,
) -> Vec<Result<Read, sqlx::Error>> {
    let page = match page {
        Ok(page) => page,
        Err(error) => return vec![Err(error)],
    };
    match page {
        Page::Classes { selected, first } => {
            let mut reads = vec![Ok(Read::Classifications(selected))];
            if let Some(nodes) = first {
                reads.extend([Ok(Read::Tree(0)), Ok(Read::Nodes(nodes))]);
            }
            reads
        }
        Page::Tree {
            at,
            tree: Tree::Small(nodes),
        } => {
            vec![Ok(Read::Tree(at)), Ok(Read::Nodes(nodes))]
        }
        Page::Tree {
            at,
            tree: Tree::Large(large),
        } => {
            *order = large;
            vec![Ok(Read::Tree(at))]
        }
        Page::Nodes { start, rows, .. } => {
            let page = order.get(start..).unwrap_or_default();
            vec![Ok(Read::Nodes(in_order(
                &page[..page.len().min(PAGE)],
                rows,
            )))]
        }
    }
}

/// A small tree's nodes in pre-order, from their rows.
fn whole(rows: Vec<NodeRow>) -> Vec<PageNode> {
    let order = pre_order(
        rows.iter()
            .map(|row| Bone {
                id: row.id,
                parent_id: row.parent_id,
                position: row.position,
            })
            .collect(),
    );
    in_order(&order, rows)
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
fn in_order(page: &[Placed], rows: Vec<NodeRow>) -> Vec<PageNode> {
    let mut rows: HashMap<i64, NodeRow> = rows.into_iter().map(|row| (row.id, row)).collect();
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
                Read::Classifications(selected) => counted.0 += selected.len(),
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

    #[test]
    fn a_small_tree_is_at_most_a_page() {
        // The statements write PAGE as a number: they count a tree no further than a page.
        let (most, counted) = (format!(") <= {PAGE}"), format!("LIMIT {})", PAGE + 1));
        for statements in [&SQLITE, &POSTGRES] {
            for text in [statements.every, statements.listed, statements.tree] {
                assert!(text.contains(&most) && text.contains(&counted), "{text}");
            }
        }
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
