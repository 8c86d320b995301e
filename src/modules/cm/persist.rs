//! Channels persist (D-19, D-42): each `project` created or updated in its transaction, with its
//! values replaced attribute by attribute.

use core_api::messages;
use core_api::types::{Project, ResponseType, ResponseTypeStatus, Val, ValType};
use core_api_support::fill;

use crate::{
    modules::{
        Locales,
        batch::{self, Apply, ItemError, Scope, Tx},
    },
    storage::{
        channels::{self, Change, New},
        records::{self, CHANNELS, Identity},
        values::{self, NewItem},
    },
};

/// The `dataType` of channel records.
const DATA_TYPE: &str = "project";

/// `cm/channels/persist`.
pub(super) struct Persist;

impl Apply for Persist {
    type Item = Project;

    /// The record of a channel: `id` and `tid` as given; `update` when an `id` is given.
    fn echo(project: &Project) -> ResponseType {
        let action = if project.id.is_some() {
            "update"
        } else {
            "create"
        };
        let mut record = batch::record(DATA_TYPE, action, ResponseTypeStatus::Error, "");
        record.id = project.id;
        record.tid = project.tid.clone();
        record
    }

    async fn apply<'a>(
        transaction: &'a mut Tx,
        project: &'a Project,
        scope: &'a Scope<'a>,
    ) -> Result<ResponseType, ItemError> {
        let mut echo = Persist::echo(project);
        let mut warnings = Vec::new();
        let existing = existing(transaction, project, &echo).await?;
        let type_id = match &project.type_ {
            Some(name) => Some(channels::type_id(transaction, name).await?.ok_or_else(|| {
                batch::refuse(&echo, fill(messages::PROJECT_TYPE_TYPE_NOT_FOUND, &[&name]))
            })?),
            None => None,
        };
        let (stored, text) = match existing {
            Some(stored) => {
                echo.action = Some("update".to_string());
                let change = Change {
                    name: project.name.as_deref(),
                    type_id,
                    order_sequence: project.order_sequence,
                };
                update(
                    transaction,
                    project,
                    stored.id,
                    &change,
                    &mut warnings,
                    scope,
                )
                .await?;
                (stored, messages::THE_PROJECT_HAS_BEEN_SAVED_SUCCESSFULLY)
            }
            None => {
                let created = create(transaction, project, type_id, &echo, scope).await?;
                (created, messages::THE_PROJECT_HAS_BEEN_CREATED_SUCCESSFULLY)
            }
        };
        echo.id = Some(stored.id);
        echo.tid = Some(stored.tid);
        let mut locales = Locales::default();
        for val in project.vals.iter().flat_map(|vals| &vals.val) {
            save(
                transaction,
                stored.id,
                val,
                &mut locales,
                &mut warnings,
                &echo,
            )
            .await?;
        }
        Ok(batch::saved(echo, text, warnings))
    }
}

/// A stored channel an item names.
struct Stored {
    id: i64,
    tid: String,
}

/// The stored channel an item names by `id` (whose `tid` it may not change) or `tid`; none for
/// a new one.
async fn existing(
    transaction: &mut Tx,
    project: &Project,
    echo: &ResponseType,
) -> Result<Option<Stored>, ItemError> {
    match (project.id, &project.tid) {
        (Some(id), tid) => {
            let found = records::find(&mut **transaction, &CHANNELS, Identity::Id(id))
                .await?
                .ok_or_else(|| {
                    batch::refuse(echo, fill(messages::PROJECT_WITH_ID_ID_NOT_FOUND, &[&id]))
                })?;
            let stored = found.key.unwrap_or_default();
            if let Some(tid) = tid
                && *tid != stored
            {
                return Err(batch::refuse(
                    echo,
                    fill(messages::THE_TID_OF_PROJECT_ID_IS_TID, &[&id, &stored]),
                ));
            }
            Ok(Some(Stored {
                id: found.id,
                tid: stored,
            }))
        }
        (None, Some(tid)) => Ok(
            records::find(&mut **transaction, &CHANNELS, Identity::Key(tid))
                .await?
                .map(|found| Stored {
                    id: found.id,
                    tid: tid.clone(),
                }),
        ),
        (None, None) => Ok(None),
    }
}

/// Updates a stored channel; a different parent is a warning (a channel does not move).
async fn update(
    transaction: &mut Tx,
    project: &Project,
    id: i64,
    change: &Change<'_>,
    warnings: &mut Vec<String>,
    scope: &Scope<'_>,
) -> Result<(), ItemError> {
    let stored_parent = channels::parent_of(transaction, id).await?;
    if let Some(parent) = parent(transaction, project).await?
        && parent != stored_parent
    {
        warnings.push(messages::CHANGING_THE_PARENT_IS_NOT_SUPPORTED.to_string());
    }
    channels::update(transaction, id, change, scope.now).await?;
    Ok(())
}

/// Creates a channel: `tid`, a type, a parent and `name` are required.
async fn create(
    transaction: &mut Tx,
    project: &Project,
    type_id: Option<i64>,
    echo: &ResponseType,
    scope: &Scope<'_>,
) -> Result<Stored, ItemError> {
    let tid = project
        .tid
        .as_deref()
        .ok_or_else(|| batch::refuse(echo, messages::MISSING_REQUIRED_VALUE_TID))?;
    // Without a type there is no valid type: the specification's item table answers
    // "project type not found" (D-42).
    let type_id = type_id.ok_or_else(|| batch::refuse(echo, messages::PROJECT_TYPE_NOT_FOUND))?;
    let parent_id = match parent(transaction, project).await? {
        Some(Some(parent)) => parent,
        Some(None) => {
            return Err(batch::refuse(echo, messages::PARENT_PROJECT_NOT_FOUND));
        }
        None => {
            return Err(batch::refuse(
                echo,
                messages::MISSING_REQUIRED_VALUE_PARENTTID_OR_PARENTID,
            ));
        }
    };
    let name = project
        .name
        .as_deref()
        .ok_or_else(|| batch::refuse(echo, messages::MISSING_REQUIRED_VALUE_NAME))?;
    let new = New {
        tid,
        parent_id,
        type_id,
        order_sequence: project.order_sequence,
        name,
    };
    let id = batch::unless_taken(channels::insert(transaction, &new, scope.now).await, || {
        batch::refuse(echo, format!("Project '{tid}' already exists"))
    })?;
    Ok(Stored {
        id,
        tid: tid.to_string(),
    })
}

/// The parent an item names, `parentId` first: `None` when it names none, `Some(None)` when the
/// one it names does not exist.
async fn parent(
    transaction: &mut Tx,
    project: &Project,
) -> Result<Option<Option<i64>>, sqlx::Error> {
    let identity = match (project.parent_id, &project.parent_tid) {
        (Some(id), _) => Identity::Id(id),
        (None, Some(tid)) => Identity::Key(tid),
        (None, None) => return Ok(None),
    };
    let found = records::find(&mut **transaction, &CHANNELS, identity).await?;
    Ok(Some(found.map(|found| found.id)))
}

/// Replaces the value of one attribute of a channel: all of it, or for `localized` the
/// supplied locales. An unregistered attribute or an unknown locale is a warning; a `val` that
/// breaks the shape of its type refuses the item.
async fn save<'a>(
    transaction: &mut Tx,
    channel: i64,
    val: &'a Val,
    locales: &mut Locales,
    warnings: &mut Vec<String>,
    echo: &ResponseType,
) -> Result<(), ItemError> {
    let attr = &val.attr;
    let refuse = |template: &str, values: &[&dyn std::fmt::Display]| {
        batch::refuse(echo, fill(template, values))
    };
    let Some(definition) = values::registered(transaction, attr).await? else {
        warnings.push(fill(messages::ATTRIBUTE_ATTR_IS_NOT_REGISTERED, &[&attr]));
        return Ok(());
    };
    let kind = val.type_.map(|kind| kind.to_string());
    let item = |pos: Option<i64>, loc: Option<&'a str>, value: &'a str| NewItem {
        definition,
        kind: kind.as_deref(),
        origin: val.origin.as_deref(),
        node: val.node.as_deref(),
        data_type: val.data_type.as_deref(),
        pos,
        loc,
        value,
    };
    let mut rows: Vec<NewItem<'_>> = Vec::with_capacity(val.itm.len());
    let mut supplied: Vec<String> = Vec::new();
    match val.type_ {
        None => {
            if val.itm.len() > 1 {
                let count = val.itm.len();
                return Err(refuse(
                    messages::ATTRIBUTE_ATTR_HOLDS_ONE_VALUE_NOT_N,
                    &[&attr, &count],
                ));
            }
            rows.extend(val.itm.iter().map(|itm| item(None, None, &itm.value)));
        }
        Some(ValType::Multiple) => {
            let mut positions = std::collections::HashSet::new();
            for (index, itm) in val.itm.iter().enumerate() {
                let pos = itm.pos.map_or(index as i64, i64::from);
                if !positions.insert(pos) {
                    let twice = messages::POSITION_POS_OF_ATTRIBUTE_ATTR_IS_GIVEN_TWICE;
                    return Err(refuse(twice, &[&pos, &attr]));
                }
                rows.push(item(Some(pos), None, &itm.value));
            }
        }
        Some(ValType::Localized) => {
            for itm in &val.itm {
                let needs_loc = messages::LOCALIZED_VALUE_OF_ATTRIBUTE_ATTR_NEEDS_LOC;
                let loc = itm
                    .loc
                    .as_deref()
                    .ok_or_else(|| refuse(needs_loc, &[&attr]))?;
                if !locales.known(transaction, loc).await? {
                    warnings.push(fill(
                        messages::CANNOT_FIND_LANGUAGE_ID_WITH_CODE_CODE,
                        &[&loc],
                    ));
                    continue;
                }
                supplied.push(loc.to_string());
                rows.push(item(None, Some(loc), &itm.value));
            }
        }
    }
    let only = matches!(val.type_, Some(ValType::Localized)).then_some(supplied.as_slice());
    values::clear(transaction, channel, definition, only).await?;
    for row in &rows {
        values::insert(transaction, channel, row).await?;
    }
    Ok(())
}
