//! A map-form collection (`meta`) whose items sharing a key do not stand together, read in the
//! order the reference gives them (`tree::order_map_items`, decision D-08): each item's text is
//! kept as the parser found it (no tree), the texts are grouped by key, and each is then read
//! through [`Checked`](super::Checked) in its place. Only the second reading of a declined JSON
//! body asks for it ([`At::walked`](super::At)).

use std::fmt;

use core_api_support::Field;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{At, ValueSeed, decline, without_place};
use crate::{constraints, tree::group_by_key};

/// Reads the array of a map-form collection, its items grouped by key, into `visitor`.
pub(super) struct GroupVisitor<'k, V> {
    pub(super) visitor: V,
    pub(super) field: &'static Field,
    pub(super) at: At<'k>,
    /// The item property holding each item's key.
    pub(super) key: &'static str,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for GroupVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<V::Value, A::Error> {
        let mut texts: Vec<(Option<String>, &'de RawValue)> = Vec::new();
        while let Some(text) = items.next_element::<&'de RawValue>()? {
            if constraints::items(self.field, texts.len() + 1).is_some() {
                return Err(decline());
            }
            let key = KeyOf(self.key)
                .deserialize(&mut serde_json::Deserializer::from_str(text.get()))
                .map_err(|_| decline::<A::Error>())?;
            texts.push((key, text));
        }
        group_by_key(&mut texts, |(key, _)| key.as_deref());
        let at = At {
            keyed: None,
            noted: None,
            ..self.at
        };
        self.visitor.visit_seq(Grouped {
            texts: texts.into_iter(),
            field: self.field,
            at,
            error: std::marker::PhantomData,
        })
    }
}

/// The grouped items, each read from its own text.
struct Grouped<'de, 'k, E> {
    texts: std::vec::IntoIter<(Option<String>, &'de RawValue)>,
    field: &'static Field,
    at: At<'k>,
    error: std::marker::PhantomData<E>,
}

impl<'de, E: de::Error> SeqAccess<'de> for Grouped<'de, '_, E> {
    type Error = E;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, E> {
        let Some((_, text)) = self.texts.next() else {
            return Ok(None);
        };
        let mut deserializer = serde_json::Deserializer::from_str(text.get());
        let seed = ValueSeed {
            seed,
            field: self.field,
            at: self.at,
        };
        // An item's own error is worded as if read in place: a text position names nothing.
        seed.deserialize(&mut deserializer)
            .map(Some)
            .map_err(|error| E::custom(without_place(&error)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.texts.len())
    }
}

/// The key of one item: the text of its property `.0`, if that is a string.
struct KeyOf(&'static str);

impl<'de> DeserializeSeed<'de> for KeyOf {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeyOf {
    type Value = Option<String>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an item")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let mut found = None;
        while let Some(name) = map.next_key::<String>()? {
            if name == self.0 {
                found = map.next_value::<KeyText>()?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A key property's value: its text when it is a string.
struct KeyText(Option<String>);

impl<'de> de::Deserialize<'de> for KeyText {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<KeyText, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = KeyText;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a key")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<KeyText, E> {
                Ok(KeyText(Some(text.to_string())))
            }
        }
        deserializer.deserialize_str(Text)
    }
}
