//! A typed answer written as compact JSON, as `repr::compact::to_compact` rewrites its tree.
//!
//! Objects whose schema keeps the default-JSON shape (`x-compact` absent) or renames its items
//! to `entries` are written as they are serialized. An object in the `map` or `val` form depends
//! on all its items at once (repeated keys become arrays, a single value is collapsed): it is
//! small (the `meta` or `vals` of one record), so it alone is taken as a tree and rewritten by
//! `compact::to_compact`. Scalars and objects without fields are written by serde_json itself.

use core_api_support::{Compact, Field, Kind, Schema, Type};
use serde::ser::{self, Serialize, SerializeSeq};

use super::{EmitError, Object, Visit, one_shape};
use crate::{
    compact::{ENTRIES, to_compact},
    error::EncodeError,
    path::Path,
};

/// Writes `value`, whose schema is `schema`, as compact JSON.
pub fn write<T: Serialize + ?Sized>(
    value: &T,
    schema: &'static Schema,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(1024);
    write_into(value, schema, &mut out)?;
    Ok(out)
}

/// Appends `value`, whose schema is `schema`, to `out` as compact JSON: as a message, or as an
/// item of a collection (an item reads the same in place).
pub fn write_into<T: Serialize + ?Sized>(
    value: &T,
    schema: &'static Schema,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let mut writer = Writer {
        out: std::mem::take(out),
        path: Path::new(),
    };
    let written = writer.value(value, Type::Object(schema));
    *out = writer.out;
    written.map_err(|fault| EncodeError {
        path: writer.path.as_str().to_string(),
        reason: fault.into_reason(),
    })
}

struct Writer {
    out: Vec<u8>,
    path: Path,
}

impl Writer {
    /// Writes one value of type `ty` (an item, for a repeated property).
    fn value<T: Serialize + ?Sized>(&mut self, value: &T, ty: Type) -> Result<(), EmitError> {
        let Type::Object(schema) = ty else {
            return self.json(value);
        };
        let schema = schema.resolve();
        let Kind::Object(fields) = schema.kind else {
            return self.json(value);
        };
        let items = match schema.compact {
            Compact::Same => None,
            Compact::Entries { items } => Some(items),
            Compact::Map { .. } | Compact::Val { .. } => return self.rewritten(value, schema),
        };
        self.out.push(b'{');
        let mut members = Members {
            writer: self,
            items,
            first: true,
        };
        value.serialize(Object::new(&mut members, fields))?;
        self.out.push(b'}');
        Ok(())
    }

    /// Writes a value as serde_json writes it.
    fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EmitError> {
        value
            .serialize(&mut serde_json::Serializer::new(&mut self.out))
            .map_err(|error| EmitError(error.to_string()))
    }

    /// Writes an object of the `map` or `val` form through its tree.
    fn rewritten<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        schema: &'static Schema,
    ) -> Result<(), EmitError> {
        let tree = serde_json::to_value(value).map_err(|error| EmitError(error.to_string()))?;
        let compact = to_compact(tree, schema).map_err(|error| EmitError(error.reason))?;
        self.json(&compact)
    }
}

/// The properties of an object, written as they come.
struct Members<'w> {
    writer: &'w mut Writer,
    /// The property renamed `entries` (a collection's items).
    items: Option<&'static str>,
    first: bool,
}

impl Visit for Members<'_> {
    fn property<T: Serialize + ?Sized>(
        &mut self,
        field: &'static Field,
        value: &T,
    ) -> Result<(), EmitError> {
        let writer = &mut *self.writer;
        if !self.first {
            writer.out.push(b',');
        }
        self.first = false;
        let key = if self.items == Some(field.name) {
            ENTRIES
        } else {
            field.name
        };
        writer.json(key)?;
        writer.out.push(b':');
        match field.ty {
            Type::Object(schema) if field.repeated => value.serialize(Items {
                writer,
                field,
                schema,
                index: 0,
            }),
            ty => {
                writer.path.push(field.name);
                writer.value(value, ty)?;
                writer.path.pop();
                Ok(())
            }
        }
    }
}

/// The items of a repeated object property, each written as its schema's form says.
struct Items<'w> {
    writer: &'w mut Writer,
    field: &'static Field,
    schema: &'static Schema,
    index: usize,
}

impl<'w> ser::Serializer for Items<'w> {
    one_shape!(seq "an array");

    fn serialize_seq(self, _: Option<usize>) -> Result<Self, EmitError> {
        self.writer.out.push(b'[');
        Ok(self)
    }
}

impl SerializeSeq for Items<'_> {
    type Ok = ();
    type Error = EmitError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EmitError> {
        if self.index > 0 {
            self.writer.out.push(b',');
        }
        self.writer.path.push_item(self.field.name, self.index);
        self.index += 1;
        self.writer.value(value, Type::Object(self.schema))?;
        self.writer.path.pop();
        Ok(())
    }

    fn end(self) -> Result<(), EmitError> {
        self.writer.out.push(b']');
        Ok(())
    }
}
