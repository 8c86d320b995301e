//! The fast path of XML reading: one pass from the tokens of `scan` straight into the typed value,
//! with no node arena in between.
//!
//! It takes the regular message only: element and attribute names without prefixes, the
//! namespace declared once on the root, the elements of each repeated property side by side and
//! `meta` keys already grouped (decision D-08). Anything else, and every error, makes it decline,
//! and `dom` (the reference reader, which also words the errors) reads the message instead. So it
//! never has to be right about an error, only about a success: the fuzz target `decode_xml` and
//! the property test check that a message it accepts reads to the same value through `dom`.

mod sequence;

use std::borrow::Cow;

use core_api_support::{Compact, Field, Kind, Node as XmlNode, Scalar, Schema, Type};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

use self::sequence::Sequence;
use super::{
    de::visit_scalar,
    scan::{self, Decline, Scanner, Tag, Token},
};
use crate::{
    Limits, constraints,
    text::{is_blank, same},
};

/// Reads the message if it is regular; `None` hands it to the reference reader.
pub fn read<T: DeserializeOwned>(
    text: &str,
    schema: &'static Schema,
    root: &str,
    namespace: Option<&str>,
    limits: &Limits,
) -> Option<T> {
    let mut stream = Stream {
        scanner: Scanner::new(text),
        peeked: None,
        max_depth: limits.max_depth,
        keys: Vec::new(),
    };
    let start = loop {
        match stream.next().ok()? {
            Token::Start(start) => break start,
            Token::Text(text) if is_blank(text) => {}
            _ => return None,
        }
    };
    if start.name != root || !declares_only(&stream.scanner, &start, namespace) {
        return None;
    }
    let element = Element {
        stream: &mut stream,
        start,
        ty: Type::Object(schema),
        field: None,
        depth: 1,
        root: true,
    };
    let value = T::deserialize(element).ok()?;
    loop {
        match stream.next().ok()? {
            Token::Eof => return Some(value),
            Token::Text(text) if is_blank(text) => {}
            _ => return None,
        }
    }
}

/// Whether the root declares exactly the expected default namespace (or none, when none is
/// expected) and no prefix.
fn declares_only<'a>(scanner: &Scanner<'a>, root: &Tag<'a>, namespace: Option<&str>) -> bool {
    let Ok(attributes) = scanner.attributes(root) else {
        return false;
    };
    let mut declared = None;
    for attribute in attributes {
        // Prefixed names (`xmlns:p`) never reach here: the scanner declines them.
        if attribute.name == "xmlns" {
            if declared.is_some() {
                return false;
            }
            match attribute.value() {
                Ok(value) => declared = Some(value),
                Err(Decline) => return false,
            }
        }
    }
    declared.as_deref() == namespace
}

/// The token reader, with one token of lookahead (the end of a run of repeated elements is
/// known only when the next sibling has been read).
struct Stream<'a> {
    scanner: Scanner<'a>,
    peeked: Option<Token<'a>>,
    max_depth: usize,
    /// The keys met so far in the open map-form sequences, innermost last: one buffer for the
    /// whole message, so that a sequence allocates nothing of its own.
    keys: Vec<Option<Cow<'a, str>>>,
}

impl<'a> Stream<'a> {
    fn next(&mut self) -> Result<Token<'a>, Decline> {
        match self.peeked.take() {
            Some(token) => Ok(token),
            None => self.scanner.next(),
        }
    }

    /// The next start or end tag inside an element that takes no text: comments and blank text
    /// are skipped, anything else declines.
    fn next_tag(&mut self) -> Result<Token<'a>, Decline> {
        if self.peeked.is_none() {
            self.scanner.skip_space();
        }
        loop {
            match self.next()? {
                token @ (Token::Start(_) | Token::End) => return Ok(token),
                Token::Text(text) | Token::CData(text) if is_blank(text) => {}
                _ => return Err(Decline),
            }
        }
    }

    /// The text of an element up to its end tag; a child element declines.
    fn text(&mut self) -> Result<Cow<'a, str>, Decline> {
        let mut text = Cow::Borrowed("");
        loop {
            let piece = match self.next()? {
                Token::Text(piece) => scan::content(piece)?,
                Token::CData(piece) => Cow::Borrowed(scan::cdata(piece)?),
                Token::End => return Ok(text),
                _ => return Err(Decline),
            };
            if text.is_empty() {
                text = piece;
            } else {
                text.to_mut().push_str(&piece);
            }
        }
    }
}

/// One element, from its start tag through its end tag.
struct Element<'s, 'a> {
    stream: &'s mut Stream<'a>,
    start: Tag<'a>,
    ty: Type,
    /// Its depth, the root's being 1.
    depth: usize,
    /// The root, whose namespace declaration has been checked.
    root: bool,
    /// The property the element fills (`None` for the root), whose constraints its text keeps.
    field: Option<&'static Field>,
}

impl<'a> Element<'_, 'a> {
    /// The text of a scalar element, checked against its property.
    fn scalar(self, scalar: Scalar) -> Result<Text<'a>, Decline> {
        let field = self.field;
        let text = self.scalar_text()?;
        match field {
            Some(field) => Text::of(text, field),
            None => Ok(Text { text, scalar }),
        }
    }

    /// The text of a scalar element, which has no attributes.
    fn scalar_text(self) -> Result<Cow<'a, str>, Decline> {
        if !self.stream.scanner.attributes(&self.start)?.is_empty() {
            return Err(Decline);
        }
        if self.start.empty {
            Ok(Cow::Borrowed(""))
        } else {
            self.stream.text()
        }
    }
}

impl<'de> de::Deserializer<'de> for Element<'_, '_> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        let schema = match self.ty {
            Type::Scalar(scalar) => return self.scalar(scalar)?.deserialize_any(visitor),
            Type::Object(schema) => schema.resolve(),
        };
        let Kind::Object(fields) = schema.kind else {
            return Err(Decline);
        };
        if fields.len() > 64 {
            return Err(Decline);
        }
        let mut properties = Properties {
            start: self.start,
            attribute: 0,
            stream: self.stream,
            schema,
            fields,
            empty: self.start.empty,
            depth: self.depth,
            root: self.root,
            phase: Phase::Attributes,
            yielded: 0,
            pending: Pending::Nothing,
        };
        let value = visitor.visit_map(&mut properties)?;
        if matches!(properties.phase, Phase::Done) {
            Ok(value)
        } else {
            Err(Decline)
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Decline> {
        let Type::Scalar(scalar) = self.ty else {
            return Err(Decline);
        };
        self.scalar(scalar)?
            .deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// The text of an attribute, a text property or a scalar element, typed by its table.
struct Text<'t> {
    text: Cow<'t, str>,
    scalar: Scalar,
}

impl<'t> Text<'t> {
    /// The text of a value of `field`; declined when it breaks the field's constraints (the
    /// reference reader words why).
    fn of(text: Cow<'t, str>, field: &Field) -> Result<Text<'t>, Decline> {
        let scalar = scalar_of(field);
        if constraints::constrains(field) && constraints::scalar(field, scalar, &text).is_some() {
            return Err(Decline);
        }
        Ok(Text { text, scalar })
    }
}

impl<'de> de::Deserializer<'de> for Text<'_> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        match (self.text, self.scalar) {
            // Text built while resolving references is moved into the value, not copied.
            (Cow::Owned(text), Scalar::String) => visitor.visit_string(text),
            (text, scalar) => visit_scalar(&text, scalar, visitor).map_err(|_| Decline)?,
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Decline> {
        let variant: de::value::StrDeserializer<'_, Decline> = (&*self.text).into_deserializer();
        visitor.visit_enum(variant)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Where the properties of an element stand, in the order the reference reader yields them.
enum Phase {
    Attributes,
    /// The text property, at this field index.
    Text(usize),
    /// The child elements.
    Children,
    /// Required arrays with no element, from this field index on.
    Required(usize),
    Done,
}

/// What the next value of the map is.
enum Pending<'a> {
    Nothing,
    Text(Cow<'a, str>, &'static Field),
    Element(Tag<'a>, &'static Field),
    Sequence(Tag<'a>, &'static Field),
    Empty,
}

/// The properties of one object element, as a map.
struct Properties<'s, 'a> {
    stream: &'s mut Stream<'a>,
    /// The element's start tag, whose attributes the scanner holds.
    start: Tag<'a>,
    /// The index of the next attribute to read.
    attribute: usize,
    schema: &'static Schema,
    fields: &'static [Field],
    empty: bool,
    depth: usize,
    root: bool,
    phase: Phase,
    /// The properties yielded so far, by field index.
    yielded: u64,
    pending: Pending<'a>,
}

impl<'a> Properties<'_, 'a> {
    fn key<'de, K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
        index: usize,
        pending: Pending<'a>,
    ) -> Result<Option<K::Value>, Decline> {
        let bit = 1u64 << index;
        if self.yielded & bit != 0 {
            return Err(Decline);
        }
        self.yielded |= bit;
        self.pending = pending;
        seed.deserialize(self.fields[index].name.into_deserializer())
            .map(Some)
    }

    /// The next attribute as a key, skipping the root's namespace declaration.
    fn next_attribute(&mut self) -> Result<Option<(usize, Pending<'a>)>, Decline> {
        while let Some(&attribute) = self
            .stream
            .scanner
            .attributes(&self.start)?
            .get(self.attribute)
        {
            self.attribute += 1;
            if self.root && attribute.name == "xmlns" {
                continue;
            }
            let index = self
                .fields
                .iter()
                .position(|field| {
                    field.node == XmlNode::Attribute && same(field.xml_name, attribute.name)
                })
                .ok_or(Decline)?;
            let value = attribute.value()?;
            return Ok(Some((index, Pending::Text(value, &self.fields[index]))));
        }
        Ok(None)
    }

    /// The next child element as a key, or `None` at the end tag.
    fn next_child(&mut self) -> Result<Option<(usize, Pending<'a>)>, Decline> {
        if self.empty {
            return Ok(None);
        }
        let Token::Start(start) = self.stream.next_tag()? else {
            return Ok(None);
        };
        if self.depth >= self.stream.max_depth {
            return Err(Decline);
        }
        let name = start.name;
        let index = self
            .fields
            .iter()
            .position(|field| field.node == XmlNode::Element && same(field.xml_name, name))
            .ok_or(Decline)?;
        let field = &self.fields[index];
        let pending = if field.repeated {
            Pending::Sequence(start, field)
        } else {
            Pending::Element(start, field)
        };
        Ok(Some((index, pending)))
    }

    /// The run of a repeated property's elements, from `next` (none: an empty run), one level
    /// down.
    fn sequence(
        &mut self,
        next: Option<Tag<'a>>,
        field: &'static Field,
        map_key: Option<&'static str>,
    ) -> Sequence<'_, 'a> {
        let keys_from = self.stream.keys.len();
        Sequence {
            stream: &mut *self.stream,
            next,
            field,
            depth: self.depth + 1,
            map_key,
            keys_from,
            count: 0,
        }
    }
}

impl<'de, 'a> MapAccess<'de> for &mut Properties<'_, 'a> {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Decline> {
        loop {
            match self.phase {
                Phase::Attributes => match self.next_attribute()? {
                    Some((index, pending)) => return self.key(seed, index, pending),
                    // Whether the element holds text or children is looked up once.
                    None => {
                        self.phase = match self
                            .fields
                            .iter()
                            .position(|field| field.node == XmlNode::Text)
                        {
                            Some(index) => Phase::Text(index),
                            None => Phase::Children,
                        }
                    }
                },
                Phase::Text(index) => {
                    let text = if self.empty {
                        Cow::Borrowed("")
                    } else {
                        self.stream.text()?
                    };
                    let field = &self.fields[index];
                    self.phase = Phase::Required(0);
                    return self.key(seed, index, Pending::Text(text, field));
                }
                Phase::Children => match self.next_child()? {
                    Some((index, pending)) => return self.key(seed, index, pending),
                    None => self.phase = Phase::Required(0),
                },
                Phase::Required(from) => {
                    let found = self.fields[from..]
                        .iter()
                        .position(|field| field.required && field.repeated);
                    match found {
                        Some(offset) if self.yielded & (1 << (from + offset)) == 0 => {
                            self.phase = Phase::Required(from + offset + 1);
                            return self.key(seed, from + offset, Pending::Empty);
                        }
                        Some(offset) => self.phase = Phase::Required(from + offset + 1),
                        None => {
                            self.phase = Phase::Done;
                            return Ok(None);
                        }
                    }
                }
                Phase::Done => return Ok(None),
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Decline> {
        match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Text(text, field) => seed.deserialize(Text::of(text, field)?),
            Pending::Element(start, field) => seed.deserialize(Element {
                stream: &mut *self.stream,
                start,
                ty: field.ty,
                field: Some(field),
                depth: self.depth + 1,
                root: false,
            }),
            Pending::Sequence(start, field) => {
                let map_key = match self.schema.compact {
                    Compact::Map { items, key, .. } if field.name == items => {
                        Some(key_attribute(field, key).ok_or(Decline)?)
                    }
                    _ => None,
                };
                seed.deserialize(self.sequence(Some(start), field, map_key))
            }
            Pending::Empty => seed.deserialize(self.sequence(None, &self.fields[0], None)),
            Pending::Nothing => Err(Decline),
        }
    }
}

/// The XML name of the attribute holding the key of a map-form collection's items.
fn key_attribute(items: &Field, key: &str) -> Option<&'static str> {
    let Type::Object(item) = items.ty else {
        return None;
    };
    let Kind::Object(fields) = item.resolve().kind else {
        return None;
    };
    fields
        .iter()
        .find(|field| field.name == key && field.node == XmlNode::Attribute)
        .map(|field| field.xml_name)
}

fn scalar_of(field: &Field) -> Scalar {
    match field.ty {
        Type::Scalar(scalar) => scalar,
        Type::Object(_) => Scalar::String,
    }
}

/// The most keys of one `meta` the fast path tracks; a longer one goes to the reference reader,
/// whose grouping is linear.
const MAX_TRACKED_KEYS: usize = 32;

#[cfg(test)]
mod tests;
