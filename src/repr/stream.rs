//! An answer written while its one long collection is read (`x-streamed`, D-59): the answer is
//! cut around that collection's items, and each item is written as it reads in place, so that
//! the pieces put together are byte for byte the answer written whole.
//!
//! The cut comes from the whole answer with one item: the answer with its first item is written
//! through the tree (`Codec::encode`), the item alone by the writers of `emit` at its depth, and
//! the item's bytes are found in the answer's exactly once. Both ways write the same bytes (the
//! invariant of `emit`), so what comes before the item is the prefix and what comes after it the
//! suffix, whatever the representation.

use core_api_support::{Field, Kind, Representation, Schema, Type};
use serde::Serialize;
use serde_json::Value;

use super::{Codec, EncodeError, emit};

/// Where a streamed collection sits in its answer.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// Its path from the answer's root, in property names.
    path: &'static [&'static str],
    /// The repeated property holding the items.
    field: &'static Field,
    /// The schema of an item.
    schema: &'static Schema,
}

impl Place {
    /// The repeated object property at `path` below `root`, as the tables describe it.
    pub fn find(root: &'static Schema, path: &'static [&'static str]) -> Option<Place> {
        let mut schema = root;
        let mut found = None;
        for step in path {
            let Kind::Object(fields) = schema.resolve().kind else {
                return None;
            };
            let field = fields.iter().find(|field| field.name == *step)?;
            let Type::Object(next) = field.ty else {
                return None;
            };
            schema = next;
            found = Some(field);
        }
        let field = found?;
        field.repeated.then_some(Place {
            path,
            field,
            schema,
        })
    }
}

/// An answer cut around its streamed collection's items.
#[derive(Debug)]
pub struct Frame {
    /// Everything before the first item.
    pub prefix: Vec<u8>,
    /// Everything after the last item.
    pub suffix: Vec<u8>,
}

impl Codec {
    /// Appends one item of a streamed collection to `out` as it reads in its answer, after the
    /// separator that comes before every item but the first (a comma in JSON).
    pub fn encode_item<I: Serialize>(
        &self,
        representation: Representation,
        item: &I,
        place: &Place,
        first: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let json = |error: serde_json::Error| EncodeError {
            path: String::new(),
            reason: error.to_string(),
        };
        match representation {
            Representation::Json => {
                if !first {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, item).map_err(json)
            }
            Representation::Compact => {
                if !first {
                    out.push(b',');
                }
                emit::compact::write_into(item, place.schema, out)
            }
            Representation::Xml => emit::xml::write_element(
                item,
                place.field.xml_name,
                place.schema,
                place.path.len(),
                out,
            ),
            Representation::Binary => Err(EncodeError {
                path: String::new(),
                reason: "a message is not binary".into(),
            }),
        }
    }

    /// Cuts the answer `envelope` (its streamed collection empty) around `first`, its first item,
    /// whose bytes `encode_item` wrote as `item`.
    pub fn frame<T: Serialize, I: Serialize>(
        &self,
        representation: Representation,
        envelope: &T,
        schema: &'static Schema,
        place: &Place,
        (first, item): (&I, &[u8]),
    ) -> Result<Frame, EncodeError> {
        let fault = |reason: String| EncodeError {
            path: place.path.join("/"),
            reason,
        };
        let mut tree = serde_json::to_value(envelope).map_err(|error| fault(error.to_string()))?;
        let mut at = &mut tree;
        for step in place.path {
            at = at
                .get_mut(*step)
                .ok_or_else(|| fault("the answer does not hold its streamed collection".into()))?;
        }
        let Value::Array(items) = at else {
            return Err(fault("the streamed collection is not an array".into()));
        };
        items.push(serde_json::to_value(first).map_err(|error| fault(error.to_string()))?);
        let whole = self.encode(representation, tree, schema)?;
        let found = memchr::memmem::find(&whole, item);
        if found.is_none() || found != memchr::memmem::rfind(&whole, item) {
            return Err(fault(
                "the first item is not found exactly once in its answer".into(),
            ));
        }
        let start = found.unwrap_or_default();
        Ok(Frame {
            prefix: whole[..start].to_vec(),
            suffix: whole[start + item.len()..].to_vec(),
        })
    }
}
