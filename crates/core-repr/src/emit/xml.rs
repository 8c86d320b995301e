//! A typed answer written as XML, as `repr::xml::write` writes its tree: attributes, child
//! elements and text as the tables say, in table order, indented by two spaces.
//!
//! An element's attributes come before its children whatever their order among the properties,
//! so each object is serialized twice: once for its attributes (the start tag), once for its text
//! or children (whose objects are serialized the same way in turn). Each pass visits only the
//! object's own properties, so the whole answer is still written in one walk.

use core_api_support::{Field, Node, Schema, Type};
use serde::ser::{self, Impossible, Serialize, SerializeSeq};

use super::{EmitError, Object, Visit, object_fields, one_shape, refuse, refuse_compounds};
use crate::{
    error::EncodeError,
    path::Path,
    xml::write::{document, escape_into},
};

/// Writes `value`, whose schema is `schema`, as an XML document.
pub fn write<T: Serialize + ?Sized>(
    value: &T,
    schema: &'static Schema,
    namespace: &str,
) -> Result<String, EncodeError> {
    let (root, out) = document(schema)?;
    let mut writer = Writer {
        out,
        path: Path::new(),
    };
    let namespace = root.namespace.map(|_| namespace);
    match writer.element(root.name, value, schema, 0, namespace) {
        Ok(()) => Ok(writer.out),
        Err(fault) => Err(EncodeError {
            path: writer.path.as_str().to_string(),
            reason: fault.into_reason(),
        }),
    }
}

/// Appends `value`, an item of schema `schema`, to `out` as the element `name` at `depth`, as it
/// reads inside its document (a streamed collection's item, `repr::stream`).
pub fn write_element<T: Serialize + ?Sized>(
    value: &T,
    name: &'static str,
    schema: &'static Schema,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let mut writer = Writer {
        out: String::with_capacity(256),
        path: Path::new(),
    };
    match writer.element(name, value, schema, depth, None) {
        Ok(()) => {
            out.extend_from_slice(writer.out.as_bytes());
            Ok(())
        }
        Err(fault) => Err(EncodeError {
            path: writer.path.as_str().to_string(),
            reason: fault.into_reason(),
        }),
    }
}

struct Writer {
    out: String,
    path: Path,
}

impl Writer {
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    /// Writes `value` as the element `name` of `schema`.
    fn element<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
        schema: &'static Schema,
        depth: usize,
        namespace: Option<&str>,
    ) -> Result<(), EmitError> {
        let fields = object_fields(schema)?;
        self.indent(depth);
        self.out.push('<');
        self.out.push_str(name);
        if let Some(namespace) = namespace {
            self.out.push_str(" xmlns=\"");
            self.escaped(namespace, true)?;
            self.out.push('"');
        }
        value.serialize(Object::new(&mut Attributes { writer: self }, fields))?;
        let mut content = Content {
            writer: self,
            name,
            depth,
            text: fields.iter().any(|field| field.node == Node::Text),
            open: true,
        };
        value.serialize(Object::new(&mut content, fields))?;
        let open = content.open;
        if open {
            // No text and no child: an empty element.
            self.out.push_str("/>\n");
        } else if !content.text {
            self.indent(depth);
            self.out.push_str("</");
            self.out.push_str(name);
            self.out.push_str(">\n");
        }
        Ok(())
    }

    /// Writes a property's value as a child of the open element described by `content`.
    fn child<T: Serialize + ?Sized>(
        &mut self,
        field: &'static Field,
        value: &T,
        depth: usize,
    ) -> Result<(), EmitError> {
        match field.ty {
            Type::Object(schema) => self.element(field.xml_name, value, schema, depth, None),
            Type::Scalar(_) => {
                self.indent(depth);
                self.out.push('<');
                self.out.push_str(field.xml_name);
                value.serialize(Text {
                    writer: self,
                    place: Place::Element(field.xml_name),
                })
            }
        }
    }

    fn escaped(&mut self, text: &str, attribute: bool) -> Result<(), EmitError> {
        escape_into(&mut self.out, text, attribute)
            .map_err(|ch| EmitError(format!("U+{:04X} cannot be written in XML", ch as u32)))
    }

    /// Writes a scalar's text where `place` says.
    fn text(&mut self, text: &str, place: Place) -> Result<(), EmitError> {
        match place {
            Place::Attribute => self.escaped(text, true),
            // An open start tag is finished with the text, or as an empty element.
            Place::Element(_) if text.is_empty() => {
                self.out.push_str("/>\n");
                Ok(())
            }
            Place::Element(name) => {
                self.out.push('>');
                self.escaped(text, false)?;
                self.out.push_str("</");
                self.out.push_str(name);
                self.out.push_str(">\n");
                Ok(())
            }
        }
    }
}

/// The first pass over an object: its attributes, into the open start tag.
struct Attributes<'w> {
    writer: &'w mut Writer,
}

impl Visit for Attributes<'_> {
    fn property<T: Serialize + ?Sized>(
        &mut self,
        field: &'static Field,
        value: &T,
    ) -> Result<(), EmitError> {
        if field.node != Node::Attribute {
            return Ok(());
        }
        let writer = &mut *self.writer;
        writer.out.push(' ');
        writer.out.push_str(field.xml_name);
        writer.out.push_str("=\"");
        value.serialize(Text {
            writer: &mut *writer,
            place: Place::Attribute,
        })?;
        writer.out.push('"');
        Ok(())
    }
}

/// The second pass over an object: its text, or its child elements.
struct Content<'w> {
    writer: &'w mut Writer,
    name: &'static str,
    depth: usize,
    /// The schema has a text property: the element holds text and no children.
    text: bool,
    /// The start tag is still open: nothing has been written inside the element.
    open: bool,
}

impl Content<'_> {
    fn child<T: Serialize + ?Sized>(
        &mut self,
        field: &'static Field,
        value: &T,
    ) -> Result<(), EmitError> {
        if self.open {
            self.writer.out.push_str(">\n");
            self.open = false;
        }
        self.writer.child(field, value, self.depth + 1)
    }
}

impl Visit for Content<'_> {
    fn property<T: Serialize + ?Sized>(
        &mut self,
        field: &'static Field,
        value: &T,
    ) -> Result<(), EmitError> {
        match field.node {
            Node::Attribute => Ok(()),
            Node::Text => {
                self.open = false;
                value.serialize(Text {
                    writer: &mut *self.writer,
                    place: Place::Element(self.name),
                })
            }
            // An element holding text has no children (as the tree writer does).
            Node::Element if self.text => Ok(()),
            Node::Element if field.repeated => value.serialize(Items {
                content: self,
                field,
                index: 0,
            }),
            Node::Element => {
                self.writer.path.push(field.xml_name);
                self.child(field, value)?;
                self.writer.path.pop();
                Ok(())
            }
        }
    }
}

/// The items of a repeated property, each a child element.
struct Items<'c, 'w> {
    content: &'c mut Content<'w>,
    field: &'static Field,
    index: usize,
}

impl<'c, 'w> ser::Serializer for Items<'c, 'w> {
    one_shape!(seq "an array");

    fn serialize_seq(self, _: Option<usize>) -> Result<Self, EmitError> {
        Ok(self)
    }
}

impl SerializeSeq for Items<'_, '_> {
    type Ok = ();
    type Error = EmitError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EmitError> {
        self.content
            .writer
            .path
            .push_item(self.field.xml_name, self.index);
        self.index += 1;
        self.content.child(self.field, value)?;
        self.content.writer.path.pop();
        Ok(())
    }

    fn end(self) -> Result<(), EmitError> {
        Ok(())
    }
}

/// Where a scalar's text goes.
#[derive(Clone, Copy)]
enum Place {
    /// Into an attribute value being written.
    Attribute,
    /// As the content of the element whose start tag is open.
    Element(&'static str),
}

/// A scalar written as text: strings as they are, numbers and booleans as JSON writes them.
struct Text<'w> {
    writer: &'w mut Writer,
    place: Place,
}

impl Text<'_> {
    fn integer(self, value: impl itoa::Integer) -> Result<(), EmitError> {
        let mut buffer = itoa::Buffer::new();
        self.writer.text(buffer.format(value), self.place)
    }
}

/// The integer methods of `Text`: digits as JSON writes them.
macro_rules! integers {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(
            fn $method(self, value: $ty) -> Result<(), EmitError> {
                self.integer(value)
            }
        )*
    };
}

impl<'w> ser::Serializer for Text<'w> {
    type Ok = ();
    type Error = EmitError;
    type SerializeSeq = Impossible<(), EmitError>;
    type SerializeTuple = Impossible<(), EmitError>;
    type SerializeTupleStruct = Impossible<(), EmitError>;
    type SerializeTupleVariant = Impossible<(), EmitError>;
    type SerializeMap = Impossible<(), EmitError>;
    type SerializeStruct = Impossible<(), EmitError>;
    type SerializeStructVariant = Impossible<(), EmitError>;

    fn serialize_bool(self, value: bool) -> Result<(), EmitError> {
        self.writer
            .text(if value { "true" } else { "false" }, self.place)
    }

    integers!(
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
    );

    fn serialize_f32(self, value: f32) -> Result<(), EmitError> {
        self.serialize_f64(f64::from(value))
    }

    fn serialize_f64(self, value: f64) -> Result<(), EmitError> {
        // As the tree holds it: a JSON number (no text for a non-finite one).
        let number =
            serde_json::Number::from_f64(value).ok_or_else(|| EmitError::expected("a scalar"))?;
        self.writer.text(&number.to_string(), self.place)
    }

    fn serialize_char(self, value: char) -> Result<(), EmitError> {
        self.writer.text(value.encode_utf8(&mut [0; 4]), self.place)
    }

    fn serialize_str(self, value: &str) -> Result<(), EmitError> {
        self.writer.text(value, self.place)
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), EmitError> {
        self.writer.text(variant, self.place)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EmitError> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), EmitError> {
        value.serialize(self)
    }

    refuse!("a scalar";
        serialize_bytes(&[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(&'static str);
    );
    refuse_compounds!("a scalar";
        serialize_seq -> SerializeSeq (Option<usize>);
        serialize_tuple -> SerializeTuple (usize);
        serialize_tuple_struct -> SerializeTupleStruct (&'static str, usize);
        serialize_tuple_variant -> SerializeTupleVariant (&'static str, u32, &'static str, usize);
        serialize_map -> SerializeMap (Option<usize>);
        serialize_struct -> SerializeStruct (&'static str, usize);
        serialize_struct_variant -> SerializeStructVariant (&'static str, u32, &'static str, usize);
    );

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), EmitError> {
        Err(EmitError::expected("a scalar"))
    }
}
