//! The compact-JSON representation: a rewrite of the default-JSON tree driven by each schema's
//! `x-compact` form (entries, map, val); every other schema keeps its default-JSON shape.

use core_api_support::{Compact, Field, Kind, Schema, Type};
use serde_json::{Map, Value};

use super::{
    error::{DecodeError, EncodeError, Problem},
    path::Path,
};

/// The property name of a collection's items in compact JSON.
pub const ENTRIES: &str = "entries";

/// Rewrites a default-JSON tree into compact JSON.
pub fn to_compact(value: Value, schema: &'static Schema) -> Result<Value, EncodeError> {
    let mut path = Path::new();
    encode(value, schema, &mut path)
}

fn encode(value: Value, schema: &'static Schema, path: &mut Path) -> Result<Value, EncodeError> {
    let schema = schema.resolve();
    let Kind::Object(fields) = schema.kind else {
        return Ok(value);
    };
    let Value::Object(mut children) = value else {
        return Err(EncodeError {
            path: path.as_str().to_string(),
            reason: "expected an object".into(),
        });
    };
    // Children are rewritten in place: the object itself is not rebuilt.
    for (key, item) in children.iter_mut() {
        if let Some(field) = field_of(fields, key) {
            *item = encode_field(item.take(), field, path)?;
        }
    }
    Ok(Value::Object(match &schema.compact {
        Compact::Same => children,
        Compact::Entries { items } => rename(children, items, ENTRIES),
        Compact::Map { items, key, value } => encode_map(children, items, key, value, path)?,
        Compact::Val {
            items,
            value,
            list_types,
        } => encode_val(children, items, value, list_types),
    }))
}

fn encode_field(value: Value, field: &Field, path: &mut Path) -> Result<Value, EncodeError> {
    each_object(value, field, path, encode)
}

/// Applies `rewrite` to a property's object value, or to each item of a repeated one, keeping
/// the path in step; scalar properties pass through.
fn each_object<E>(
    value: Value,
    field: &Field,
    path: &mut Path,
    rewrite: fn(Value, &'static Schema, &mut Path) -> Result<Value, E>,
) -> Result<Value, E> {
    let Type::Object(schema) = field.ty else {
        return Ok(value);
    };
    match value {
        Value::Array(mut items) if field.repeated => {
            for (index, item) in items.iter_mut().enumerate() {
                path.push_item(field.name, index);
                *item = rewrite(item.take(), schema, path)?;
                path.pop();
            }
            Ok(Value::Array(items))
        }
        value => {
            path.push(field.name);
            let out = rewrite(value, schema, path)?;
            path.pop();
            Ok(out)
        }
    }
}

/// Renames one key, keeping its position.
fn rename(object: Map<String, Value>, from: &str, to: &str) -> Map<String, Value> {
    object
        .into_iter()
        .map(|(key, value)| {
            if key == from {
                (to.to_string(), value)
            } else {
                (key, value)
            }
        })
        .collect()
}

fn encode_map(
    object: Map<String, Value>,
    items: &str,
    key: &str,
    value: &str,
    path: &Path,
) -> Result<Map<String, Value>, EncodeError> {
    let mut out = Map::new();
    for (name, property) in object {
        if name != items {
            // A map-form schema has only its items; anything else cannot be represented.
            return Err(EncodeError {
                path: path.as_str().to_string(),
                reason: format!("property '{name}' beside the map items"),
            });
        }
        for item in property.as_array().into_iter().flatten() {
            let Some(mut item) = item.as_object().cloned() else {
                continue;
            };
            let Some(Value::String(map_key)) = item.remove(key) else {
                return Err(EncodeError {
                    path: path.as_str().to_string(),
                    reason: format!("an item without '{key}'"),
                });
            };
            let entry = if item.len() == 1 && item.contains_key(value) {
                item.remove(value).unwrap_or(Value::Null)
            } else {
                Value::Object(item)
            };
            // Item values are strings or objects, so an array here is a key already repeated.
            match out.get_mut(&map_key) {
                None => {
                    out.insert(map_key, entry);
                }
                Some(Value::Array(repeated)) => repeated.push(entry),
                Some(existing) => {
                    let first = existing.take();
                    *existing = Value::Array(vec![first, entry]);
                }
            }
        }
    }
    Ok(out)
}

fn encode_val(
    object: Map<String, Value>,
    items: &str,
    value: &str,
    list_types: &[&str],
) -> Map<String, Value> {
    let listed = object
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|ty| list_types.contains(&ty));
    let mut out = Map::with_capacity(object.len());
    let mut placed = false;
    for (name, property) in object {
        if name != items {
            out.insert(name, property);
            continue;
        }
        placed = true;
        let single = match &property {
            Value::Array(list) if !listed && list.len() == 1 => list[0]
                .as_object()
                .filter(|item| item.len() == 1)
                .and_then(|item| item.get(value))
                .cloned(),
            _ => None,
        };
        out.insert(value.to_string(), single.unwrap_or(property));
    }
    if !placed {
        out.insert(value.to_string(), Value::Array(Vec::new()));
    }
    out
}

/// Rewrites a compact-JSON tree into the default-JSON tree.
pub fn from_compact(value: Value, schema: &'static Schema) -> Result<Value, DecodeError> {
    let mut path = Path::new();
    decode(value, schema, &mut path)
}

fn decode(value: Value, schema: &'static Schema, path: &mut Path) -> Result<Value, DecodeError> {
    let schema = schema.resolve();
    let Kind::Object(fields) = schema.kind else {
        return Ok(value);
    };
    let object = match value {
        Value::Object(object) => object,
        other => return Err(wrong_type(path, "object", &other)),
    };
    let mut object = match &schema.compact {
        Compact::Same => object,
        Compact::Entries { items } => {
            if object.contains_key(*items) {
                return Err(DecodeError::at(
                    path.as_str(),
                    Problem::Unknown {
                        what: "property",
                        name: items.to_string(),
                    },
                ));
            }
            // The order of an object's properties carries nothing, so the key is replaced in
            // place rather than the object rebuilt.
            let mut object = object;
            if let Some(entries) = object.remove(ENTRIES) {
                object.insert(items.to_string(), entries);
            }
            object
        }
        Compact::Map { items, key, value } => decode_map(object, items, key, value, path)?,
        Compact::Val { items, value, .. } => decode_val(object, items, value, path)?,
    };
    // Children are rewritten in place: the object itself is not rebuilt.
    for (key, item) in object.iter_mut() {
        if let Some(field) = field_of(fields, key) {
            *item = decode_field(item.take(), field, path)?;
        }
    }
    Ok(Value::Object(object))
}

fn decode_field(value: Value, field: &Field, path: &mut Path) -> Result<Value, DecodeError> {
    each_object(value, field, path, decode)
}

fn decode_map(
    object: Map<String, Value>,
    items: &str,
    key: &str,
    value: &str,
    path: &mut Path,
) -> Result<Map<String, Value>, DecodeError> {
    let mut list = Vec::with_capacity(object.len());
    for (map_key, entry) in object {
        let entries = match entry {
            Value::Array(repeated) => repeated,
            single => vec![single],
        };
        for entry in entries {
            let mut item = Map::with_capacity(2);
            item.insert(key.to_string(), Value::String(map_key.clone()));
            match entry {
                Value::String(text) => {
                    item.insert(value.to_string(), Value::String(text));
                }
                Value::Object(properties) => {
                    if properties.contains_key(key) {
                        path.push(&map_key);
                        let error = DecodeError::at(
                            path.as_str(),
                            Problem::Unknown {
                                what: "property",
                                name: key.to_string(),
                            },
                        );
                        path.pop();
                        return Err(error);
                    }
                    item.extend(properties);
                }
                other => {
                    path.push(&map_key);
                    let error = wrong_type(path, "string or object", &other);
                    path.pop();
                    return Err(error);
                }
            }
            list.push(Value::Object(item));
        }
    }
    let mut out = Map::new();
    out.insert(items.to_string(), Value::Array(list));
    Ok(out)
}

fn decode_val(
    object: Map<String, Value>,
    items: &str,
    value: &str,
    path: &mut Path,
) -> Result<Map<String, Value>, DecodeError> {
    if object.contains_key(items) {
        return Err(DecodeError::at(
            path.as_str(),
            Problem::Unknown {
                what: "property",
                name: items.to_string(),
            },
        ));
    }
    // Rewritten in place: only the value property changes.
    let mut object = object;
    let Some(property) = object.remove(value) else {
        return Ok(object);
    };
    let list = match property {
        Value::String(text) => {
            let mut item = Map::with_capacity(1);
            item.insert(value.to_string(), Value::String(text));
            vec![Value::Object(item)]
        }
        Value::Array(list) => list,
        other => {
            path.push(value);
            let error = wrong_type(path, "string or array", &other);
            path.pop();
            return Err(error);
        }
    };
    if !list.is_empty() {
        object.insert(items.to_string(), Value::Array(list));
    }
    Ok(object)
}

fn field_of<'f>(fields: &'f [Field], name: &str) -> Option<&'f Field> {
    fields
        .iter()
        .find(|field| super::text::same(field.name, name))
}

fn wrong_type(path: &Path, expected: &'static str, found: &Value) -> DecodeError {
    super::tree::wrong_type(path.as_str(), expected, found)
}
