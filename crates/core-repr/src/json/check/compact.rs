//! Compact JSON rewritten as default-JSON text, as `compact::from_compact` rewrites the tree: for
//! the compact bodies the fast path declines, which the default-JSON readers then read (the error
//! walk for the check's error, the second reading for an irregular message).
//!
//! The reference's errors come in its order. The parser's (syntax, a repeated key, the nesting
//! limit) stop the rewrite. Then comes the first error of the rewrite, in the order
//! `from_compact` meets them: an object's own form first, then its properties in the order the
//! rewritten object holds them. The text written holds them in that order too: a renamed
//! property's place is taken by the last one, which is what `Map::remove` does under
//! `preserve_order`, and the renamed property goes last. What no check looks into is written
//! short, so that the text is never deeper than the body by more than the forms add: an unknown
//! property's value as `null`, a container where a scalar belongs as `[]` or `{}`, a value past
//! the depth limit as `null`.

use core_api_support::{Compact, Field, Kind, Schema, Type};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::{Found, Segment, Walk, object::entries, prelude};
use crate::{
    Limits,
    compact::ENTRIES,
    error::{DecodeError, Problem},
    json::XMLNS,
    text::same,
};

mod entry;
mod forms;

/// The default-JSON text of a compact-JSON body of `schema`, or the error the reference reports
/// before its check (the parser's, then the rewrite's).
pub fn rewrite_compact(
    bytes: &[u8],
    schema: &'static Schema,
    limits: &Limits,
) -> Result<String, DecodeError> {
    let text = prelude(bytes)?;
    let pass = |walk: &Walk| {
        let rewrite = Rewrite {
            walk,
            form: Form::Decode {
                schema,
                depth: 0,
                root: true,
            },
        };
        let mut deserializer = serde_json::Deserializer::from_str(text);
        rewrite
            .deserialize(&mut deserializer)
            .and_then(|piece| deserializer.end().map(|()| piece))
    };
    let piece = Walk::twice(limits, pass)?;
    match piece.error {
        Some(error) => Err(error),
        None => Ok(piece.text),
    }
}

/// One value rewritten: its default-JSON text, and the first error of its rewrite.
struct Piece {
    text: String,
    error: Option<DecodeError>,
}

impl Piece {
    fn of(text: impl Into<String>) -> Piece {
        Piece {
            text: text.into(),
            error: None,
        }
    }
}

/// What the rewrite does with a value.
#[derive(Clone, Copy)]
enum Form {
    /// A value `from_compact`'s `decode` is applied to: an object of an object schema is
    /// rewritten by its form; anything else there is an error, but for other kinds of schema.
    Decode {
        schema: &'static Schema,
        depth: usize,
        root: bool,
    },
    /// A known property's value (`each_object`), its object at `depth`: an array's items or an
    /// object are decoded when the property is of an object schema.
    Field { field: &'static Field, depth: usize },
    /// A scalar's place: a container there is wrong whatever it holds, and is written empty.
    Scalar,
    /// A value written as given.
    Keep,
    /// A value no check looks into, written as `null`.
    Drop,
}

/// One value read and rewritten by its form.
#[derive(Clone, Copy)]
struct Rewrite<'w> {
    walk: &'w Walk,
    form: Form,
}

impl<'w> Rewrite<'w> {
    fn with(self, form: Form) -> Rewrite<'w> {
        Rewrite { form, ..self }
    }

    /// A scalar, written as `text` (its JSON).
    fn scalar(self, text: String, found: Found<'_>) -> Piece {
        match self.form {
            Form::Drop => Piece::of("null"),
            Form::Decode { schema, .. } => Piece {
                error: is_object(schema).then(|| self.walk.error(found.wrong("object"))),
                text,
            },
            Form::Field { field, depth } => match field.ty {
                Type::Object(schema) => self.inside(field.name, |walk| {
                    Rewrite {
                        walk,
                        form: decode(schema, depth),
                    }
                    .scalar(text, found)
                }),
                Type::Scalar(_) => Piece::of(text),
            },
            Form::Scalar | Form::Keep => Piece::of(text),
        }
    }

    /// Runs `read` with the path inside the property `name`.
    fn inside<T>(self, name: &str, read: impl FnOnce(&'w Walk) -> T) -> T {
        self.walk.path.borrow_mut().push(name);
        let out = read(self.walk);
        self.walk.path.borrow_mut().pop();
        out
    }
}

/// What a property of an object schema at `depth` decodes its value with.
fn decode(schema: &'static Schema, depth: usize) -> Form {
    Form::Decode {
        schema,
        depth: depth + 1,
        root: false,
    }
}

fn is_object(schema: &'static Schema) -> bool {
    matches!(schema.resolve().kind, Kind::Object(_))
}

impl<'de> DeserializeSeed<'de> for Rewrite<'_> {
    type Value = Piece;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Piece, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Rewrite<'_> {
    type Value = Piece;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Piece, E> {
        Ok(self.scalar(value.to_string(), Found::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Piece, E> {
        Ok(self.scalar(value.to_string(), Found::Integer(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Piece, E> {
        let found = i64::try_from(value).map_or(Found::Large(value), Found::Integer);
        Ok(self.scalar(value.to_string(), found))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Piece, E> {
        let found = Found::Float(value);
        Ok(self.scalar(found.number().unwrap_or_default(), found))
    }

    fn visit_str<E>(self, value: &str) -> Result<Piece, E> {
        Ok(self.scalar(string(value), Found::String(value)))
    }

    fn visit_unit<E>(self) -> Result<Piece, E> {
        Ok(self.scalar("null".into(), Found::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Piece, A::Error> {
        forms::array(self, items)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Piece, A::Error> {
        forms::object(self, map)
    }
}

/// A text as JSON.
fn string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// Writes an object of `entries` (keys and their texts) in their order.
fn object_text<'p>(entries: impl Iterator<Item = (&'p str, &'p str)>) -> String {
    let mut out = String::from("{");
    for (index, (key, text)) in entries.enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&string(key));
        out.push(':');
        out.push_str(text);
    }
    out.push('}');
    out
}

/// Reads an array's items, each through `each` with its index, noting where each stands in the
/// text (for a repeated key's error).
fn items<'de, A: SeqAccess<'de>>(
    walk: &Walk,
    mut seq: A,
    mut each: impl FnMut(usize, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    let mut index = 0;
    loop {
        walk.enter(|| Segment::Item(index));
        let more = each(index, &mut seq);
        walk.leave();
        if !more? {
            return Ok(());
        }
        index += 1;
    }
}

/// The field of `fields` named `name`, as `from_compact` finds it.
fn field_of(fields: &'static [Field], name: &str) -> Option<&'static Field> {
    fields.iter().find(|field| same(field.name, name))
}

/// The error of a property a compact form gives a meaning of its own: the items under their own
/// name beside `entries` or a value form's `value`, a map-form entry naming its key property.
fn property_given(at: &str, name: &str) -> DecodeError {
    DecodeError::at(
        at,
        Problem::Unknown {
            what: "property",
            name: name.to_string(),
        },
    )
}

/// Whether a key is the root's `xmlns`, which the reference drops before the rewrite (D-07).
fn dropped(root: bool, key: &str) -> bool {
    root && key == XMLNS
}

/// The name compact JSON gives a schema's items, and their own name.
fn alias(schema: &Schema) -> Option<(&'static str, &'static str)> {
    match schema.compact {
        Compact::Entries { items } => Some((ENTRIES, items)),
        Compact::Val { items, value, .. } => Some((value, items)),
        Compact::Same | Compact::Map { .. } => None,
    }
}
