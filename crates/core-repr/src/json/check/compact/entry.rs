//! One entry of a map-form object (`decode_map`): its key is the key of the items it makes; its
//! value, a text (the item's value), an object (the item's other properties) or an array of
//! those, one item each. Anything else, or an object naming the key property itself, is the
//! entry's error, which comes before any error of the items' own properties.

use core_api_support::{Field, Type};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::{
    Form, Piece, Rewrite, entries, field_of, forms::through, items, object_text, property_given,
    string,
};
use crate::{
    error::DecodeError,
    json::check::{Found, Walk},
};

/// What every item of one map-form object is made with.
#[derive(Clone, Copy)]
pub(super) struct Item<'w> {
    pub(super) walk: &'w Walk,
    /// The items property.
    pub(super) field: &'static Field,
    /// The item property each key fills.
    pub(super) key: &'static str,
    /// The item property each text fills.
    pub(super) value: &'static str,
    /// The depth of the items.
    pub(super) depth: usize,
}

/// What one entry gave: its items, and its error.
pub(super) struct Read {
    pub(super) items: Vec<Piece>,
    pub(super) error: Option<DecodeError>,
}

impl<'w> Item<'w> {
    /// The entry of `map_key`, whose first item is the `first`-th of the list.
    pub(super) fn entry(self, map_key: &str, first: usize) -> Entry<'w, '_> {
        Entry {
            item: self,
            map_key,
            first,
            at: self.walk.path.borrow().child(map_key),
        }
    }

    /// The item of a text.
    fn text(self, map_key: &str, text: &str) -> Piece {
        let (key, text) = (string(map_key), string(text));
        Piece::of(object_text(
            [(self.key, key.as_str()), (self.value, text.as_str())].into_iter(),
        ))
    }

    /// The item of an object, the `index`-th of the list: its properties rewritten as the item
    /// schema's; the entry's error when one is named as the key property.
    fn object<'de, A: MapAccess<'de>>(
        self,
        entry: &Entry<'_, '_>,
        index: usize,
        map: A,
    ) -> Result<(Piece, Option<DecodeError>), A::Error> {
        let walk = self.walk;
        let fields = match self.field.ty {
            Type::Object(schema) => schema.fields(),
            Type::Scalar(_) => &[],
        };
        let mut key_error = None;
        let key = string(entry.map_key);
        let mut out: Vec<(String, Piece)> = vec![(self.key.to_string(), Piece::of(key))];
        walk.path.borrow_mut().push_item(self.field.name, index);
        let read = entries(walk, map, |name, map| {
            let form = if name == self.key {
                key_error.get_or_insert_with(|| property_given(&entry.at, self.key));
                Form::Drop
            } else {
                field_of(fields, name).map_or(Form::Drop, |field| Form::Field {
                    field,
                    depth: self.depth,
                })
            };
            let piece = map.next_value_seed(Rewrite { walk, form })?;
            out.push((name.to_string(), piece));
            Ok(())
        });
        walk.path.borrow_mut().pop();
        read?;
        let error = out.iter_mut().find_map(|(_, piece)| piece.error.take());
        let text = object_text(
            out.iter()
                .map(|(key, piece)| (key.as_str(), piece.text.as_str())),
        );
        Ok((Piece { text, error }, key_error))
    }
}

/// One entry's value, read into its items.
pub(super) struct Entry<'w, 'k> {
    item: Item<'w>,
    map_key: &'k str,
    first: usize,
    /// Where the entry's error is named: the map-form object's path, then the key.
    at: String,
}

impl Entry<'_, '_> {
    fn wrong(&self, found: Found<'_>) -> DecodeError {
        DecodeError::at(self.at.clone(), found.wrong("string or object"))
    }

    fn failed(&self, found: Found<'_>) -> Read {
        Read {
            items: Vec::new(),
            error: Some(self.wrong(found)),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Entry<'_, '_> {
    type Value = Read;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Read, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Entry<'_, '_> {
    type Value = Read;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a text, an object or an array of those")
    }

    fn visit_str<E>(self, text: &str) -> Result<Read, E> {
        Ok(Read {
            items: vec![self.item.text(self.map_key, text)],
            error: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Read, A::Error> {
        let (piece, error) = self.item.object(&self, self.first, map)?;
        Ok(Read {
            items: vec![piece],
            error,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Read, A::Error> {
        let mut read = Read {
            items: Vec::new(),
            error: None,
        };
        items(self.item.walk, seq, |_, seq| {
            let element = Element {
                entry: &self,
                index: self.first + read.items.len(),
            };
            let Some((piece, error)) = seq.next_element_seed(element)? else {
                return Ok(false);
            };
            if read.error.is_none() {
                read.error = error;
            }
            read.items.extend(piece);
            Ok(true)
        })?;
        Ok(read)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Read, E> {
        Ok(self.failed(Found::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Read, E> {
        Ok(self.failed(Found::Integer(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Read, E> {
        Ok(self.failed(i64::try_from(value).map_or(Found::Large(value), Found::Integer)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Read, E> {
        Ok(self.failed(Found::Float(value)))
    }

    fn visit_unit<E>(self) -> Result<Read, E> {
        Ok(self.failed(Found::Null))
    }
}

/// One element of an entry's array: a text or an object makes an item; anything else is the
/// entry's error.
struct Element<'e, 'w, 'k> {
    entry: &'e Entry<'w, 'k>,
    index: usize,
}

type Made = (Option<Piece>, Option<DecodeError>);

impl<'de> DeserializeSeed<'de> for Element<'_, '_, '_> {
    type Value = Made;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Made, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Element<'_, '_, '_> {
    fn failed(&self, found: Found<'_>) -> Made {
        (None, Some(self.entry.wrong(found)))
    }
}

impl<'de> Visitor<'de> for Element<'_, '_, '_> {
    type Value = Made;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a text or an object")
    }

    fn visit_str<E>(self, text: &str) -> Result<Made, E> {
        Ok((Some(self.entry.item.text(self.entry.map_key, text)), None))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Made, A::Error> {
        let (piece, error) = self.entry.item.object(self.entry, self.index, map)?;
        Ok((Some(piece), error))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Made, A::Error> {
        through(self.entry.item.walk, seq)?;
        Ok(self.failed(Found::Array))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Made, E> {
        Ok(self.failed(Found::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Made, E> {
        Ok(self.failed(Found::Integer(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Made, E> {
        Ok(self.failed(i64::try_from(value).map_or(Found::Large(value), Found::Integer)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Made, E> {
        Ok(self.failed(Found::Float(value)))
    }

    fn visit_unit<E>(self) -> Result<Made, E> {
        Ok(self.failed(Found::Null))
    }
}
