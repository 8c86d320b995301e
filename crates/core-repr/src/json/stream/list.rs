//! A repeated property's array: its items read through [`Checked`](super::Checked), counted
//! against `maxItems`, and for a map-form collection (`meta`) declined unless items sharing a key
//! stand together, as the reference reader would leave them (`tree::order_map_items`).

use std::{cell::RefCell, fmt};

use core_api_support::Field;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

use super::{
    At, MAX_TRACKED_KEYS, ValueSeed, decline,
    group::GroupVisitor,
    rules::{Fact, note},
};
use crate::constraints;

/// A repeated property's array, read through [`List`].
pub(super) struct ListSeed<'k, S> {
    pub(super) seed: S,
    pub(super) field: &'static Field,
    pub(super) at: At<'k>,
    /// For a map-form collection, the property holding each item's key.
    pub(super) map_key: Option<&'static str>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for ListSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        let Self {
            seed,
            field,
            at,
            map_key,
        } = self;
        seed.deserialize(List {
            inner,
            field,
            at,
            map_key,
        })
    }
}

/// A repeated property's array as a deserializer: a JSON array, no longer than `maxItems`.
struct List<'k, D> {
    inner: D,
    field: &'static Field,
    at: At<'k>,
    map_key: Option<&'static str>,
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for List<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if let Some(key) = self.map_key.filter(|_| self.at.walked) {
            return self.inner.deserialize_seq(GroupVisitor {
                visitor,
                field: self.field,
                at: self.at,
                key,
            });
        }
        self.inner.deserialize_seq(ListVisitor {
            visitor,
            field: self.field,
            at: self.at,
            map_key: self.map_key,
        })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any enum
    }
}

/// Takes an array from the parser and hands its items on, checked.
struct ListVisitor<'k, V> {
    visitor: V,
    field: &'static Field,
    at: At<'k>,
    map_key: Option<&'static str>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for ListVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<V::Value, A::Error> {
        let mut items = Items {
            inner: items,
            field: self.field,
            at: self.at,
            map_key: self.map_key,
            count: 0,
            keys: Vec::new(),
            slot: RefCell::new(None),
        };
        self.visitor.visit_seq(&mut items)
    }
}

/// The items of a repeated property: counted against `maxItems`, and for a map-form collection
/// declined when a key is not grouped with its earlier items.
struct Items<'k, A> {
    inner: A,
    field: &'static Field,
    at: At<'k>,
    map_key: Option<&'static str>,
    count: usize,
    /// The keys of the map-form items met so far (`None` for an item without one).
    keys: Vec<Option<String>>,
    /// Where the current item's key is noted.
    slot: RefCell<Option<String>>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for &mut Items<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let this = &mut **self;
        let at = At {
            keyed: this.map_key.map(|key| (key, &this.slot)),
            noted: None,
            ..this.at
        };
        let item = this.inner.next_element_seed(ValueSeed {
            seed,
            field: this.field,
            at,
        })?;
        if item.is_none() {
            note(this.at.noted, || Fact::Items(this.count));
            return Ok(None);
        }
        this.count += 1;
        if constraints::items(this.field, this.count).is_some() {
            return Err(decline());
        }
        if this.map_key.is_some() {
            let key = this.slot.borrow_mut().take();
            if this.keys.last() != Some(&key) {
                if this.keys.contains(&key) || this.keys.len() >= MAX_TRACKED_KEYS {
                    return Err(decline());
                }
                this.keys.push(key);
            }
        }
        Ok(item)
    }
}
