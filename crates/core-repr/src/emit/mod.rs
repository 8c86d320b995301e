//! Answers written straight from their typed value: XML (`xml`) and compact JSON (`compact`) are
//! serde `Serializer`s driven by the same tables as the tree writers, so an answer is never held
//! as JSON text or as a tree on its way out (default JSON needs neither: the generated types
//! serialize in its form). They write byte for byte what the tree path writes
//! (`Codec::encode` of the normalized tree); the document's examples and the property test of
//! `contract-tests/tests/representations.rs` hold the two together.
//!
//! The generated types serialize their properties in schema order under their JSON names, leave
//! out absent options and documented defaults, and write a collection's items even when empty:
//! that is the normalized tree, which is why a writer can follow the serialization as it comes.

pub mod compact;
pub mod xml;

use std::fmt;

use core_api_support::{Field, Kind, Schema};
use serde::ser::{self, Serialize, SerializeMap, SerializeStruct};

/// Why a value could not be written: it has a shape its table does not describe.
#[derive(Debug)]
pub struct EmitError(String);

impl EmitError {
    /// A value of another shape than the table says.
    fn expected(what: &str) -> EmitError {
        EmitError(format!("expected {what}"))
    }

    /// The reason, for an `EncodeError`.
    pub fn into_reason(self) -> String {
        self.0
    }
}

impl fmt::Display for EmitError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for EmitError {}

impl ser::Error for EmitError {
    fn custom<T: fmt::Display>(message: T) -> EmitError {
        EmitError(message.to_string())
    }
}

/// What a writer does with each property of an object, given its table entry.
trait Visit {
    /// One property, in schema order.
    fn property<T: Serialize + ?Sized>(
        &mut self,
        field: &'static Field,
        value: &T,
    ) -> Result<(), EmitError>;
}

/// The object fields of `schema`, or the fault of a schema that is not an object.
fn object_fields(schema: &'static Schema) -> Result<&'static [Field], EmitError> {
    match schema.resolve().kind {
        Kind::Object(fields) => Ok(fields),
        _ => Err(EmitError(format!("{} is not an object", schema.name))),
    }
}

/// A `Serializer` for a value that must be an object of known fields: each property goes to the
/// visitor with its table entry. Properties come in table order, so the search for the next
/// one starts where the last one was found.
struct Object<'v, V> {
    visit: &'v mut V,
    fields: &'static [Field],
    next: usize,
}

impl<'v, V: Visit> Object<'v, V> {
    fn new(visit: &'v mut V, fields: &'static [Field]) -> Object<'v, V> {
        Object {
            visit,
            fields,
            next: 0,
        }
    }

    fn field(&mut self, key: &str) -> Result<&'static Field, EmitError> {
        let fields = self.fields;
        let found = fields[self.next..]
            .iter()
            .position(|field| field.name == key)
            .map(|offset| self.next + offset)
            .or_else(|| fields.iter().position(|field| field.name == key))
            .ok_or_else(|| EmitError(format!("unknown property '{key}'")))?;
        self.next = found + 1;
        Ok(&fields[found])
    }
}

impl<V: Visit> SerializeStruct for Object<'_, V> {
    type Ok = ();
    type Error = EmitError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EmitError> {
        let field = self.field(key)?;
        self.visit.property(field, value)
    }

    fn end(self) -> Result<(), EmitError> {
        Ok(())
    }
}

/// The `Serializer` methods of a writer that takes only some shapes: each listed method refuses
/// its value as not being `$what`.
macro_rules! refuse {
    ($what:expr; $($method:ident($($arg:ty),*);)*) => {
        $(
            fn $method(self, $(_: $arg),*) -> Result<Self::Ok, Self::Error> {
                Err($crate::emit::EmitError::expected($what))
            }
        )*
    };
}

/// The compound `Serializer` methods of a writer that takes none of them.
macro_rules! refuse_compounds {
    ($what:expr; $($method:ident -> $ty:ident ($($arg:ty),*);)*) => {
        $(
            fn $method(self, $(_: $arg),*) -> Result<Self::$ty, Self::Error> {
                Err($crate::emit::EmitError::expected($what))
            }
        )*
    };
}

/// Every `Serializer` method of a writer that takes one compound shape — `struct` (an object) or
/// `seq` (an array), whose method the writer writes itself — looking through options and
/// newtypes, and refusing everything else as not being `$what`.
macro_rules! one_shape {
    (struct $what:expr) => {
        type SerializeSeq = serde::ser::Impossible<(), $crate::emit::EmitError>;
        type SerializeStruct = Self;
        type SerializeMap = Self;
        $crate::emit::one_shape!(@common $what);
        $crate::emit::refuse_compounds!($what;
            serialize_seq -> SerializeSeq (Option<usize>);
            serialize_tuple -> SerializeTuple (usize);
            serialize_tuple_struct -> SerializeTupleStruct (&'static str, usize);
            serialize_tuple_variant -> SerializeTupleVariant (&'static str, u32, &'static str, usize);
            serialize_struct_variant -> SerializeStructVariant (&'static str, u32, &'static str, usize);
        );
    };
    (seq $what:expr) => {
        type SerializeSeq = Self;
        type SerializeStruct = serde::ser::Impossible<(), $crate::emit::EmitError>;
        type SerializeMap = serde::ser::Impossible<(), $crate::emit::EmitError>;
        $crate::emit::one_shape!(@common $what);
        $crate::emit::refuse_compounds!($what;
            serialize_tuple -> SerializeTuple (usize);
            serialize_tuple_struct -> SerializeTupleStruct (&'static str, usize);
            serialize_tuple_variant -> SerializeTupleVariant (&'static str, u32, &'static str, usize);
            serialize_map -> SerializeMap (Option<usize>);
            serialize_struct -> SerializeStruct (&'static str, usize);
            serialize_struct_variant -> SerializeStructVariant (&'static str, u32, &'static str, usize);
        );
    };
    (@common $what:expr) => {
        type Ok = ();
        type Error = $crate::emit::EmitError;
        type SerializeTuple = serde::ser::Impossible<(), $crate::emit::EmitError>;
        type SerializeTupleStruct = serde::ser::Impossible<(), $crate::emit::EmitError>;
        type SerializeTupleVariant = serde::ser::Impossible<(), $crate::emit::EmitError>;
        type SerializeStructVariant = serde::ser::Impossible<(), $crate::emit::EmitError>;

        $crate::emit::refuse!($what;
            serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
            serialize_i64(i64); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
            serialize_u64(u64); serialize_f32(f32); serialize_f64(f64); serialize_char(char);
            serialize_str(&str); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
            serialize_unit_struct(&'static str);
            serialize_unit_variant(&'static str, u32, &'static str);
        );

        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), $crate::emit::EmitError> {
            value.serialize(self)
        }

        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<(), $crate::emit::EmitError> {
            value.serialize(self)
        }

        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), $crate::emit::EmitError> {
            Err($crate::emit::EmitError::expected($what))
        }
    };
}

pub(crate) use {one_shape, refuse, refuse_compounds};

impl<'v, V: Visit> ser::Serializer for Object<'v, V> {
    one_shape!(struct "an object");

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, EmitError> {
        Ok(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, EmitError> {
        Ok(self)
    }
}

/// An object given as a map (a `serde_json::Value` of a typed answer, whose properties keep
/// their order): each entry is the property of its key's name.
impl<V: Visit> SerializeMap for Object<'_, V> {
    type Ok = ();
    type Error = EmitError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), EmitError> {
        Err(EmitError::expected("a key with its value"))
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), EmitError> {
        Err(EmitError::expected("a value with its key"))
    }

    fn serialize_entry<K: Serialize + ?Sized, T: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &T,
    ) -> Result<(), EmitError> {
        let serde_json::Value::String(key) =
            serde_json::to_value(key).map_err(|error| EmitError(error.to_string()))?
        else {
            return Err(EmitError::expected("a property name"));
        };
        let field = self.field(&key)?;
        self.visit.property(field, value)
    }

    fn end(self) -> Result<(), EmitError> {
        Ok(())
    }
}
