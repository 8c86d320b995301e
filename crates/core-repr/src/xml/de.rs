//! A serde `Deserializer` over the node arena, driven by the tables: an element is a map of its
//! attributes, its text property and its child elements (a repeated property is one key whose
//! value is the sequence of its elements, wherever they stand); scalars are typed by the table.
//!
//! It feeds the generated types directly (no intermediate tree), and a `serde_json::Value` when
//! the tree itself is wanted.

use std::fmt;

use core_api_support::{Field, Node as XmlNode, Scalar, Type};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::dom::{Dom, NONE};
use crate::{
    constraints,
    error::{DecodeError, Problem},
    path::Path,
};

/// A decoding error, with the path of the element it concerns once known.
#[derive(Debug)]
pub struct Error {
    path: Option<String>,
    problem: Problem,
}

impl Error {
    fn at(path: String, problem: Problem) -> Error {
        Error {
            path: Some(path),
            problem,
        }
    }

    /// Sets the path if no inner element has.
    fn within(mut self, dom: &Dom<'_>, id: u32) -> Error {
        if self.path.is_none() {
            self.path = Some(dom.path(id));
        }
        self
    }
}

impl From<Error> for DecodeError {
    fn from(error: Error) -> DecodeError {
        DecodeError::at(error.path.unwrap_or_default(), error.problem)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DecodeError::at(self.path.clone().unwrap_or_default(), self.problem.clone()).fmt(f)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Error {
        Error {
            path: None,
            problem: Problem::Malformed(message.to_string()),
        }
    }

    fn missing_field(field: &'static str) -> Error {
        Error {
            path: None,
            problem: Problem::Missing(field.to_string()),
        }
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Error {
        Error {
            path: None,
            problem: Problem::Unknown {
                what: "property",
                name: field.to_string(),
            },
        }
    }

    fn duplicate_field(field: &'static str) -> Error {
        Error {
            path: None,
            problem: Problem::Duplicate(field.to_string()),
        }
    }
}

/// Deserializes the element `id`.
#[derive(Clone, Copy)]
pub struct Element<'d, 'a> {
    /// The document the element is in.
    pub dom: &'d Dom<'a>,
    /// The element's index in the document.
    pub id: u32,
}

impl<'de> de::Deserializer<'de> for Element<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let node = &self.dom.nodes[self.id as usize];
        if node.schema.is_none() {
            let field = self.dom.field_of(self.id);
            return Text {
                text: &node.text,
                scalar: field.map_or(Scalar::String, scalar_of),
                field,
                dom: self.dom,
                id: self.id,
                attribute: None,
            }
            .deserialize_any(visitor);
        }
        visitor
            .visit_map(Properties::new(self.dom, self.id))
            .map_err(|error| error.within(self.dom, self.id))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let node = &self.dom.nodes[self.id as usize];
        Text {
            text: &node.text,
            scalar: Scalar::String,
            field: self.dom.field_of(self.id),
            dom: self.dom,
            id: self.id,
            attribute: None,
        }
        .deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// The text of an attribute, a text property or a scalar element, typed by its table.
struct Text<'t, 'd, 'a> {
    text: &'t str,
    scalar: Scalar,
    /// The property the text fills, whose constraints it keeps.
    field: Option<&'static Field>,
    dom: &'d Dom<'a>,
    id: u32,
    attribute: Option<&'static str>,
}

impl Text<'_, '_, '_> {
    /// A problem of the text, at its path (the element's, and the attribute's name).
    fn error(&self, problem: Problem) -> Error {
        let mut path = self.dom.path(self.id);
        if let Some(attribute) = self.attribute {
            if !path.is_empty() {
                path.push('/');
            }
            path.push_str(attribute);
        }
        Error::at(path, problem)
    }

    fn wrong(&self, expected: &'static str) -> Error {
        self.error(Problem::WrongType {
            expected,
            found: format!("{:?}", self.text),
        })
    }

    /// Refuses a text breaking the constraints of its property.
    fn check(&self) -> Result<(), Error> {
        match self.field {
            Some(field) if constraints::constrains(field) => {
                match constraints::scalar(field, self.scalar, self.text) {
                    Some(problem) => Err(self.error(problem)),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

impl<'de> de::Deserializer<'de> for Text<'_, '_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.check()?;
        visit_scalar(self.text, self.scalar, visitor).map_err(|expected| self.wrong(expected))?
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.check()?;
        let variant: de::value::StrDeserializer<'_, Error> = self.text.into_deserializer();
        visitor
            .visit_enum(variant)
            .map_err(|error| error.within(self.dom, self.id))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Parses `text` as `scalar` and hands the value to `visitor`; `Err` names the type expected
/// when the text is not of it.
pub fn visit_scalar<'de, V: Visitor<'de>, E: de::Error>(
    text: &str,
    scalar: Scalar,
    visitor: V,
) -> Result<Result<V::Value, E>, &'static str> {
    match scalar {
        Scalar::String => Ok(visitor.visit_str(text)),
        Scalar::Integer => match text.trim().parse::<i64>() {
            Ok(number) => Ok(visitor.visit_i64(number)),
            Err(_) => Err("integer"),
        },
        Scalar::Number => match text.trim().parse::<f64>() {
            Ok(number) if number.is_finite() => Ok(visitor.visit_f64(number)),
            _ => Err("number"),
        },
        Scalar::Boolean => match text.trim() {
            "true" => Ok(visitor.visit_bool(true)),
            "false" => Ok(visitor.visit_bool(false)),
            _ => Err("boolean"),
        },
    }
}

/// What the next value of the map is.
enum Pending {
    Nothing,
    Attribute(u32),
    Text,
    Element(u32),
    Sequence { field: u16, first: u32 },
    Empty,
}

/// The properties of one element, as a map.
struct Properties<'d, 'a> {
    dom: &'d Dom<'a>,
    id: u32,
    fields: &'static [Field],
    next_attribute: u32,
    text_done: bool,
    next_child: u32,
    yielded: u64,
    next_required: usize,
    pending: Pending,
}

impl<'d, 'a> Properties<'d, 'a> {
    fn new(dom: &'d Dom<'a>, id: u32) -> Properties<'d, 'a> {
        let node = &dom.nodes[id as usize];
        Properties {
            dom,
            id,
            fields: node.fields,
            next_attribute: node.attributes.0,
            text_done: false,
            next_child: node.first_child,
            yielded: 0,
            next_required: 0,
            pending: Pending::Nothing,
        }
    }

    /// Refuses more elements of a repeated property than its `maxItems`.
    fn check_count(&self, field: u16) -> Result<(), Error> {
        if self.fields[field as usize].max_items.is_none() {
            return Ok(());
        }
        let node = &self.dom.nodes[self.id as usize];
        let mut count = 0;
        let mut child = node.first_child;
        while child != NONE {
            let sibling = &self.dom.nodes[child as usize];
            count += usize::from(sibling.field == field);
            child = sibling.next_sibling;
        }
        match constraints::items(&self.fields[field as usize], count) {
            Some(problem) => {
                let mut path = Path::new();
                path.push(&self.dom.path(self.id));
                path.push(self.fields[field as usize].xml_name);
                Err(Error::at(path.as_str().to_string(), problem))
            }
            None => Ok(()),
        }
    }

    fn key<'de, K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
        index: usize,
        pending: Pending,
    ) -> Result<Option<K::Value>, Error> {
        self.yielded |= 1 << index;
        self.pending = pending;
        seed.deserialize(self.fields[index].name.into_deserializer())
            .map(Some)
    }
}

impl<'de> MapAccess<'de> for Properties<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let node = &self.dom.nodes[self.id as usize];
        if self.next_attribute < node.attributes.1 {
            let at = self.next_attribute;
            self.next_attribute += 1;
            let index = self.dom.attributes[at as usize].field as usize;
            return self.key(seed, index, Pending::Attribute(at));
        }
        if !self.text_done {
            self.text_done = true;
            if let Some(index) = self
                .fields
                .iter()
                .position(|field| field.node == XmlNode::Text)
            {
                return self.key(seed, index, Pending::Text);
            }
        }
        while self.next_child != NONE {
            let child = self.next_child;
            self.next_child = self.dom.nodes[child as usize].next_sibling;
            let index = self.dom.nodes[child as usize].field as usize;
            if self.yielded & (1 << index) != 0 {
                continue;
            }
            let pending = if self.fields[index].repeated {
                Pending::Sequence {
                    field: index as u16,
                    first: child,
                }
            } else {
                Pending::Element(child)
            };
            return self.key(seed, index, pending);
        }
        // A required array with no element is an empty array.
        while self.next_required < self.fields.len() {
            let index = self.next_required;
            self.next_required += 1;
            let field = &self.fields[index];
            if field.required && field.repeated && self.yielded & (1 << index) == 0 {
                return self.key(seed, index, Pending::Empty);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let node = &self.dom.nodes[self.id as usize];
        match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Attribute(at) => {
                let attribute = &self.dom.attributes[at as usize];
                let field = &self.fields[attribute.field as usize];
                seed.deserialize(Text {
                    text: &attribute.value,
                    scalar: scalar_of(field),
                    field: Some(field),
                    dom: self.dom,
                    id: self.id,
                    attribute: Some(field.xml_name),
                })
            }
            Pending::Text => {
                let field = self.fields.iter().find(|field| field.node == XmlNode::Text);
                let scalar = field.map_or(Scalar::String, scalar_of);
                seed.deserialize(Text {
                    text: &node.text,
                    scalar,
                    field,
                    dom: self.dom,
                    id: self.id,
                    attribute: None,
                })
            }
            Pending::Element(child) => seed.deserialize(Element {
                dom: self.dom,
                id: child,
            }),
            Pending::Sequence { field, first } => {
                self.check_count(field)?;
                seed.deserialize(Sequence {
                    dom: self.dom,
                    field,
                    next: first,
                    empty: false,
                })
            }
            Pending::Empty => seed.deserialize(Sequence {
                dom: self.dom,
                field: 0,
                next: NONE,
                empty: true,
            }),
            Pending::Nothing => Err(de::Error::custom("a value without a key")),
        }
    }
}

fn scalar_of(field: &Field) -> Scalar {
    match field.ty {
        Type::Scalar(scalar) => scalar,
        Type::Object(_) => Scalar::String,
    }
}

/// The elements of one repeated property, as a sequence.
#[derive(Clone, Copy)]
struct Sequence<'d, 'a> {
    dom: &'d Dom<'a>,
    field: u16,
    next: u32,
    empty: bool,
}

impl<'de> de::Deserializer<'de> for Sequence<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(self)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for Sequence<'_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.empty {
            return Ok(None);
        }
        while self.next != NONE {
            let id = self.next;
            let node = &self.dom.nodes[id as usize];
            self.next = node.next_sibling;
            if node.field == self.field {
                return seed.deserialize(Element { dom: self.dom, id }).map(Some);
            }
        }
        Ok(None)
    }
}
