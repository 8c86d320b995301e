//! Compact JSON on the fast path: each schema's `x-compact` form read as it comes, into what
//! the default-JSON message would have given (`compact::from_compact` is the reference).
//!
//! - entries form: `entries` names the items ([`Alias`]);
//! - value form: `value` holds the items, one text for an only item's value or their list
//!   ([`ValSeed`]);
//! - map form (`meta`): the object's keys are the items' keys, each value the item's value or
//!   its other properties ([`map_form`]). A key given several values (an array) declines.

use std::{collections::HashSet, fmt, iter};

use core_api_support::{Compact, Field, Kind, Schema};
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
    value::{MapDeserializer, SeqAccessDeserializer, SeqDeserializer},
};

use super::{At, Checked, Key, decline, list::ListSeed};
use crate::{compact::ENTRIES, constraints, text::same};

/// How compact JSON names a schema's items property: `entries`, or a value-form `value`.
#[derive(Clone, Copy)]
pub(super) struct Alias {
    /// The name compact JSON gives the items.
    name: &'static str,
    /// The items property's own name, which compact JSON does not take.
    items: &'static str,
    /// The items are a value form's `value`.
    val: bool,
}

impl Alias {
    /// The alias of `schema`'s items in compact JSON, if it has one.
    pub(super) fn of(schema: &Schema, compact: bool) -> Option<Alias> {
        match schema.compact {
            _ if !compact => None,
            Compact::Entries { items } => Some(Alias {
                name: ENTRIES,
                items,
                val: false,
            }),
            Compact::Val { items, value, .. } => Some(Alias {
                name: value,
                items,
                val: true,
            }),
            Compact::Same | Compact::Map { .. } => None,
        }
    }

    /// What `key` names among `fields`; `None` for the items' own name, an unknown key, and a
    /// value form whose items are required (its empty list is no items, which the fast path
    /// cannot tell in advance).
    pub(super) fn key(self, fields: &[Field], key: &str) -> Option<Key> {
        let named = |name: &str| fields.iter().position(|field| same(field.name, name));
        if key == self.items {
            return None;
        }
        if key != self.name {
            return named(key).map(Key::Field);
        }
        let index = named(self.items)?;
        match self.val {
            false => Some(Key::Field(index)),
            true if fields[index].required => None,
            true => Some(Key::Val(index, self.name)),
        }
    }
}

/// A value form's compact `value`: the list of its items, or one text, the only item's value.
pub(super) struct ValSeed<'k, S> {
    pub(super) seed: S,
    /// The items property.
    pub(super) field: &'static Field,
    /// Where the items stand.
    pub(super) at: At<'k>,
    /// The item property an only item's text fills.
    pub(super) value: &'static str,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for ValSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        inner.deserialize_any(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for ValSeed<'_, S> {
    type Value = S::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a text or an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<S::Value, A::Error> {
        self.list().deserialize(SeqAccessDeserializer::new(items))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<S::Value, E> {
        self.visit_string(text.to_string())
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<S::Value, E> {
        let item = MapDeserializer::new(iter::once((self.value, text)));
        self.list()
            .deserialize(SeqDeserializer::new(iter::once(item)))
    }
}

impl<'k, S> ValSeed<'k, S> {
    /// The items, read as a default-JSON list is.
    fn list(self) -> ListSeed<'k, S> {
        ListSeed {
            seed: self.seed,
            field: self.field,
            at: self.at,
            map_key: None,
        }
    }
}

/// Reads a map-form object (`meta`) of compact JSON as its default-JSON object: one property,
/// the items, one per key.
pub(super) fn map_form<'de, D: Deserializer<'de>, V: Visitor<'de>>(
    inner: D,
    visitor: V,
    schema: &'static Schema,
    at: At<'_>,
) -> Result<V::Value, D::Error> {
    let (Kind::Object([field]), Compact::Map { items, key, value }) =
        (&schema.kind, &schema.compact)
    else {
        return Err(decline());
    };
    if at.root || !schema.rules.is_empty() || field.name != *items || !field.repeated {
        return Err(decline());
    }
    let at = At {
        depth: at.depth + 1,
        key: None,
        keyed: None,
        noted: None,
        ..at
    };
    let items = MapItems {
        field,
        key,
        value,
        at,
    };
    inner.deserialize_map(MapForm { visitor, items })
}

/// What every item of one map form is read with.
#[derive(Clone, Copy)]
struct MapItems<'k> {
    /// The items property.
    field: &'static Field,
    /// The item property each key fills.
    key: &'static str,
    /// The item property each text fills.
    value: &'static str,
    /// Where the items stand.
    at: At<'k>,
}

/// Takes the map-form object from the parser and hands it on as an object of one property.
struct MapForm<'k, V> {
    visitor: V,
    items: MapItems<'k>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for MapForm<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(ItemsProperty {
            entries: Entries {
                inner: map,
                items: self.items,
                seen: HashSet::new(),
            },
            given: false,
        })
    }
}

/// The map-form object as its one property, the items (given even when there are none, as
/// the reference does).
struct ItemsProperty<'k, A> {
    entries: Entries<'k, A>,
    given: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ItemsProperty<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if std::mem::replace(&mut self.given, true) {
            return Ok(None);
        }
        seed.deserialize(self.entries.items.field.name.into_deserializer())
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        seed.deserialize(ItemList(&mut self.entries))
    }
}

/// The object's entries, one item each.
struct Entries<'k, A> {
    inner: A,
    items: MapItems<'k>,
    /// The keys met so far: a key repeated in one object is the reference reader's to refuse.
    seen: HashSet<String>,
}

/// The items property's value: the entries as a list.
struct ItemList<'e, 'k, A>(&'e mut Entries<'k, A>);

impl<'de, A: MapAccess<'de>> Deserializer<'de> for ItemList<'_, '_, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_seq(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any enum
    }
}

impl<'de, A: MapAccess<'de>> SeqAccess<'de> for &mut Entries<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let Some(key) = self.inner.next_key::<String>()? else {
            return Ok(None);
        };
        if !self.seen.insert(key.clone())
            || constraints::items(self.items.field, self.seen.len()).is_some()
        {
            return Err(decline());
        }
        self.inner
            .next_value_seed(Entry {
                seed,
                key,
                items: self.items,
            })
            .map(Some)
    }
}

/// One entry of the map form: its key, and its value, read as the item they make.
struct Entry<'k, S> {
    seed: S,
    key: String,
    items: MapItems<'k>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Entry<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        inner.deserialize_any(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Entry<'_, S> {
    /// Reads the item the entry makes, given as `inner`, through the checks of its schema.
    fn item<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        let MapItems { field, at, .. } = self.items;
        self.seed.deserialize(Checked {
            inner,
            ty: field.ty,
            field: Some(field),
            at,
        })
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Entry<'_, S> {
    type Value = S::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a text or an object")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<S::Value, E> {
        self.visit_string(text.to_string())
    }

    fn visit_string<E: de::Error>(mut self, text: String) -> Result<S::Value, E> {
        let properties = [
            (self.items.key, std::mem::take(&mut self.key)),
            (self.items.value, text),
        ];
        self.item(MapDeserializer::new(properties.into_iter()))
    }

    fn visit_map<M: MapAccess<'de>>(mut self, rest: M) -> Result<S::Value, M::Error> {
        let key = Some((self.items.key, std::mem::take(&mut self.key)));
        self.item(Keyed {
            key,
            text: None,
            rest,
        })
    }
}

/// An entry's object as its item: the key property first, then the object's own properties
/// (the key among them is a repeated property, which declines).
struct Keyed<M> {
    key: Option<(&'static str, String)>,
    /// The key's text, once its name is given.
    text: Option<String>,
    rest: M,
}

impl<'de, M: MapAccess<'de>> Deserializer<'de> for Keyed<M> {
    type Error = M::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, M::Error> {
        visitor.visit_map(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
        ignored_any enum
    }
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for Keyed<M> {
    type Error = M::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        match self.key.take() {
            Some((name, text)) => {
                self.text = Some(text);
                seed.deserialize(name.into_deserializer()).map(Some)
            }
            None => self.rest.next_key_seed(seed),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, M::Error> {
        match self.text.take() {
            Some(text) => seed.deserialize(text.into_deserializer()),
            None => self.rest.next_value_seed(seed),
        }
    }
}
