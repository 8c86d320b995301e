//! The published document: the authored one with the compact-JSON shape stated in standard
//! JSON Schema, so that tools which know nothing of `x-compact` (Schemathesis, linters, client
//! generators) can generate and validate `application/json+compact` bodies.
//!
//! Every schema that has an `x-compact` form, or reaches one through a `$ref`, gets a derived
//! sibling `<Name>Compact`, and every `application/json+compact` media type refers to it. The
//! derived schemas follow D-08 as the codecs read it (`crates/core-repr/src/compact.rs`):
//!
//! * `entries`: the items property is renamed `entries`;
//! * `map`: a plain object whose values are the item's value (a string), an object of the item's
//!   other properties (`<Item>Entry`, the item without its key) or an array of those (a key that
//!   repeats); the schema of its keys, which OpenAPI 3.0 cannot state (no `propertyNames`), is
//!   given in `x-propertyNames`;
//! * `val`: the items property is replaced by the value property: a string (one item that carries
//!   only its value) or an array of the items.
//!
//! Nothing else changes; the authored document stays the one source.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::TOML_HEADER;
use crate::document::Document;

/// The media type whose schemas are the derived ones.
const COMPACT_MEDIA: &str = "application/json+compact";
/// The property an `entries` form renames its items to (D-08).
const ENTRIES: &str = "entries";
/// Where a map form states the schema of its keys (JSON Schema's `propertyNames`, which
/// OpenAPI 3.0 lacks).
const PROPERTY_NAMES: &str = "x-propertyNames";
/// What the derived names end with.
const COMPACT_SUFFIX: &str = "Compact";
/// What the name of a map item without its key ends with.
const ENTRY_SUFFIX: &str = "Entry";

/// The published document (served at `/openapi.yaml` and `/openapi.json`) as a JSON tree.
pub fn document(document: &Document) -> Result<Value> {
    let mut published = document.raw.clone();
    let schemas = document.schemas()?;
    let derived = compact_schemas(schemas)?;
    for content in media_types(&mut published) {
        if let Some(schema) = content
            .get_mut(COMPACT_MEDIA)
            .and_then(|media| media.get_mut("schema"))
        {
            point_at_compact(schema, &derived.names);
        }
    }
    let target = published
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .context("components.schemas")?;
    for (name, schema) in derived.schemas {
        if target.insert(name.clone(), schema).is_some() {
            bail!("the derived schema {name} clashes with an authored one");
        }
    }
    Ok(published)
}

/// The published document as YAML text, under a header that says where it comes from.
pub fn yaml(published: &Value) -> Result<String> {
    let body = serde_yaml::to_string(published).context("the published document as YAML")?;
    Ok(format!(
        "{TOML_HEADER}\
         # The published document: the authored one, plus the compact-JSON schemas derived from\n\
         # `x-compact` (`<Name>Compact`, `<Item>Entry`) that every `{COMPACT_MEDIA}` media type\n\
         # refers to. Served at /openapi.yaml and /openapi.json.\n{body}"
    ))
}

/// The derived schemas, and the names of the authored schemas that have one.
struct Derived {
    names: BTreeSet<String>,
    schemas: Vec<(String, Value)>,
}

fn compact_schemas(schemas: &Map<String, Value>) -> Result<Derived> {
    // A schema needs a compact sibling when it has a form or refers to one that does.
    let mut names: BTreeSet<String> = schemas
        .iter()
        .filter(|(_, schema)| schema.get("x-compact").is_some())
        .map(|(name, _)| name.clone())
        .collect();
    loop {
        let before = names.len();
        for (name, schema) in schemas {
            if !names.contains(name)
                && references(schema)
                    .iter()
                    .any(|target| names.contains(target))
            {
                names.insert(name.clone());
            }
        }
        if names.len() == before {
            break;
        }
    }
    let mut derived = Vec::new();
    for (name, schema) in schemas.iter().filter(|(name, _)| names.contains(*name)) {
        let mut compact = schema.clone();
        let object = compact
            .as_object_mut()
            .with_context(|| format!("schema {name} is not an object"))?;
        let form = object.remove("x-compact");
        strip_xml(object);
        let shape = match &form {
            None => "the same properties as in default JSON".to_string(),
            Some(form) => apply_form(name, object, form, schemas, &names, &mut derived)?,
        };
        // The form copies parts of the item schemas in: they lose their `xml` objects too.
        strip_xml(object);
        object.insert(
            "description".into(),
            Value::String(format!(
                "`{name}` in compact JSON (`{COMPACT_MEDIA}`, D-08), derived from the document by \
                 `cargo xtask codegen`: {shape}. See `{name}` for the meaning of each property."
            )),
        );
        let mut compact = Value::Object(std::mem::take(object));
        point_at_compact(&mut compact, &names);
        derived.push((format!("{name}{COMPACT_SUFFIX}"), compact));
    }
    Ok(Derived {
        names,
        schemas: derived,
    })
}

/// Rewrites one schema's copy by its form; returns a phrase saying what changed.
fn apply_form(
    name: &str,
    object: &mut Map<String, Value>,
    form: &Value,
    schemas: &Map<String, Value>,
    names: &BTreeSet<String>,
    derived: &mut Vec<(String, Value)>,
) -> Result<String> {
    let word = |key: &str| {
        form.get(key)
            .and_then(Value::as_str)
            .with_context(|| format!("{name}: x-compact.{key}"))
    };
    let items = word("items")?;
    let properties = object
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .with_context(|| format!("{name}: no properties"))?;
    let items_schema = properties
        .get(items)
        .cloned()
        .with_context(|| format!("{name}: x-compact.items names no property"))?;
    match word("form")? {
        "entries" => {
            *properties = rename(std::mem::take(properties), items, ENTRIES, items_schema);
            rename_required(object, items, ENTRIES);
            Ok(format!("the array `{items}` is named `{ENTRIES}`"))
        }
        "map" => {
            let key = word("key")?;
            let value = word("value")?;
            if properties.len() != 1 {
                bail!("{name}: a map form has only its items");
            }
            let (item_name, item) = item_of(name, &items_schema, schemas)?;
            let value_schema = item
                .pointer(&format!("/properties/{value}"))
                .cloned()
                .with_context(|| format!("{name}: the item has no {value}"))?;
            let entry_name = format!("{item_name}{ENTRY_SUFFIX}");
            let mut entry = item.clone();
            let entry_object = entry.as_object_mut().context("the item is an object")?;
            if let Some(item_properties) = entry_object
                .get_mut("properties")
                .and_then(Value::as_object_mut)
            {
                item_properties.remove(key);
            }
            if let Some(required) = entry_object
                .get_mut("required")
                .and_then(Value::as_array_mut)
            {
                required.retain(|field| field != key);
            }
            entry_object.insert(
                "description".into(),
                Value::String(format!(
                    "One `{item_name}` of a compact `{name}`: its properties without `{key}`, \
                     which is the key it stands under."
                )),
            );
            strip_xml(entry_object);
            let mut entry = Value::Object(std::mem::take(entry_object));
            point_at_compact(&mut entry, names);
            if !derived
                .iter()
                .any(|(derived_name, _)| derived_name == &entry_name)
            {
                derived.push((entry_name.clone(), entry));
            }
            let entry_ref = json!({"$ref": format!("#/components/schemas/{entry_name}")});
            let key_schema = item
                .pointer(&format!("/properties/{key}"))
                .cloned()
                .with_context(|| format!("{name}: the item has no {key}"))?;
            object.remove("properties");
            object.remove("required");
            // OpenAPI 3.0 has no `propertyNames`: the constraints of a key are stated beside.
            object.insert(PROPERTY_NAMES.into(), key_schema);
            object.insert(
                "additionalProperties".into(),
                json!({"oneOf": [
                    value_schema,
                    entry_ref,
                    {"type": "array", "items": {"oneOf": [value_schema, entry_ref]}},
                ]}),
            );
            Ok(format!(
                "a plain object mapping each item's `{key}` to its `{value}` (a string), to an \
                 object of its other properties (`{entry_name}`), or, for a key that repeats, to \
                 an array of those in order; a key's constraints are those of `{item_name}.{key}`, stated in \
                 `{PROPERTY_NAMES}`"
            ))
        }
        "val" => {
            let value = word("value")?;
            let (item_name, item) = item_of(name, &items_schema, schemas)?;
            let text = item
                .pointer(&format!("/properties/{value}"))
                .cloned()
                .with_context(|| format!("{name}: the item has no {value}"))?;
            let list_types = form
                .get("listTypes")
                .and_then(Value::as_array)
                .map(|types| {
                    types
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|ty| format!("`{ty}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let replacement = json!({
                "description": format!(
                    "The object's `{items}`: the text of its one item when `type` is not one of \
                     {list_types} and that item carries only `{value}`; otherwise the array of the \
                     items (`[]` for none)."
                ),
                "oneOf": [text, {"type": "array", "items": items_schema.get("items").cloned().unwrap_or(Value::Null)}],
            });
            *properties = rename(std::mem::take(properties), items, value, replacement);
            rename_required(object, items, value);
            Ok(format!(
                "the array `{items}` of `{item_name}` is replaced by `{value}`, a string or an array"
            ))
        }
        other => bail!("{name}: unknown x-compact form {other}"),
    }
}

/// The item schema of an array property that refers to a component schema.
fn item_of<'a>(
    name: &str,
    array: &Value,
    schemas: &'a Map<String, Value>,
) -> Result<(String, &'a Value)> {
    let reference = array
        .pointer("/items/$ref")
        .and_then(Value::as_str)
        .with_context(|| format!("{name}: the items of its form are not a $ref"))?;
    let item_name = reference
        .strip_prefix("#/components/schemas/")
        .with_context(|| format!("{name}: {reference} is not a component schema"))?;
    let item = schemas
        .get(item_name)
        .with_context(|| format!("{name}: dangling {reference}"))?;
    Ok((item_name.to_string(), item))
}

/// The properties with one renamed (and given a new schema), in place.
fn rename(
    properties: Map<String, Value>,
    from: &str,
    to: &str,
    schema: Value,
) -> Map<String, Value> {
    let mut schema = Some(schema);
    properties
        .into_iter()
        .map(|(name, value)| {
            if name == from {
                (to.to_string(), schema.take().unwrap_or(value))
            } else {
                (name, value)
            }
        })
        .collect()
}

fn rename_required(object: &mut Map<String, Value>, from: &str, to: &str) {
    if let Some(required) = object.get_mut("required").and_then(Value::as_array_mut) {
        for field in required.iter_mut() {
            if field == from {
                *field = Value::String(to.to_string());
            }
        }
    }
}

/// Removes the `xml` objects of a derived schema's own tree: compact JSON is not XML.
fn strip_xml(object: &mut Map<String, Value>) {
    object.remove("xml");
    for value in object.values_mut() {
        strip_xml_value(value);
    }
}

fn strip_xml_value(value: &mut Value) {
    match value {
        Value::Object(object) => strip_xml(object),
        Value::Array(items) => items.iter_mut().for_each(strip_xml_value),
        _ => {}
    }
}

/// The component schemas a schema refers to.
fn references(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(object) => {
                if let Some(target) = object
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
                {
                    found.push(target.to_string());
                }
                pending.extend(object.values());
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    found
}

/// Points every `$ref` to a schema that has a compact sibling at the sibling.
fn point_at_compact(value: &mut Value, names: &BTreeSet<String>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get_mut("$ref")
                && let Some(target) = reference.strip_prefix("#/components/schemas/")
                && names.contains(target)
            {
                *reference = format!("#/components/schemas/{target}{COMPACT_SUFFIX}");
            }
            object
                .values_mut()
                .for_each(|child| point_at_compact(child, names));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|child| point_at_compact(child, names)),
        _ => {}
    }
}

/// Every `content` map of the document (request bodies and answers, shared ones included). A
/// schema property named `content` would be visited too, harmlessly: it has no media types.
fn media_types(document: &mut Value) -> Vec<&mut Map<String, Value>> {
    let mut found = Vec::new();
    let mut pending = vec![document];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(object) => {
                for (key, child) in object.iter_mut() {
                    if key != "content" {
                        pending.push(child);
                    } else if let Value::Object(content) = child {
                        found.push(content);
                    }
                }
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            _ => {}
        }
    }
    found
}
