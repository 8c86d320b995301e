//! The fast path of JSON reading: one pass from serde_json's parser straight into the typed
//! value, held to the tables as it goes (unknown, repeated and missing properties, scalar types,
//! the characters of strings, every constraint), with no tree in between.
//!
//! It reads compact JSON the same way, taking each schema's `x-compact` form as it comes
//! (`compact`): `entries` for the items, a map-form collection's keys, a `value` holding the
//! items; there is no default-JSON tree in between either.
//!
//! An object's rules (`rules`: `anyOf`, `oneOf` over its properties) are asked once its last
//! property is read, of what was noted of the properties they look at as they came; an object of
//! free keys (`free`) has each value held to its one field.
//!
//! It takes the regular message only. Anything it is not sure of (`meta` keys not grouped, a
//! compact `meta` key given several values, a value past the depth limit, more keys than it
//! tracks, the rules of an object compact JSON writes in a form of its own) and every error make
//! it decline. A declined compact body is rewritten as default-JSON text
//! (`json::rewrite_compact`); a declined JSON body is walked for the reference's error without a
//! tree (`json::first_error`), then read a second time ([`read_traced`]): trusting the walk for
//! repeated keys, grouping map-form items (`group`), and naming the typed conversion's error by
//! its path. So the first reading never has to be right about an error, only about a success:
//! the property test, the fuzz targets `decode_json` and `decode_compact`, `tests.rs` (for the
//! objects with rules, every combination of the values their rules look at) and the contract
//! test `request_errors.rs` check every reading against the reference reader (`json::parse`,
//! `compact::from_compact`, `tree::check`, the typed conversion).

use std::{cell::RefCell, fmt};

use core_api_support::{Compact, Field, Kind, Scalar, Schema, Type};
use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer,
    MapAccess, Visitor,
};

use self::{
    compact::Alias,
    free::FreeVisitor,
    list::ListSeed,
    rules::{Noted, Notes},
    scalar::ScalarVisitor,
};
use super::XMLNS;
use crate::{
    Limits,
    error::{DecodeError, Problem},
    text::same,
};

mod compact;
mod free;
mod group;
mod list;
pub(super) mod rules;
mod scalar;

/// The most keys of one map-form collection (`meta`) the fast path tracks; a longer one goes to
/// the reference reader, whose grouping is linear.
const MAX_TRACKED_KEYS: usize = 32;

/// The most properties an object schema may have for the fast path (its bit set of properties
/// met is one `u64`).
const MAX_FIELDS: usize = 64;

/// Reads the message if it is regular; `None` hands it to the reference reader.
pub fn read<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    limits: &Limits,
) -> Option<T> {
    read_as(bytes, schema, limits, false)
}

/// Reads a compact-JSON message if it is regular; `None` hands it to the reference reader.
pub fn read_compact<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    limits: &Limits,
) -> Option<T> {
    read_as(bytes, schema, limits, true)
}

fn read_as<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    limits: &Limits,
    compact: bool,
) -> Option<T> {
    // The whole body is UTF-8, as the reference reader requires first: serde_json checks the
    // strings it reads, but not those it skips (the root's `xmlns`). Checked once here, the
    // text is then parsed without checking its strings again.
    let text = std::str::from_utf8(bytes).ok()?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(root(&mut deserializer, schema, limits, compact)).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

/// Reads a JSON body the fast path declined and whose checks pass (`json::first_error` finds
/// nothing): the items of map-form collections grouped by key first, as the reference groups them
/// (`group`), then the typed conversion, whose error (an enumeration's value) is named by its path
/// and worded as the reference words it (`crate::typed`). `Err(None)` when it declines too.
pub fn read_traced<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    limits: &Limits,
) -> Result<T, Option<DecodeError>> {
    let text = std::str::from_utf8(bytes).map_err(|_| None)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let mut checked = root(&mut deserializer, schema, limits, false);
    checked.at.walked = true;
    let value = serde_path_to_error::deserialize::<_, T>(checked).map_err(|error| {
        let path = crate::path_of(error.path());
        let message = without_place(error.inner());
        (message != DECLINED).then(|| DecodeError::at(path, Problem::Malformed(message)))
    })?;
    deserializer.end().map_err(|_| None)?;
    Ok(value)
}

/// A parser's error without the place in the text it names: the reference converts a tree,
/// whose errors name none.
fn without_place(error: &serde_json::Error) -> String {
    let place = format!(" at line {} column {}", error.line(), error.column());
    let message = error.to_string();
    match message.strip_suffix(&place) {
        Some(message) => message.to_string(),
        None => message,
    }
}

/// The root of a body, as the fast path reads it.
fn root<'k, D>(
    inner: D,
    schema: &'static Schema,
    limits: &Limits,
    compact: bool,
) -> Checked<'k, D> {
    Checked {
        inner,
        ty: Type::Object(schema),
        field: None,
        at: At {
            depth: 0,
            max_depth: limits.max_depth,
            root: true,
            compact,
            key: None,
            keyed: None,
            noted: None,
            walked: false,
            rules: true,
        },
    }
}

/// Where a key of a map-form item goes: the item's key property, and the slot its text is noted
/// in.
type KeyOf<'k> = (&'static str, &'k RefCell<Option<String>>);

/// Where a value stands: its depth (the root's being 0, as `tree::check` counts), whether it is
/// the root, whether the message is compact JSON, and what of it is noted for the grouping of
/// map-form items.
#[derive(Clone, Copy)]
struct At<'k> {
    depth: usize,
    max_depth: usize,
    root: bool,
    compact: bool,
    /// For a scalar holding a map-form item's key, where its text goes.
    key: Option<&'k RefCell<Option<String>>>,
    /// For a map-form item, which of its properties is the key and where it goes.
    keyed: Option<KeyOf<'k>>,
    /// For a property an object's rules look at, where what they ask of it is noted.
    noted: Option<&'k Noted>,
    /// Whether the body was walked and found free of errors (`json::first_error`), as for the
    /// second reading ([`read_traced`]): no repeated key is left to find, and the items of
    /// map-form collections are grouped by key as they are read (`group`), rather than declined
    /// when they are not.
    walked: bool,
    /// Whether the rules of the objects met are asked: not inside a batch item, whose rules the
    /// batch layer asks item by item, as `tree::check` leaves them.
    rules: bool,
}

/// The root's `xmlns` as the fast path takes it: text, read and dropped.
struct XmlnsText;

impl<'de> Deserialize<'de> for XmlnsText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<XmlnsText, D::Error> {
        deserializer.deserialize_str(XmlnsText)
    }
}

impl Visitor<'_> for XmlnsText {
    type Value = XmlnsText;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("text")
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<XmlnsText, E> {
        Ok(XmlnsText)
    }
}

/// The error by which the fast path hands a body to the reference reader.
const DECLINED: &str = "declined";

fn decline<E: de::Error>() -> E {
    E::custom(DECLINED)
}

/// One value of the message, read through to the typed value's visitor as it is checked.
struct Checked<'k, D> {
    inner: D,
    ty: Type,
    /// The property the value fills (`None` for the root), whose constraints it keeps.
    field: Option<&'static Field>,
    at: At<'k>,
}

impl<'de, D: de::Deserializer<'de>> Checked<'_, D> {
    /// Reads a scalar value of `scalar`, held to `field`'s constraints when there is one.
    fn scalar<V: Visitor<'de>>(self, scalar: Scalar, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(ScalarVisitor {
            visitor,
            scalar,
            field: self.field,
            key: self.at.key,
            noted: self.at.noted,
            as_enum: false,
        })
    }
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let schema = match self.ty {
            Type::Scalar(scalar) => return self.scalar(scalar, visitor),
            Type::Object(schema) => schema.resolve(),
        };
        if self.at.depth > self.at.max_depth {
            return Err(decline());
        }
        if self.at.compact && matches!(schema.compact, Compact::Map { .. }) {
            return compact::map_form(self.inner, visitor, schema, self.at);
        }
        match schema.kind {
            // The rules of a schema compact JSON writes in a form of its own would be asked of
            // the default-JSON tree it stands for: the reference reader's.
            Kind::Object(fields)
                if fields.len() <= MAX_FIELDS
                    && (schema.rules.is_empty()
                        || !self.at.compact
                        || matches!(schema.compact, Compact::Same)) =>
            {
                self.inner.deserialize_map(ObjectVisitor {
                    visitor,
                    schema,
                    fields,
                    at: self.at,
                })
            }
            // Free keys whose values are scalars: `tree::check` holds nothing else of them.
            Kind::Map(ref field) if matches!(field.ty, Type::Scalar(_)) => {
                self.inner.deserialize_map(FreeVisitor {
                    visitor,
                    field,
                    at: self.at,
                })
            }
            // A scalar schema holds its value to its type only, as `tree::check` does.
            Kind::Scalar(scalar) => self.inner.deserialize_any(ScalarVisitor {
                visitor,
                scalar,
                field: None,
                key: self.at.key,
                noted: self.at.noted,
                as_enum: false,
            }),
            _ => Err(decline()),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        // A `null` is never a valid value; the value read declines it.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // An enumeration is a string property, or a named string schema (held to its type only).
        let field = match self.ty {
            Type::Scalar(Scalar::String) => self.field,
            Type::Object(schema)
                if matches!(schema.resolve().kind, Kind::Scalar(Scalar::String))
                    && self.at.depth <= self.at.max_depth =>
            {
                None
            }
            _ => return Err(decline()),
        };
        self.inner.deserialize_any(ScalarVisitor {
            visitor,
            scalar: Scalar::String,
            field,
            key: self.at.key,
            noted: self.at.noted,
            as_enum: true,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Takes an object from the parser and hands its properties on, checked.
struct ObjectVisitor<'k, V> {
    visitor: V,
    schema: &'static Schema,
    fields: &'static [Field],
    at: At<'k>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for ObjectVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let notes = Notes::of(self.schema, self.fields, self.at.rules);
        let mut properties = Properties {
            inner: map,
            schema: self.schema,
            fields: self.fields,
            at: self.at,
            met: 0,
            xmlns: false,
            pending: None,
            val: None,
            notes,
        };
        self.visitor.visit_map(&mut properties)
    }
}

/// The properties of one object, as a map whose keys are the fields' names.
struct Properties<'k, A> {
    inner: A,
    schema: &'static Schema,
    fields: &'static [Field],
    at: At<'k>,
    /// The properties met so far, by field index.
    met: u64,
    /// Whether the root's `xmlns` was met (it is skipped, D-07; twice is a repeated key).
    xmlns: bool,
    /// The index of the field whose value is read next.
    pending: Option<usize>,
    /// When the pending property is a compact `value` holding the items, the item property
    /// an only item's text fills.
    val: Option<&'static str>,
    /// What the object's rules ask of its properties.
    notes: Notes,
}

/// What a key of an object names.
enum Key {
    Field(usize),
    /// The compact `value` of a value-form schema: its items (field index), as one text that
    /// fills the only item's property of that name, or a list.
    Val(usize, &'static str),
    Xmlns,
}

/// Finds a key among an object's fields without copying it.
#[derive(Clone, Copy)]
struct KeySeed {
    fields: &'static [Field],
    root: bool,
    /// In compact JSON, the name the items go by.
    alias: Option<Alias>,
}

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a property name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        if self.root && key == XMLNS {
            return Ok(Key::Xmlns);
        }
        if let Some(alias) = self.alias {
            return alias.key(self.fields, key).ok_or_else(decline);
        }
        self.fields
            .iter()
            .position(|field| same(field.name, key))
            .map(Key::Field)
            .ok_or_else(decline)
    }
}

impl<'de, A: MapAccess<'de>> Properties<'_, A> {
    /// Notes the property of field `index` as met (a second time declines) and names it;
    /// `val` is set when it is a compact `value` holding the items.
    fn meet<K: DeserializeSeed<'de>>(
        &mut self,
        index: usize,
        val: Option<&'static str>,
        seed: K,
    ) -> Result<K::Value, A::Error> {
        let bit = 1u64 << index;
        if self.met & bit != 0 {
            return Err(decline());
        }
        self.met |= bit;
        self.pending = Some(index);
        self.val = val;
        seed.deserialize(self.fields[index].name.into_deserializer())
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for &mut Properties<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let seek = KeySeed {
            fields: self.fields,
            root: self.at.root,
            alias: Alias::of(self.schema, self.at.compact),
        };
        loop {
            match self.inner.next_key_seed(seek)? {
                None => {
                    let missing =
                        self.fields.iter().enumerate().any(|(index, field)| {
                            field.required && self.met & (1u64 << index) == 0
                        });
                    return if missing || !self.notes.kept(self.fields, self.met) {
                        Err(decline())
                    } else {
                        Ok(None)
                    };
                }
                Some(Key::Xmlns) => {
                    if std::mem::replace(&mut self.xmlns, true) {
                        return Err(decline());
                    }
                    // A namespace is text; anything else (an object whose keys repeat, say)
                    // is the reference reader's to judge.
                    if self.at.walked {
                        self.inner.next_value::<de::IgnoredAny>()?;
                    } else {
                        self.inner
                            .next_value::<XmlnsText>()
                            .map_err(|_| decline::<A::Error>())?;
                    }
                }
                Some(Key::Field(index)) => return self.meet(index, None, seed).map(Some),
                Some(Key::Val(index, value)) => {
                    return self.meet(index, Some(value), seed).map(Some);
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let index = self.pending.take().ok_or_else(decline)?;
        let field = &self.fields[index];
        let noted = self.notes.slot(index, field);
        let key = match self.at.keyed {
            Some((name, slot)) if field.name == name && !field.repeated => Some(slot),
            _ => None,
        };
        let at = At {
            depth: self.at.depth + usize::from(matches!(field.ty, Type::Object(_))),
            root: false,
            key,
            keyed: None,
            noted,
            rules: self.at.rules && !field.batch,
            ..self.at
        };
        if let Some(value) = self.val.take() {
            return self.inner.next_value_seed(compact::ValSeed {
                seed,
                field,
                at,
                value,
            });
        }
        if field.repeated {
            let map_key = match self.schema.compact {
                Compact::Map { items, key, .. } if field.name == items => Some(key),
                _ => None,
            };
            return self.inner.next_value_seed(ListSeed {
                seed,
                field,
                at,
                map_key,
            });
        }
        self.inner.next_value_seed(ValueSeed { seed, field, at })
    }
}

/// One property's value (or item), read through [`Checked`].
struct ValueSeed<'k, S> {
    seed: S,
    field: &'static Field,
    at: At<'k>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for ValueSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Checked {
            inner,
            ty: self.field.ty,
            field: Some(self.field),
            at: self.at,
        })
    }
}

#[cfg(test)]
mod tests;
