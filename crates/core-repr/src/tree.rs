//! The one tree every representation decodes into and encodes from: a `serde_json::Value` in the
//! default-JSON form, checked against the schema tables.

use core_api_support::{Compact, DefaultValue, Field, Kind, Scalar, Schema, Type};
use serde_json::{Number, Value};

use super::{
    constraints,
    error::{DecodeError, Problem},
    path::Path,
    text::{find_forbidden, same},
};

/// Checks a default-JSON tree against a schema: object shapes, unknown and missing properties,
/// scalar types, the constraints of the tables (lengths, counts, bounds, patterns) and the rules
/// of objects, except those of batch items (`x-batch`), which the batch layer checks item by item.
/// Enumerations are left to the typed deserialization that follows.
pub fn check(value: &Value, schema: &'static Schema, max_depth: usize) -> Result<(), DecodeError> {
    let mut walk = Walk {
        path: Path::new(),
        max_depth,
        rules: true,
    };
    walk.schema(value, schema, 0)
}

/// Checks one batch item as [`check`] does, its own rules included: what the batch layer asks
/// before it applies any item.
pub fn check_item(value: &Value, schema: &'static Schema) -> Result<(), DecodeError> {
    check(value, schema, usize::MAX)
}

struct Walk {
    path: Path,
    max_depth: usize,
    /// Whether the rules of the objects met are checked (not inside a batch item).
    rules: bool,
}

impl Walk {
    fn schema(
        &mut self,
        value: &Value,
        schema: &'static Schema,
        depth: usize,
    ) -> Result<(), DecodeError> {
        if depth > self.max_depth {
            return Err(DecodeError::at(
                self.path.as_str(),
                Problem::TooDeep {
                    limit: self.max_depth,
                },
            ));
        }
        match schema.kind {
            Kind::Object(fields) => self.object(value, schema, fields, depth),
            Kind::Map(ref field) => {
                let object = value
                    .as_object()
                    .ok_or_else(|| wrong_type(self.path.as_str(), "object", value))?;
                let Type::Scalar(scalar) = field.ty else {
                    return Ok(());
                };
                for (key, item) in object {
                    if let Some(problem) = scalar_problem(item, scalar, field) {
                        return Err(DecodeError::at(self.path.child(key), problem));
                    }
                }
                Ok(())
            }
            Kind::Scalar(scalar) => check_scalar(value, scalar, self.path.as_str()),
            Kind::Alias(target) => self.schema(value, target, depth),
        }
    }

    fn object(
        &mut self,
        value: &Value,
        schema: &'static Schema,
        fields: &'static [Field],
        depth: usize,
    ) -> Result<(), DecodeError> {
        let object = value
            .as_object()
            .ok_or_else(|| wrong_type(self.path.as_str(), "object", value))?;
        // Each property is matched to its field once, by name, without hashing: the fields are
        // then checked in table order from this list, so the first error is the same whatever
        // the order of the properties.
        let mut inline = [None; 32];
        let mut spilled;
        let found: &mut [Option<&Value>] = if fields.len() <= inline.len() {
            &mut inline[..fields.len()]
        } else {
            spilled = vec![None; fields.len()];
            &mut spilled
        };
        for (key, item) in object {
            let Some(index) = fields.iter().position(|field| same(field.name, key)) else {
                return Err(DecodeError::at(
                    self.path.as_str(),
                    Problem::Unknown {
                        what: "property",
                        name: key.clone(),
                    },
                ));
            };
            found[index] = Some(item);
        }
        for (field, item) in fields.iter().zip(found.iter()) {
            match *item {
                None if field.required => {
                    return Err(DecodeError::at(
                        self.path.as_str(),
                        Problem::Missing(field.name.to_string()),
                    ));
                }
                None => {}
                Some(item) if field.repeated => {
                    let items = item
                        .as_array()
                        .ok_or_else(|| wrong_type(&self.path.child(field.name), "array", item))?;
                    if let Some(problem) = constraints::items(field, items.len()) {
                        return Err(DecodeError::at(self.path.child(field.name), problem));
                    }
                    // The rules of batch items are the batch layer's (one record per item).
                    let rules = self.rules;
                    self.rules = rules && !field.batch;
                    for (index, item) in items.iter().enumerate() {
                        self.field_value(item, field, Some(index), depth)?;
                    }
                    self.rules = rules;
                }
                Some(item) => self.field_value(item, field, None, depth)?,
            }
        }
        if self.rules
            && let Some(problem) = constraints::rules(schema, object)
        {
            return Err(DecodeError::at(self.path.as_str(), problem));
        }
        Ok(())
    }

    /// Checks one value of a field (the `index`-th item of a repeated one). The path is
    /// extended only to descend into an object or to name an error: a scalar that fits costs
    /// no path writing.
    fn field_value(
        &mut self,
        value: &Value,
        field: &Field,
        index: Option<usize>,
        depth: usize,
    ) -> Result<(), DecodeError> {
        let descend = |path: &mut Path| match index {
            Some(index) => path.push_item(field.name, index),
            None => path.push(field.name),
        };
        match field.ty {
            Type::Scalar(scalar) => match scalar_problem(value, scalar, field) {
                None => Ok(()),
                Some(problem) => {
                    descend(&mut self.path);
                    Err(DecodeError::at(self.path.as_str(), problem))
                }
            },
            Type::Object(schema) => {
                descend(&mut self.path);
                self.schema(value, schema, depth + 1)?;
                self.path.pop();
                Ok(())
            }
        }
    }
}

fn check_scalar(value: &Value, scalar: Scalar, path: &str) -> Result<(), DecodeError> {
    match type_problem(value, scalar) {
        None => Ok(()),
        Some(problem) => Err(DecodeError::at(path, problem)),
    }
}

/// What is wrong with a scalar value of `field`, if anything: its characters, its type, then the
/// constraints of the field.
fn scalar_problem(value: &Value, scalar: Scalar, field: &Field) -> Option<Problem> {
    if let Some(problem) = type_problem(value, scalar) {
        return Some(problem);
    }
    if !constraints::constrains(field) {
        return None;
    }
    match value {
        Value::String(text) => constraints::scalar(field, scalar, text),
        Value::Number(number) => constraints::scalar(field, scalar, &number.to_string()),
        _ => None,
    }
}

/// What is wrong with a scalar value for its type, if anything.
fn type_problem(value: &Value, scalar: Scalar) -> Option<Problem> {
    if let Some(text) = value.as_str()
        && let Some(ch) = find_forbidden(text)
    {
        return Some(Problem::ForbiddenCharacter(ch));
    }
    let fits = match scalar {
        Scalar::String => value.is_string(),
        Scalar::Integer => {
            value.is_i64()
                || value.is_u64() && value.as_u64().is_some_and(|n| i64::try_from(n).is_ok())
        }
        Scalar::Number => value.is_number(),
        Scalar::Boolean => value.is_boolean(),
    };
    if fits {
        None
    } else {
        Some(wrong_type_problem(scalar_name(scalar), value))
    }
}

/// The name of a scalar type in error messages.
pub fn scalar_name(scalar: Scalar) -> &'static str {
    match scalar {
        Scalar::String => "string",
        Scalar::Integer => "integer",
        Scalar::Number => "number",
        Scalar::Boolean => "boolean",
    }
}

/// A wrong-type problem, showing the value found (strings quoted, containers by kind).
pub fn wrong_type(path: &str, expected: &'static str, found: &Value) -> DecodeError {
    DecodeError::at(path, wrong_type_problem(expected, found))
}

fn wrong_type_problem(expected: &'static str, found: &Value) -> Problem {
    let found = match found {
        Value::String(text) => format!("{text:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        other => other.to_string(),
    };
    Problem::WrongType { expected, found }
}

/// Puts the items of every map-form collection (`meta`) in their canonical order, in place: items
/// sharing a key stand together, at the place of the key's first item, each key's items in their
/// own order. Compact JSON writes such a collection as an object of keys, which cannot keep keys
/// interleaved, so every representation decodes to this order and round trips stay exact
/// (decision D-08). Items without a string key are left where they are.
pub fn order_map_items(value: &mut Value, schema: &'static Schema) {
    let schema = schema.resolve();
    let Kind::Object(fields) = schema.kind else {
        return;
    };
    let Value::Object(object) = value else { return };
    if let Compact::Map { items, key, .. } = schema.compact
        && let Some(Value::Array(list)) = object.get_mut(items)
    {
        group_by_key(list, |item| item.get(key).and_then(Value::as_str));
        return;
    }
    for (name, item) in object.iter_mut() {
        let Some(Type::Object(child)) = fields
            .iter()
            .find(|field| field.name == name.as_str())
            .map(|field| field.ty)
        else {
            continue;
        };
        match item {
            Value::Array(items) => items
                .iter_mut()
                .for_each(|item| order_map_items(item, child)),
            item => order_map_items(item, child),
        }
    }
}

/// Stable-groups `items` by key at each key's first occurrence; does nothing (and allocates
/// nothing) when they already are, or when an item has no key.
pub fn group_by_key<T>(items: &mut Vec<T>, key: impl Fn(&T) -> Option<&str>) {
    // Short lists (every `meta` in practice) are checked in place, without allocating.
    if items.len() <= 32 {
        let mut grouped = true;
        for index in 0..items.len() {
            let Some(current) = key(&items[index]) else {
                return;
            };
            if index > 0
                && key(&items[index - 1]) != Some(current)
                && items[..index - 1]
                    .iter()
                    .any(|earlier| key(earlier) == Some(current))
            {
                grouped = false;
            }
        }
        if grouped {
            return;
        }
    }
    let mut ranks = Vec::with_capacity(items.len());
    {
        let mut firsts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for item in items.iter() {
            let Some(current) = key(item) else { return };
            let next = firsts.len();
            ranks.push(*firsts.entry(current).or_insert(next));
        }
    }
    if ranks.is_sorted() {
        return;
    }
    let mut ranked: Vec<(usize, T)> = ranks.into_iter().zip(items.drain(..)).collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    items.extend(ranked.into_iter().map(|(_, item)| item));
}

/// Prepares a tree the server produced for output in any representation, in place: properties in
/// document order, collections always carrying their array (possibly empty), and properties equal
/// to their documented default left out (D-07). Keys and values are moved, never copied.
pub fn normalize(value: &mut Value, schema: &'static Schema) {
    let schema = schema.resolve();
    let Kind::Object(fields) = schema.kind else {
        return;
    };
    let Value::Object(object) = value else { return };
    for field in fields {
        if let Some(default) = field.default
            && object
                .get(field.name)
                .is_some_and(|item| equals_default(item, default))
        {
            object.shift_remove(field.name);
        }
    }
    if let Some(items) = collection_items(schema)
        && !object.contains_key(items)
    {
        object.insert(items.to_string(), Value::Array(Vec::new()));
    }
    for (key, item) in object.iter_mut() {
        let Some(field) = fields.iter().find(|field| field.name == key.as_str()) else {
            continue;
        };
        if let Type::Object(child) = field.ty {
            match item {
                Value::Array(items) if field.repeated => {
                    items.iter_mut().for_each(|item| normalize(item, child))
                }
                item => normalize(item, child),
            }
        }
    }
    // Properties in table order; anything the tables do not know stays last (encoding reports it).
    let position = |key: &str| {
        fields
            .iter()
            .position(|field| field.name == key)
            .unwrap_or(usize::MAX)
    };
    let ordered = object.keys().map(|key| position(key)).is_sorted();
    if !ordered {
        let mut entries: Vec<(String, Value)> = std::mem::take(object).into_iter().collect();
        entries.sort_by_key(|(key, _)| position(key));
        object.extend(entries);
    }
}

/// The repeated property of a collection schema (`x-compact: entries`).
fn collection_items(schema: &Schema) -> Option<&'static str> {
    match schema.compact {
        Compact::Entries { items } => Some(items),
        _ => None,
    }
}

fn equals_default(value: &Value, default: DefaultValue) -> bool {
    match default {
        DefaultValue::Boolean(default) => value.as_bool() == Some(default),
        DefaultValue::Integer(default) => value.as_i64() == Some(default),
        DefaultValue::String(default) => value.as_str() == Some(default),
    }
}

/// Parses text (an XML attribute or text node, a query parameter) as a scalar of the given type.
/// Non-string values may be surrounded by whitespace.
pub fn parse_scalar(text: &str, scalar: Scalar, path: &str) -> Result<Value, DecodeError> {
    let wrong = |expected| {
        DecodeError::at(
            path,
            Problem::WrongType {
                expected,
                found: format!("{text:?}"),
            },
        )
    };
    Ok(match scalar {
        Scalar::String => Value::String(text.to_string()),
        Scalar::Integer => Value::Number(
            text.trim()
                .parse::<i64>()
                .map_err(|_| wrong("integer"))?
                .into(),
        ),
        Scalar::Number => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| wrong("number"))?,
        Scalar::Boolean => match text.trim() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(wrong("boolean")),
        },
    })
}
