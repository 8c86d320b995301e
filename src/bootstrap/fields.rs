//! What the record kinds share: the form of a record known by its name, and the checks of
//! fields against the limits of the document they are answered in.

use core_api::tables;
use core_api_support::{Field, Schema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::BootstrapError;
use crate::repr::{DecodeError, constraints};

/// A record known by its name: the name alone, or, as an export writes it, with the id it keeps
/// when it is new.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Named {
    /// The name alone.
    Name(String),
    /// The name with its id.
    Record(NamedRecord),
}

/// A named record with its id (and, for a user, when it was created).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NamedRecord {
    /// The id it keeps when new.
    #[schemars(range(min = 1))]
    pub id: i64,
    /// The name.
    pub name: String,
    /// When it was created (UTC text, users only); absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

impl Named {
    /// The name.
    pub fn name(&self) -> &str {
        match self {
            Named::Name(name) => name,
            Named::Record(record) => &record.name,
        }
    }

    /// The id it keeps when new, if given.
    pub fn id(&self) -> Option<i64> {
        match self {
            Named::Name(_) => None,
            Named::Record(record) => Some(record.id),
        }
    }

    /// When it was created, if given.
    pub fn created_at(&self) -> Option<&str> {
        match self {
            Named::Name(_) => None,
            Named::Record(record) => record.created_at.as_deref(),
        }
    }
}

pub(super) fn invalid(record: String, field: &str, problem: impl Into<String>) -> BootstrapError {
    BootstrapError::Invalid {
        record,
        field: field.to_string(),
        problem: problem.into(),
    }
}

pub(super) fn non_empty(record: &str, field: &str, value: &str) -> Result<(), BootstrapError> {
    if value.trim().is_empty() {
        return Err(invalid(record.to_string(), field, "must not be empty"));
    }
    Ok(())
}

/// Holds a string to the limits of the field of the document it is answered in (D-56):
/// `property` of `schema`.
pub(super) fn fits(
    record: &str,
    field: &str,
    value: &str,
    schema: &'static Schema,
    property: &str,
) -> Result<(), BootstrapError> {
    fits_field(record, field, value, schema.field(property))
}

/// Holds a string to limits looked up beforehand: [`fits`] for a loop over many records.
pub(super) fn fits_field(
    record: &str,
    field: &str,
    value: &str,
    limits: Option<&'static Field>,
) -> Result<(), BootstrapError> {
    let Some(limits) = limits else {
        return Ok(());
    };
    match constraints::text(limits, value) {
        Some(problem) => Err(invalid(
            record.to_string(),
            field,
            DecodeError::whole(problem).to_string(),
        )),
        None => Ok(()),
    }
}

/// Holds a list to the `maxItems` of the list of the document it is answered in (D-37):
/// `property` of `schema`, with `extra` entries the answer adds (a default name).
pub(super) fn counted(
    record: &str,
    field: &str,
    count: usize,
    (schema, property): (&'static Schema, &str),
    extra: usize,
) -> Result<(), BootstrapError> {
    let most = schema
        .field(property)
        .and_then(|limits| limits.max_items)
        .map_or(usize::MAX, |most| most as usize);
    if count + extra > most {
        return Err(invalid(
            record.to_string(),
            field,
            format!("holds {count} entries; an answer lists at most {most}"),
        ));
    }
    Ok(())
}

/// Holds what an export adds to a record to what it may be: an id of 1 or more, times as UTC
/// text (`2024-01-10T08:00:00.000Z`).
pub(super) fn given(
    record: &str,
    id: Option<i64>,
    times: &[(&str, Option<&str>)],
) -> Result<(), BootstrapError> {
    if id.is_some_and(|id| id < 1) {
        return Err(invalid(record.to_string(), "id", "must be 1 or more"));
    }
    for (field, time) in times {
        if time.is_some_and(|time| !crate::local_time::is_utc_millis(time)) {
            return Err(invalid(
                record.to_string(),
                field,
                "must be UTC text such as 2024-01-10T08:00:00.000Z",
            ));
        }
    }
    Ok(())
}

/// Whether a flag is off: what an export leaves out.
pub(super) fn is_false(flag: &bool) -> bool {
    !flag
}

/// Holds an identifier without a field of its own in answers to the limits of a `tid`.
pub(super) fn identifier(record: &str, field: &str, value: &str) -> Result<(), BootstrapError> {
    fits(record, field, value, &tables::RESPONSE_TYPE, "tid")
}

/// Holds a localized name (a `name`'s `itm`) to its limits.
pub(super) fn name(record: &str, field: &str, value: &str) -> Result<(), BootstrapError> {
    fits(record, field, value, &tables::NAME_ITM, "value")
}

/// The indexes `0..count` in document order, except that a record whose parent (`parent_of`,
/// an index of the same list) comes later is written after it: a document already in parents'
/// order keeps its order, and so the ids records are given. A cycle keeps document order (the
/// load then names the parent it cannot find).
pub(super) fn parents_first(
    count: usize,
    parent_of: impl Fn(usize) -> Option<usize>,
) -> Vec<usize> {
    let mut order = Vec::with_capacity(count);
    let mut placed = vec![false; count];
    for index in 0..count {
        // The chain of ancestors not placed yet, nearest first.
        let mut chain = vec![index];
        let mut at = index;
        while let Some(parent) = parent_of(at) {
            if placed[parent] || chain.contains(&parent) || chain.len() > count {
                break;
            }
            chain.push(parent);
            at = parent;
        }
        for &member in chain.iter().rev() {
            if !placed[member] {
                placed[member] = true;
                order.push(member);
            }
        }
    }
    order
}
