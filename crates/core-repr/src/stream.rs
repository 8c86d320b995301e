//! An answer written while its one long collection is read (`x-streamed`, D-59): the answer is
//! cut around that collection's items, and each item is written as it reads in place, so that
//! the pieces put together are byte for byte the answer written whole.
//!
//! The cut comes from the whole answer with one item: the answer with its first item is written
//! through the tree (`Codec::encode`), the item alone by the writers of `emit` at its depth, and
//! the item's bytes are found in the answer's exactly once. Both ways write the same bytes (the
//! invariant of `emit`), so what comes before the item is the prefix and what comes after it the
//! suffix, whatever the representation.
//!
//! A tree (classifications with their nodes) is cut the same way at each item that has
//! children: the item with its first child in its child collection, cut around that child, gives
//! what comes before its children and what comes after them.

use core_api_support::{Field, Kind, Representation, Schema, Type};
use serde::Serialize;
use serde_json::Value;

use super::{Codec, EncodeError, emit};

/// Where a streamed collection sits in its answer.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    /// Its path in property names from what holds it: the answer's root, or for a child
    /// collection, the item whose children it holds.
    path: &'static [&'static str],
    /// How deep its items' elements are in the document (the root element is at 0).
    depth: usize,
    /// The repeated property holding the items.
    field: &'static Field,
    /// The schema of an item.
    schema: &'static Schema,
}

impl Place {
    /// The repeated object property at `path` below `root`, as the tables describe it.
    pub fn find(root: &'static Schema, path: &'static [&'static str]) -> Option<Place> {
        Place::below(root, path, 0)
    }

    /// The collection of an item's children, at `path` below the item (`nodes`, `node`).
    pub fn children(&self, path: &'static [&'static str]) -> Option<Place> {
        Place::below(self.schema, path, self.depth)
    }

    /// The fault of writing the collection here.
    fn fault(&self, reason: &str) -> EncodeError {
        EncodeError {
            path: self.path.join("/"),
            reason: reason.into(),
        }
    }

    /// The repeated object property at `path` below `schema`, whose element is at `depth`.
    fn below(
        schema: &'static Schema,
        path: &'static [&'static str],
        depth: usize,
    ) -> Option<Place> {
        let mut schema = schema;
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
            depth: depth + path.len(),
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
        self.separate(representation, first, out);
        match representation {
            Representation::Json => serde_json::to_writer(&mut *out, item).map_err(json),
            Representation::Compact => emit::compact::write_into(item, place.schema, out),
            Representation::Xml => {
                emit::xml::write_element(item, place.field.xml_name, place.schema, place.depth, out)
            }
            Representation::Binary => Err(EncodeError {
                path: String::new(),
                reason: "a message is not binary".into(),
            }),
        }
    }

    /// Appends the separator that comes before an item of a collection unless it is the `first`:
    /// a comma in JSON, nothing in XML.
    pub fn separate(&self, representation: Representation, first: bool, out: &mut Vec<u8>) {
        if !first && representation != Representation::Xml {
            out.push(b',');
        }
    }

    /// Cuts `item`, an item at `place` whose child collection at `children` holds no child, around
    /// `child`, its first child, whose bytes `encode_item` wrote as `written`: what comes before
    /// its children (separator excluded) and what comes after them.
    pub fn frame_item<I: Serialize, C: Serialize>(
        &self,
        representation: Representation,
        (item, place): (&I, &Place),
        children: &Place,
        (child, written): (&C, &[u8]),
    ) -> Result<Frame, EncodeError> {
        let tree = with_first(item, children, child)?;
        let mut whole = Vec::new();
        self.encode_item(representation, &tree, place, true, &mut whole)?;
        cut(whole, written).ok_or_else(|| {
            children.fault("the first child is not found exactly once in its parent")
        })
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
        let tree = with_first(envelope, place, first)?;
        let whole = self.encode(representation, tree, schema)?;
        cut(whole, item)
            .ok_or_else(|| place.fault("the first item is not found exactly once in its answer"))
    }
}

/// `holder` (an answer, or an item) as a tree whose collection at `place`, empty in it, holds
/// `first`.
fn with_first<T: Serialize, I: Serialize>(
    holder: &T,
    place: &Place,
    first: &I,
) -> Result<Value, EncodeError> {
    let mut tree = serde_json::to_value(holder).map_err(|error| place.fault(&error.to_string()))?;
    let items = collection(&mut tree, place.path)
        .ok_or_else(|| place.fault("its holder has no such collection as an array"))?;
    items.push(serde_json::to_value(first).map_err(|error| place.fault(&error.to_string()))?);
    Ok(tree)
}

/// The array at `path` in `tree`.
fn collection<'t>(tree: &'t mut Value, path: &[&str]) -> Option<&'t mut Vec<Value>> {
    let mut at = tree;
    for step in path {
        at = at.get_mut(*step)?;
    }
    match at {
        Value::Array(items) => Some(items),
        _ => None,
    }
}

/// `whole` cut around `item`, when it holds it exactly once.
fn cut(whole: Vec<u8>, item: &[u8]) -> Option<Frame> {
    let start = memchr::memmem::find(&whole, item)?;
    if memchr::memmem::rfind(&whole, item) != Some(start) {
        return None;
    }
    Some(Frame {
        prefix: whole[..start].to_vec(),
        suffix: whole[start + item.len()..].to_vec(),
    })
}
