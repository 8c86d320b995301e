//! The run of adjacent elements of one repeated property, read as a serde sequence.

use core_api_support::Field;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};

use super::{Element, MAX_TRACKED_KEYS, Stream};
use crate::xml::scan::{Decline, Tag, Token};

/// The run of adjacent elements of one repeated property, as a sequence.
pub(super) struct Sequence<'s, 'a> {
    pub(super) stream: &'s mut Stream<'a>,
    pub(super) next: Option<Tag<'a>>,
    pub(super) field: &'static Field,
    pub(super) depth: usize,
    /// For the items of a map-form collection, the attribute holding their key.
    pub(super) map_key: Option<&'static str>,
    /// Where this sequence's keys start in `Stream::keys` (the keys met so far, to decline
    /// items whose key is not grouped).
    pub(super) keys_from: usize,
    /// The items read so far, against the property's `maxItems`.
    pub(super) count: u32,
}

impl<'a> Sequence<'_, 'a> {
    /// Declines an item whose key appeared before, but not just before.
    fn check_key(&mut self, start: &Tag<'a>) -> Result<(), Decline> {
        let Some(name) = self.map_key else {
            return Ok(());
        };
        let key = self
            .stream
            .scanner
            .attributes(start)?
            .iter()
            .find(|attribute| attribute.name == name)
            .map(|attribute| attribute.value())
            .transpose()?;
        let keys = self.stream.keys.get(self.keys_from..).ok_or(Decline)?;
        if keys.last() == Some(&key) {
            return Ok(());
        }
        if keys.contains(&key) || keys.len() >= MAX_TRACKED_KEYS {
            return Err(Decline);
        }
        self.stream.keys.push(key);
        Ok(())
    }
}

impl<'de> de::Deserializer<'de> for Sequence<'_, '_> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Decline> {
        let value = visitor.visit_seq(&mut self)?;
        if self.next.is_some() {
            return Err(Decline);
        }
        self.stream.keys.truncate(self.keys_from);
        Ok(value)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for &mut Sequence<'_, '_> {
    type Error = Decline;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Decline> {
        let Some(start) = self.next.take() else {
            return Ok(None);
        };
        self.check_key(&start)?;
        self.count += 1;
        if self.field.max_items.is_some_and(|limit| self.count > limit) {
            return Err(Decline);
        }
        let value = seed.deserialize(Element {
            stream: &mut *self.stream,
            start,
            ty: self.field.ty,
            field: Some(self.field),
            depth: self.depth,
            root: false,
        })?;
        match self.stream.next_tag()? {
            Token::Start(start) if start.name == self.field.xml_name => {
                self.next = Some(start);
            }
            other => self.stream.peeked = Some(other),
        }
        Ok(Some(value))
    }
}
