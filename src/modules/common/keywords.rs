//! Keywords: `keywords/retrieve` and `keywords/persist` (D-15, D-16).
//!
//! A keyword's path segment is its default name: `/Season/Summer` is the keyword named `Summer`
//! under `/Season`. Paths are stored whole, so a subtree is the keyword's path and every path
//! below it; a rename rewrites the paths of the keyword and its descendants in its transaction.

use std::collections::HashMap;

use core_api::types::{
    Itm, Itms, KeywordRequest, Kwd, Links, Meta, Name, ResponseType, ResponseTypeStatus,
};
use sqlx::Row;

use super::super::{
    batch::{self, ItemError, Tx},
    envelope::meta_item,
};
use crate::{auth::Caller, error::ApiError, storage::Database};

/// The `dataType` of keyword records.
const DATA_TYPE: &str = "keyword";

/// A stored keyword, as retrieval reads it.
struct Stored {
    id: i64,
    parent_id: Option<i64>,
    name: String,
    path: String,
    order_number: i64,
    created_at: String,
}

/// The keywords below `request.path`, `request.level` generations deep, as a flat list in
/// depth-first pre-order (siblings by `orderNumber`, then name).
pub(crate) async fn retrieve(
    database: &Database,
    caller: &Caller,
    request: &KeywordRequest,
) -> Result<Vec<Kwd>, ApiError> {
    if request.level == 0 || request.level < -1 {
        return Err(ApiError::Rule(format!(
            "level: {} is invalid; give 1 or more generations, or -1 for all levels",
            request.level
        )));
    }
    let pool = database.pool();
    let base = request.path.as_str();
    let (base_id, prefix) = if base == "/" {
        (None, "/".to_string())
    } else {
        let row = sqlx::query("SELECT id FROM keywords WHERE path = $1")
            .bind(base)
            .fetch_optional(pool)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("Keyword with path '{base}' not found")))?;
        (Some(row.try_get::<i64, _>("id")?), format!("{base}/"))
    };
    let rows = sqlx::query(
        "SELECT id, parent_id, name, path, order_number, created_at FROM keywords \
         WHERE substr(path, 1, $1) = $2",
    )
    .bind(length(&prefix))
    .bind(&prefix)
    .fetch_all(pool)
    .await?;
    // Every keyword's path and default name, for its children's `parentPath` and `parent`.
    let mut info: HashMap<i64, (String, String)> = HashMap::new();
    if let Some(id) = base_id {
        let name = base.rsplit('/').next().unwrap_or_default().to_string();
        info.insert(id, (base.to_string(), name));
    }
    let mut children: HashMap<Option<i64>, Vec<Stored>> = HashMap::new();
    for row in rows {
        let keyword = Stored {
            id: row.try_get("id")?,
            parent_id: row.try_get("parent_id")?,
            name: row.try_get("name")?,
            path: row.try_get("path")?,
            order_number: row.try_get("order_number")?,
            created_at: row.try_get("created_at")?,
        };
        info.insert(keyword.id, (keyword.path.clone(), keyword.name.clone()));
        children.entry(keyword.parent_id).or_default().push(keyword);
    }
    // Siblings by `orderNumber`, then name, reversed so that popping takes the first.
    for siblings in children.values_mut() {
        siblings
            .sort_by(|a, b| (b.order_number, &b.name, b.id).cmp(&(a.order_number, &a.name, a.id)));
    }
    // Depth-first pre-order from the addressed keyword, at most `level` generations below it.
    let limit = usize::try_from(request.level).unwrap_or(usize::MAX);
    let mut ordered: Vec<Stored> = Vec::new();
    let mut stack: Vec<(Option<i64>, usize)> = vec![(base_id, 0)];
    while let Some(&(parent, depth)) = stack.last() {
        let next = if depth < limit {
            children.get_mut(&parent).and_then(Vec::pop)
        } else {
            None
        };
        match next {
            Some(keyword) => {
                stack.push((Some(keyword.id), depth + 1));
                ordered.push(keyword);
            }
            None => {
                stack.pop();
            }
        }
    }
    let mut names = localized_names(database, &prefix).await?;
    let mut links = if request.retrieve_links {
        Some(asset_links(database, caller, &prefix).await?)
    } else {
        None
    };
    let mut kwds = Vec::with_capacity(ordered.len());
    for keyword in ordered {
        let parent = keyword.parent_id.and_then(|id| {
            info.get(&id)
                .map(|(path, name)| (id, path.clone(), name.clone()))
        });
        let mut name = vec![Itm {
            key: None,
            loc: None,
            pos: None,
            value: keyword.name.clone(),
        }];
        name.extend(names.remove(&keyword.id).unwrap_or_default());
        let mut meta = vec![
            meta_item("creationDate", &keyword.created_at),
            meta_item("orderNumber", &keyword.order_number.to_string()),
        ];
        if let Some((_, _, parent_name)) = &parent {
            meta.push(meta_item("parent", parent_name));
        }
        kwds.push(Kwd {
            id: Some(keyword.id),
            path: Some(keyword.path),
            parent_id: parent.as_ref().map(|(id, _, _)| *id),
            parent_path: parent.map(|(_, path, _)| path),
            name: Some(Name { itm: name }),
            meta: Some(Meta { itm: meta }),
            links: links.as_mut().map(|links| {
                let assets = links.remove(&keyword.id).unwrap_or_default();
                Links {
                    itms: if assets.is_empty() {
                        Vec::new()
                    } else {
                        vec![Itms {
                            type_: Some("asset".to_string()),
                            itm: assets
                                .into_iter()
                                .map(|tid| Itm {
                                    key: None,
                                    loc: None,
                                    pos: None,
                                    value: tid,
                                })
                                .collect(),
                            ..Itms::default()
                        }]
                    },
                }
            }),
        });
    }
    Ok(kwds)
}

/// The localized names of the keywords whose paths start with `prefix`, by keyword, ordered by
/// locale.
async fn localized_names(
    database: &Database,
    prefix: &str,
) -> Result<HashMap<i64, Vec<Itm>>, ApiError> {
    let rows = sqlx::query(
        "SELECT n.keyword_id, n.loc, n.name FROM keyword_names n \
         JOIN keywords k ON k.id = n.keyword_id WHERE substr(k.path, 1, $1) = $2 \
         ORDER BY n.keyword_id, n.loc",
    )
    .bind(length(prefix))
    .bind(prefix)
    .fetch_all(database.pool())
    .await?;
    let mut names: HashMap<i64, Vec<Itm>> = HashMap::new();
    for row in rows {
        names
            .entry(row.try_get("keyword_id")?)
            .or_default()
            .push(Itm {
                key: None,
                loc: Some(row.try_get("loc")?),
                pos: None,
                value: row.try_get("name")?,
            });
    }
    Ok(names)
}

/// The tids of the assets linked to the keywords whose paths start with `prefix`, by keyword,
/// ordered by tid; assets restricted to roles the caller does not hold are left out.
async fn asset_links(
    database: &Database,
    caller: &Caller,
    prefix: &str,
) -> Result<HashMap<i64, Vec<String>>, ApiError> {
    let rows = sqlx::query(
        "SELECT l.keyword_id, a.tid, r.name AS role FROM keyword_assets l \
         JOIN keywords k ON k.id = l.keyword_id JOIN assets a ON a.id = l.asset_id \
         LEFT JOIN access_restrictions ar ON ar.kind = 'asset' AND ar.record_id = a.id \
         LEFT JOIN roles r ON r.id = ar.role_id \
         WHERE substr(k.path, 1, $1) = $2 ORDER BY l.keyword_id, a.tid",
    )
    .bind(length(prefix))
    .bind(prefix)
    .fetch_all(database.pool())
    .await?;
    // (keyword, asset) → roles the asset is restricted to.
    let mut restricted: Vec<((i64, String), Vec<String>)> = Vec::new();
    for row in rows {
        let key: (i64, String) = (row.try_get("keyword_id")?, row.try_get("tid")?);
        let role: Option<String> = row.try_get("role")?;
        match restricted.last_mut() {
            Some((last, roles)) if *last == key => roles.extend(role),
            _ => restricted.push((key, role.into_iter().collect())),
        }
    }
    let mut links: HashMap<i64, Vec<String>> = HashMap::new();
    for ((keyword, asset), roles) in restricted {
        if caller.sees(&roles) {
            links.entry(keyword).or_default().push(asset);
        }
    }
    Ok(links)
}

/// The record that echoes a keyword item: what identifies it, before it is applied.
pub(crate) fn echo(kwd: &Kwd) -> ResponseType {
    let updating = kwd.id.is_some() || kwd.path.is_some();
    let mut record = batch::record(
        DATA_TYPE,
        if updating { "update" } else { "create" },
        ResponseTypeStatus::Error,
        "",
    );
    record.id = kwd.id;
    record.path = kwd.path.clone();
    record
}

/// Creates or updates one keyword in its transaction: with `id` or `path` an update, otherwise a
/// create under `parentId`, `parentPath` or the root.
pub(crate) async fn persist(
    transaction: &mut Tx,
    kwd: &Kwd,
    now: &str,
) -> Result<ResponseType, ItemError> {
    let echo = echo(kwd);
    let names = Names::of(kwd, &echo)?;
    let key = match (kwd.id, kwd.path.as_deref()) {
        (Some(id), _) => Some(Key::Id(id)),
        (None, Some(path)) => Some(Key::Path(path)),
        (None, None) => None,
    };
    match key {
        Some(key) => update(transaction, kwd, key, names, echo).await,
        None => create(transaction, kwd, names, echo, now).await,
    }
}

/// The names of a persisted keyword: its default name and its localized ones.
struct Names<'a> {
    default: Option<&'a str>,
    localized: Vec<(&'a str, &'a str)>,
}

impl<'a> Names<'a> {
    /// Reads and checks the `name` entries: at most one per locale (and one default), a default
    /// name not empty and without `/`.
    fn of(kwd: &'a Kwd, echo: &ResponseType) -> Result<Names<'a>, ItemError> {
        let mut names = Names {
            default: None,
            localized: Vec::new(),
        };
        for itm in kwd.name.iter().flat_map(|name| &name.itm) {
            match itm.loc.as_deref() {
                None if names.default.is_some() => {
                    return Err(batch::refuse(
                        echo,
                        "The default name is given more than once",
                    ));
                }
                None => names.default = Some(itm.value.as_str()),
                Some(loc) if names.localized.iter().any(|(given, _)| *given == loc) => {
                    return Err(batch::refuse(
                        echo,
                        format!("The name for locale '{loc}' is given more than once"),
                    ));
                }
                Some(loc) => names.localized.push((loc, itm.value.as_str())),
            }
        }
        match names.default {
            Some("") => Err(batch::refuse(echo, "Missing required value 'name'")),
            Some(name) if name.contains('/') => Err(batch::refuse(
                echo,
                format!("Invalid keyword name '{name}': a name must not contain '/'"),
            )),
            _ => Ok(names),
        }
    }
}

async fn create(
    transaction: &mut Tx,
    kwd: &Kwd,
    names: Names<'_>,
    echo: ResponseType,
    now: &str,
) -> Result<ResponseType, ItemError> {
    let Some(name) = names.default else {
        return Err(batch::refuse(&echo, "Missing required value 'name'"));
    };
    let parent: Option<(i64, String)> = match (kwd.parent_id, kwd.parent_path.as_deref()) {
        (Some(id), _) => Some(find(transaction, Key::Id(id)).await?.ok_or_else(|| {
            batch::refuse(
                &echo,
                format!("Parent keyword with identity '{id}' not found"),
            )
        })?),
        (None, None | Some("/")) => None,
        (None, Some(path)) => Some(find(transaction, Key::Path(path)).await?.ok_or_else(|| {
            batch::refuse(
                &echo,
                format!("Parent keyword with path '{path}' not found"),
            )
        })?),
    };
    let path = match &parent {
        Some((_, parent_path)) => format!("{parent_path}/{name}"),
        None => format!("/{name}"),
    };
    // The unique path decides, also between racing requests.
    let exists = || batch::refuse(&echo, format!("Keyword '{path}' already exists"));
    let parent_id = parent.as_ref().map(|(id, _)| *id);
    let inserted = sqlx::query(
        "INSERT INTO keywords (parent_id, name, path, order_number, created_at) \
         SELECT $1, $2, $3, COALESCE(MAX(order_number), 0) + 1, $4 FROM keywords \
         WHERE parent_id IS NOT DISTINCT FROM $1 RETURNING id",
    )
    .bind(parent_id)
    .bind(name)
    .bind(&path)
    .bind(now)
    .fetch_one(&mut **transaction)
    .await;
    let id: i64 = batch::unless_taken(inserted, exists)?.try_get("id")?;
    set_localized(transaction, id, &names.localized).await?;
    let mut record = batch::record(
        DATA_TYPE,
        "create",
        ResponseTypeStatus::Success,
        "The keyword has been created successfully",
    );
    record.id = Some(id);
    record.path = Some(path);
    Ok(record)
}

async fn update(
    transaction: &mut Tx,
    kwd: &Kwd,
    key: Key<'_>,
    names: Names<'_>,
    echo: ResponseType,
) -> Result<ResponseType, ItemError> {
    let (id, path) = find(transaction, key).await?.ok_or_else(|| {
        batch::refuse(
            &echo,
            match key {
                Key::Id(id) => format!("Keyword with identity '{id}' not found"),
                Key::Path(path) => format!("Keyword with path '{path}' not found"),
            },
        )
    })?;
    let (parent_path, current_name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
    let parent_path = if parent_path.is_empty() {
        "/"
    } else {
        parent_path
    };
    let moved = match (kwd.parent_id, kwd.parent_path.as_deref()) {
        (Some(parent_id), _) => {
            let current: Option<i64> = sqlx::query("SELECT parent_id FROM keywords WHERE id = $1")
                .bind(id)
                .fetch_one(&mut **transaction)
                .await?
                .try_get("parent_id")?;
            current != Some(parent_id)
        }
        (None, Some(given)) => given != parent_path,
        (None, None) => false,
    };
    if moved {
        return Err(batch::refuse(
            &echo,
            format!("Keyword '{path}' cannot be moved to another parent"),
        ));
    }
    let mut new_path = path.clone();
    if let Some(name) = names.default
        && name != current_name
    {
        new_path = if parent_path == "/" {
            format!("/{name}")
        } else {
            format!("{parent_path}/{name}")
        };
        // The unique paths decide: a sibling of that name, or its descendants, exist already.
        let exists = || batch::refuse(&echo, format!("Keyword '{new_path}' already exists"));
        // The keyword and every descendant: their paths start with the old path and '/'.
        let renamed = sqlx::query(
            "UPDATE keywords SET path = $1 || substr(path, $2), \
             name = CASE WHEN id = $3 THEN $4 ELSE name END \
             WHERE id = $3 OR substr(path, 1, $5) = $6",
        )
        .bind(&new_path)
        .bind(length(&path) + 1)
        .bind(id)
        .bind(name)
        .bind(length(&path) + 1)
        .bind(format!("{path}/"))
        .execute(&mut **transaction)
        .await;
        batch::unless_taken(renamed, exists)?;
    }
    set_localized(transaction, id, &names.localized).await?;
    let mut record = batch::record(
        DATA_TYPE,
        "update",
        ResponseTypeStatus::Success,
        "The keyword has been updated successfully",
    );
    record.id = Some(id);
    record.path = Some(new_path);
    Ok(record)
}

/// How a persist item addresses a stored keyword.
#[derive(Clone, Copy)]
enum Key<'a> {
    Id(i64),
    Path(&'a str),
}

/// The id and path of a stored keyword.
async fn find(transaction: &mut Tx, key: Key<'_>) -> Result<Option<(i64, String)>, sqlx::Error> {
    let query = match key {
        Key::Id(id) => sqlx::query("SELECT id, path FROM keywords WHERE id = $1").bind(id),
        Key::Path(path) => sqlx::query("SELECT id, path FROM keywords WHERE path = $1").bind(path),
    };
    match query.fetch_optional(&mut **transaction).await? {
        Some(row) => Ok(Some((row.try_get("id")?, row.try_get("path")?))),
        None => Ok(None),
    }
}

/// Replaces the names of the given locales; the others stay.
async fn set_localized(
    transaction: &mut Tx,
    id: i64,
    names: &[(&str, &str)],
) -> Result<(), sqlx::Error> {
    for (loc, name) in names {
        sqlx::query("DELETE FROM keyword_names WHERE keyword_id = $1 AND loc = $2")
            .bind(id)
            .bind(loc)
            .execute(&mut **transaction)
            .await?;
        sqlx::query("INSERT INTO keyword_names (keyword_id, loc, name) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(loc)
            .bind(name)
            .execute(&mut **transaction)
            .await?;
    }
    Ok(())
}

/// The length of a text in characters, as SQL's `substr` counts (bound as a 32-bit integer, the
/// type PostgreSQL's `substr` takes).
fn length(text: &str) -> i32 {
    i32::try_from(text.chars().count()).unwrap_or(i32::MAX - 1)
}
