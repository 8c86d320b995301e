//! Channels read: channel query (a subtree's or the roots' tids, D-17) and channel retrieve
//! (the requested channels with their values, asset links and PEOs, D-18). Query reads a few
//! statements whatever the number of channels; retrieve one per page of [`PAGE`] channels,
//! written as they are read (D-59).

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use core_api::{
    tables,
    types::{
        ChannelQueryDto, ChannelRequest, ChannelRequestDto, Itm, Meta, Peo, Peos, Project,
        ProjectLinks,
    },
};

use core_api_support::Entry;
use futures_util::{StreamExt, stream::BoxStream};

use crate::{
    auth::Caller,
    error::ApiError,
    modules::{itm, peo::peos, vals, visible_assets},
    storage::{
        Database,
        channels::{self, Channel, Named, Node, Retrieved},
        peos::Stored,
        records::Identity,
    },
};

/// The order of siblings: by `orderSequence` (channels without one last), then tid.
fn sibling_order(a: &Node, b: &Node) -> std::cmp::Ordering {
    (a.order_sequence.is_none(), a.order_sequence, &a.tid).cmp(&(
        b.order_sequence.is_none(),
        b.order_sequence,
        &b.tid,
    ))
}

/// Channel query: the tids of the addressed channel and its descendants in depth-first
/// pre-order, or of the roots.
pub(crate) async fn query(
    database: &Database,
    request: &ChannelQueryDto,
) -> Result<ChannelRequest, ApiError> {
    if request.root {
        let mut roots = channels::roots(database).await?;
        roots.sort_by(sibling_order);
        return Ok(ChannelRequest {
            ids: Vec::new(),
            tids: roots.into_iter().map(|node| node.tid).collect(),
        });
    }
    let (identity, missing) = match (request.id, &request.tid) {
        (Some(id), _) => (Identity::Id(id), format!("project by id {id} not found")),
        (None, Some(tid)) => (
            Identity::Key(tid),
            format!("project by tid '{tid}' not found"),
        ),
        (None, None) => return Err(ApiError::broken_rule(&tables::CHANNEL_QUERY_DTO)),
    };
    let level = request.level.filter(|level| *level >= 0).map(i64::from);
    let nodes = channels::subtree(database, identity, level).await?;
    let root = nodes
        .iter()
        .find(|node| node.depth == 0)
        .map(|node| node.id)
        .ok_or(ApiError::NotFound(missing))?;
    Ok(ChannelRequest {
        ids: Vec::new(),
        tids: pre_order(root, nodes),
    })
}

/// The tids of a subtree in depth-first pre-order, each channel once.
fn pre_order(root: i64, nodes: Vec<Node>) -> Vec<String> {
    let mut children: HashMap<Option<i64>, Vec<Node>> = HashMap::new();
    let mut top = None;
    for node in nodes {
        if node.id == root && top.is_none() {
            top = Some(node);
        } else {
            children.entry(node.parent_id).or_default().push(node);
        }
    }
    for siblings in children.values_mut() {
        siblings.sort_by(sibling_order);
        siblings.reverse();
    }
    let mut seen = HashSet::new();
    let mut tids = Vec::new();
    let mut stack: Vec<Node> = top.into_iter().collect();
    while let Some(node) = stack.pop() {
        if !seen.insert(node.id) {
            continue;
        }
        if let Some(below) = children.remove(&Some(node.id)) {
            stack.extend(below);
        }
        tids.push(node.tid);
    }
    tids
}

/// How many channels a page of channel retrieve reads at once.
const PAGE: usize = 64;

/// Channel retrieve: the requested channels the store holds, in request order (`ids`, then
/// `tids`), each once; written as they are read (D-59), one statement a page of [`PAGE`] names
/// that reads everything the page answers, all one snapshot. The caller's rights are applied
/// to what is read: asset links and PEOs it may not see are left out.
pub(crate) fn retrieve(
    database: &Database,
    caller: Arc<Caller>,
    request: ChannelRequestDto,
) -> BoxStream<'static, Result<Entry<Project>, ApiError>> {
    let mut shown = HashSet::new();
    channels::retrieve(database, pages(&request))
        .flat_map(move |page| {
            let entries: Vec<Result<Entry<Project>, ApiError>> = match page {
                Ok(rows) => rows
                    .into_iter()
                    .filter(|row| shown.insert(row.channel.id))
                    .map(|row| Ok(Entry::top(project(&caller, row))))
                    .collect(),
                Err(error) => vec![Err(error.into())],
            };
            futures_util::stream::iter(entries)
        })
        .boxed()
}

/// The pages of a request: its ids, then its tids, each once, [`PAGE`] to a page. A channel
/// named by both lists is read twice and shown once, where its id names it.
fn pages(request: &ChannelRequestDto) -> Vec<Named> {
    let ids = first_each(&request.ids);
    let tids = first_each(&request.tids);
    let ids = ids.chunks(PAGE).map(|page| Named::Ids(page.to_vec()));
    ids.chain(tids.chunks(PAGE).map(|page| Named::Tids(page.to_vec())))
        .collect()
}

/// The values of `list` in its order, each where it first is.
fn first_each<T: Clone + Eq + std::hash::Hash>(list: &[T]) -> Vec<T> {
    let mut seen = HashSet::with_capacity(list.len());
    list.iter()
        .filter(|value| seen.insert(*value))
        .cloned()
        .collect()
}

/// The answer of a channel as the caller may see it.
fn project(caller: &Caller, row: Retrieved) -> Project {
    let Retrieved {
        channel,
        vals,
        links,
        peos,
    } = row;
    let mut vals = vals::by_owner(vals);
    let mut links = visible_links(caller, links);
    Project {
        meta: Some(meta(&channel)),
        vals: Some(vals.remove(&channel.id).unwrap_or_default()),
        links: Some(ProjectLinks {
            itm: links.remove(&channel.id).unwrap_or_default(),
        }),
        peos: Some(Peos {
            peo: visible_peos(caller, peos),
        }),
        id: Some(channel.id),
        tid: Some(channel.tid),
        parent_id: channel.parent_id,
        parent_tid: channel.parent_tid,
        type_: Some(channel.type_name),
        order_sequence: channel
            .order_sequence
            .and_then(|order| i32::try_from(order).ok()),
        name: channel.name,
    }
}

/// The PEOs linked to a channel that the caller may see, without `meta`, by tid: a PEO
/// restricted to roles it holds none of is left out, and so is the PEO of a product it may not
/// see (D-58).
fn visible_peos(caller: &Caller, linked: Vec<Stored>) -> Vec<Peo> {
    let mut shown: Vec<Peo> = linked
        .into_iter()
        .filter(|linked| peos::sees(caller, &linked.roles, &linked.product_roles))
        .map(|linked| {
            let id = linked.peo.id;
            let vals = vals::by_owner(linked.vals).remove(&id);
            peos::shown(linked.peo, linked.nodes, vals.unwrap_or_default(), false)
        })
        .collect();
    shown.sort_by(|a, b| a.tid.cmp(&b.tid));
    shown
}

/// `meta` of a channel; items without a value are left out.
fn meta(row: &Channel) -> Meta {
    let mut itm = vec![
        itm::meta("id", row.id.to_string()),
        itm::meta("creationDate", row.created_at.as_str()),
        itm::meta("modificationDate", row.modified_at.as_str()),
    ];
    for (key, value) in [
        ("icon", &row.icon),
        ("htmlIcon", &row.html_icon),
        ("allowedFunctions", &row.allowed_functions),
    ] {
        if let Some(value) = value {
            itm.push(itm::meta(key, value.as_str()));
        }
    }
    Meta { itm }
}

/// The asset links of each channel that the caller may see: key = asset tid, text = its path.
fn visible_links(caller: &Caller, rows: Vec<channels::AssetLink>) -> HashMap<i64, Vec<Itm>> {
    let rows = rows.into_iter().map(|row| {
        let path = row.path.unwrap_or_default();
        (row.channel_id, row.tid, path, row.role)
    });
    visible_assets(caller, rows)
        .into_iter()
        .map(|(channel, assets)| {
            let links = assets
                .into_iter()
                .map(|(tid, path)| itm::keyed(&tid, path))
                .collect();
            (channel, links)
        })
        .collect()
}
