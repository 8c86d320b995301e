//! Channels read: channel query (a subtree's or the roots' tids, D-17) and channel retrieve
//! (the requested channels with their values, asset links and PEOs, D-18). Query reads a few
//! statements whatever the number of channels; retrieve a few per page of [`PAGE`] channels,
//! written as they are read (D-59).

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use core_api::{
    tables,
    types::{
        ChannelQueryDto, ChannelRequest, ChannelRequestDto, Itm, Meta, Peos, Project, ProjectLinks,
    },
};

use core_api_support::Entry;
use futures_util::{StreamExt, stream::BoxStream};
use sqlx::{AnyConnection, Connection};

use crate::{
    auth::Caller,
    error::ApiError,
    modules::{itm, peo::peos, vals, visible_assets},
    storage::{
        Database,
        channels::{self, Channel, Node},
        records::{self, CHANNELS, Identity},
        stream, values,
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
    let pool = database.reads();
    if request.root {
        let mut roots = channels::roots(pool).await?;
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
    let root = records::find(pool, &CHANNELS, identity)
        .await?
        .ok_or(ApiError::NotFound(missing))?;
    let level = request.level.filter(|level| *level >= 0).map(i64::from);
    let nodes = channels::subtree(pool, root.id, level).await?;
    Ok(ChannelRequest {
        ids: Vec::new(),
        tids: pre_order(root.id, nodes),
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
/// `tids`), each once; written as they are read (D-59): the channels' rows first, then their
/// values, links and PEOs a page of [`PAGE`] channels at a time, all in one read transaction.
pub(crate) fn retrieve(
    database: &Database,
    caller: Arc<Caller>,
    request: ChannelRequestDto,
) -> BoxStream<'static, Result<Entry<Project>, ApiError>> {
    let backend = database.backend();
    let pages = stream::read(database, move |mut connection, sender| async move {
        let mut transaction = connection.begin_with(stream::snapshot(backend)).await?;
        let mut rows = requested(&mut transaction, &request).await?;
        while !rows.is_empty() {
            let page: Vec<Channel> = rows.drain(..rows.len().min(PAGE)).collect();
            let projects = projects(&mut transaction, &caller, page).await?;
            if sender.send(Ok(projects)).await.is_err() {
                break;
            }
        }
        transaction.rollback().await
    });
    pages
        .flat_map(|page| {
            let entries: Vec<Result<Entry<Project>, ApiError>> = match page {
                Ok(projects) => projects.into_iter().map(|p| Ok(Entry::top(p))).collect(),
                Err(error) => vec![Err(error.into())],
            };
            futures_util::stream::iter(entries)
        })
        .boxed()
}

/// The rows of the requested channels, in request order, each once.
async fn requested(
    connection: &mut AnyConnection,
    request: &ChannelRequestDto,
) -> Result<Vec<Channel>, sqlx::Error> {
    let mut rows = channels::by_ids(connection, &request.ids).await?;
    rows.extend(channels::by_tids(connection, &request.tids).await?);
    let mut by_id: HashMap<i64, Channel> = HashMap::with_capacity(rows.len());
    let mut by_tid: HashMap<String, i64> = HashMap::with_capacity(rows.len());
    for row in rows {
        by_tid.insert(row.tid.clone(), row.id);
        by_id.insert(row.id, row);
    }
    let named = request.ids.iter().copied().chain(
        request
            .tids
            .iter()
            .filter_map(|tid| by_tid.get(tid).copied()),
    );
    Ok(named.filter_map(|id| by_id.remove(&id)).collect())
}

/// The answers of a page of channels, with their values, the asset links and the PEOs the
/// caller may see.
async fn projects(
    connection: &mut AnyConnection,
    caller: &Caller,
    rows: Vec<Channel>,
) -> Result<Vec<Project>, sqlx::Error> {
    let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
    let mut vals = vals::by_owner(values::of_channels(connection, &ids).await?);
    let mut links = visible_links(caller, channels::asset_links(connection, &ids).await?);
    let peo_links = channels::peo_links(connection, &ids).await?;
    let mut peos = peos::of_channels(connection, caller, &peo_links).await?;
    Ok(rows
        .into_iter()
        .map(|row| Project {
            meta: Some(meta(&row)),
            vals: Some(vals.remove(&row.id).unwrap_or_default()),
            links: Some(ProjectLinks {
                itm: links.remove(&row.id).unwrap_or_default(),
            }),
            peos: Some(Peos {
                peo: peos.remove(&row.id).unwrap_or_default(),
            }),
            id: Some(row.id),
            tid: Some(row.tid),
            parent_id: row.parent_id,
            parent_tid: row.parent_tid,
            type_: Some(row.type_name),
            order_sequence: row
                .order_sequence
                .and_then(|order| i32::try_from(order).ok()),
            name: row.name,
        })
        .collect())
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
