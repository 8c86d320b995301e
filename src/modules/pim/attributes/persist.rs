//! `attributes/persist` (D-26, D-52): each `attr` created or updated, and [`save`], which the
//! `attr` entries of classes persist share.

use std::collections::HashSet;

use core_api::messages;
use core_api::types::{Attr, DomainVals, ResponseType, ResponseTypeStatus};
use core_api_support::fill;
use sqlx::AnyConnection;

use super::{ALLOWED, DATA_TYPE, Fault, find_node, identified, invalid, refused};
use crate::{
    modules::{
        Locales,
        batch::{self, Apply, ItemError, Scope, Tx},
    },
    storage::{
        attributes::{self as stored, Attribute, DomainText, NewDomainValue},
        definitions,
        flag::Flag,
        nodes::{self, Node},
    },
};

/// Refuses a new attribute on a node that holds as many as an answer's node may list (the
/// document's `maxItems` of `attr`).
async fn check_room(connection: &mut AnyConnection, node: &Node) -> Result<(), Fault> {
    let most = core_api::tables::NODE
        .field("attr")
        .and_then(|field| field.max_items)
        .map_or(i64::MAX, i64::from);
    if stored::count_on_node(connection, node.id).await? >= most {
        return refused(format!(
            "Node {} has {most} attributes, the most a node holds",
            node.path
        ));
    }
    Ok(())
}

/// An attribute saved: as stored now, and whether it was created.
pub(crate) struct Saved {
    /// The attribute.
    pub(crate) attribute: Attribute,
    /// Whether it is new.
    pub(crate) created: bool,
}

impl Saved {
    /// Its SUCCESS record.
    fn record(&self) -> ResponseType {
        let (action, text) = if self.created {
            (
                "create",
                messages::THE_ATTRIBUTE_HAS_BEEN_CREATED_SUCCESSFULLY,
            )
        } else {
            (
                "update",
                messages::THE_ATTRIBUTE_HAS_BEEN_SAVED_SUCCESSFULLY,
            )
        };
        identified(
            batch::record(DATA_TYPE, action, ResponseTypeStatus::Success, text),
            &self.attribute,
        )
    }
}

/// Saves one `attr` (D-26): on `node` when given (an `attr` of classes persist, found by its
/// `key` there), else found by `id`, or by `nodeId`/`nodePath` with `key` (created when that
/// node has no attribute of that definition). Everything is checked before anything is written.
pub(crate) async fn save(
    connection: &mut AnyConnection,
    attr: &Attr,
    node: Option<&Node>,
) -> Result<Saved, Fault> {
    check_enumerated(attr)?;
    let (existing, target) = locate(connection, attr, node).await?;
    let created = existing.is_none();
    let mut attribute = match existing {
        Some(existing) => existing,
        None => new_attribute(attr, target)?,
    };
    supply(&mut attribute, attr);
    let domain = match &attr.domain_vals {
        Some(domain) => Some(domain_values(connection, domain).await?),
        None => None,
    };
    settle_default(connection, &mut attribute, attr, domain.as_deref(), created).await?;
    attribute.id = stored::save(connection, &attribute).await?;
    if let Some(values) = &domain {
        stored::replace_domain_values(connection, attribute.id, values).await?;
    }
    Ok(Saved { attribute, created })
}

/// Where a new attribute goes: its node and its definition.
struct Target {
    node_id: i64,
    node_path: String,
    definition_id: i64,
}

/// Refuses an enumerated property outside the values it accepts (D-52).
fn check_enumerated(attr: &Attr) -> Result<(), Fault> {
    let domain = attr.domain_vals.as_ref();
    let supplied = [
        ("level", attr.level.clone()),
        ("inheritance", attr.inheritance.clone()),
        ("restriction", attr.restriction.clone()),
        (
            "sortDirection",
            domain.and_then(|d| d.sort_direction.clone()),
        ),
        ("mode", domain.and_then(|d| d.mode.clone())),
    ];
    for ((field, value), (_, allowed)) in supplied.iter().zip(ALLOWED) {
        if let Some(value) = value
            && !allowed.contains(&value.as_str())
        {
            return Err(invalid(value, field));
        }
    }
    Ok(())
}

/// The stored attribute an `attr` names, if any, and where it is (or goes).
async fn locate(
    connection: &mut AnyConnection,
    attr: &Attr,
    node: Option<&Node>,
) -> Result<(Option<Attribute>, Target), Fault> {
    if let (None, Some(id)) = (node, attr.id) {
        let existing = by_id(connection, attr, id).await?;
        let target = Target {
            node_id: existing.node_id,
            node_path: existing.node_path.clone(),
            definition_id: existing.definition_id,
        };
        return Ok((Some(existing), target));
    }
    let node = match node {
        Some(node) => node.clone(),
        None => find_node(connection, attr.node_id, attr.node_path.as_deref()).await?,
    };
    let Some(key) = attr.key.as_deref() else {
        return refused(fill(messages::MISSING_REQUIRED_VALUE_FIELD, &[&"key"]));
    };
    // Held until the transaction ends, so a concurrent delete of the definition waits
    // (or has ended, and it is not found).
    let Some(definition) = definitions::hold(connection, key).await? else {
        return refused(fill(
            messages::ATTRIBUTE_DEFINITION_KEY_CANNOT_BE_FOUND,
            &[&key],
        ));
    };
    // Concurrent saves of attributes of one node wait for each other (PostgreSQL), so
    // that the second of two creates of one attribute finds the first and updates it.
    nodes::lock(connection, node.id).await?;
    let existing = stored::find_on(connection, node.id, definition).await?;
    if existing.is_none() {
        check_room(connection, &node).await?;
    }
    let target = Target {
        node_id: node.id,
        node_path: node.path,
        definition_id: definition,
    };
    Ok((existing, target))
}

/// The attribute with `id`, which the `attr`'s `key`, `nodeId` and `nodePath` must match.
async fn by_id(connection: &mut AnyConnection, attr: &Attr, id: i64) -> Result<Attribute, Fault> {
    let Some(existing) = stored::find_id(connection, id).await? else {
        return refused(fill(messages::ATTRIBUTE_WITH_ID_ID_WAS_NOT_FOUND, &[&id]));
    };
    if let Some(key) = attr.key.as_deref().filter(|key| *key != existing.key) {
        return Err(invalid(key, "key"));
    }
    if let Some(node) = attr.node_id.filter(|node| *node != existing.node_id) {
        return Err(invalid(&node.to_string(), "nodeId"));
    }
    if let Some(path) = attr
        .node_path
        .as_deref()
        .filter(|p| *p != existing.node_path)
    {
        return Err(invalid(path, "nodePath"));
    }
    Ok(existing)
}

/// A new attribute at `target`: its required properties must be given.
fn new_attribute(attr: &Attr, target: Target) -> Result<Attribute, Fault> {
    let required = [
        ("level", attr.level.is_none()),
        ("inheritance", attr.inheritance.is_none()),
        ("restriction", attr.restriction.is_none()),
        ("localized", attr.localized.is_none()),
    ];
    if let Some((field, _)) = required.iter().find(|(_, missing)| *missing) {
        return refused(fill(messages::MISSING_REQUIRED_VALUE_FIELD, &[&field]));
    }
    Ok(Attribute {
        id: 0,
        node_id: target.node_id,
        node_path: target.node_path,
        definition_id: target.definition_id,
        key: attr.key.clone().unwrap_or_default(),
        level: None,
        inheritance: None,
        restriction: None,
        localized: Flag(false),
        allow_new_value: None,
        sort_direction: None,
        mode: None,
        default_value: None,
    })
}

/// Changes the properties the `attr` supplies; the others stay.
fn supply(attribute: &mut Attribute, attr: &Attr) {
    for (stored, given) in [
        (&mut attribute.level, &attr.level),
        (&mut attribute.inheritance, &attr.inheritance),
        (&mut attribute.restriction, &attr.restriction),
    ] {
        if given.is_some() {
            stored.clone_from(given);
        }
    }
    if let Some(localized) = attr.localized {
        attribute.localized = Flag(localized);
    }
    if let Some(domain) = &attr.domain_vals {
        if domain.allow_new_value.is_some() {
            attribute.allow_new_value = domain.allow_new_value.map(Flag);
        }
        for (stored, given) in [
            (&mut attribute.sort_direction, &domain.sort_direction),
            (&mut attribute.mode, &domain.mode),
        ] {
            if given.is_some() {
                stored.clone_from(given);
            }
        }
    }
}

/// The default value is one of the domain values: those given, else those stored.
async fn settle_default(
    connection: &mut AnyConnection,
    attribute: &mut Attribute,
    attr: &Attr,
    domain: Option<&[NewDomainValue]>,
    created: bool,
) -> Result<(), Fault> {
    let tids: HashSet<String> = match domain {
        Some(values) => values.iter().map(|value| value.tid.clone()).collect(),
        None if created => HashSet::new(),
        None => stored::domain_value_tids(connection, attribute.id)
            .await?
            .into_iter()
            .collect(),
    };
    if let Some(default) = &attr.default_val {
        if !tids.contains(&default.tid) {
            return Err(invalid(&default.tid, "defaultVal"));
        }
        attribute.default_value = Some(default.tid.clone());
    } else if attribute
        .default_value
        .as_ref()
        .is_some_and(|tid| !tids.contains(tid))
    {
        // A replaced list without the former default leaves the attribute without one.
        attribute.default_value = None;
    }
    Ok(())
}

/// The domain values of a `domainVals` (the whole list, mode `FULL`): each tid once, with its
/// texts by locale (`""` for a text without one), each locale known.
async fn domain_values(
    connection: &mut AnyConnection,
    domain: &DomainVals,
) -> Result<Vec<NewDomainValue>, Fault> {
    let mut values = Vec::with_capacity(domain.domain_val.len());
    let mut tids = HashSet::with_capacity(domain.domain_val.len());
    let mut locales = Locales::default();
    for value in &domain.domain_val {
        if !tids.insert(value.tid.as_str()) {
            return Err(invalid(&value.tid, "domainVal"));
        }
        let mut texts = Vec::with_capacity(value.itm.len());
        let mut given = HashSet::with_capacity(value.itm.len());
        for item in &value.itm {
            let loc = item.loc.clone().unwrap_or_default();
            if !given.insert(loc.clone()) {
                return Err(invalid(&loc, "loc"));
            }
            if !locales.known(connection, &loc).await? {
                return Err(invalid(&loc, "loc"));
            }
            texts.push(DomainText {
                loc,
                value: item.value.clone(),
            });
        }
        values.push(NewDomainValue {
            tid: value.tid.clone(),
            texts,
        });
    }
    Ok(values)
}

/// `attributes/persist`: each `attr` created or updated in its transaction.
pub(crate) struct Persist;

impl Apply for Persist {
    type Item = Attr;

    /// What identifies an attribute item before it is applied.
    fn echo(attr: &Attr) -> ResponseType {
        let action = if attr.id.is_some() {
            "update"
        } else {
            "create"
        };
        let mut record = batch::record(DATA_TYPE, action, ResponseTypeStatus::Error, "");
        record.id = attr.id;
        record.node_id = attr.node_id;
        record.node_path = attr.node_path.clone();
        record.key = attr.key.clone();
        record
    }

    async fn apply(
        transaction: &mut Tx,
        attr: &Attr,
        _scope: &Scope<'_>,
    ) -> Result<ResponseType, ItemError> {
        match save(transaction, attr, None).await {
            Ok(saved) => Ok(saved.record()),
            Err(fault) => Err(fault.of_item(&Persist::echo(attr))),
        }
    }
}
