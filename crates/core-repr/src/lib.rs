//! The representation engine: three codecs driven by the tables generated from the document.
//!
//! A request body is read straight from its text into the generated typed value
//! ([`Codec::decode_typed`]); an answer is written straight from its typed value
//! ([`Codec::encode_typed`]). Between them stands one tree, a `serde_json::Value` in the
//! default-JSON form checked against the schema tables: the reference every reader and writer is
//! held to ([`Codec::decode_reference`], [`Codec::encode`]), what the client and the conformance
//! runner read answers into, and what the server writes its own error bodies from. XML and
//! compact JSON are rewrites driven only by the tables (`xml` objects and `x-compact`), so a field
//! added to the document is handled by all three codecs after `cargo xtask codegen`.

pub mod compact;
pub mod constraints;
pub mod emit;
pub mod error;
pub mod json;
pub mod path;
pub mod stream;
pub mod text;
pub mod tree;
pub mod xml;

use core_api_support::{Representation, Schema};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use error::{DecodeError, EncodeError, Problem, ProblemClass};

/// Why a binary body is read as no message.
const BINARY_BODY: &str = "a binary body carries no message";

/// Limits applied while decoding.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The deepest nesting of elements or objects accepted.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_depth: 64 }
    }
}

/// Decodes and encodes messages for one server configuration.
#[derive(Debug, Clone)]
pub struct Codec {
    namespace: String,
    limits: Limits,
}

impl Codec {
    /// A codec writing and expecting the given XML namespace.
    pub fn new(namespace: impl Into<String>, limits: Limits) -> Codec {
        Codec {
            namespace: namespace.into(),
            limits,
        }
    }

    /// Decodes a body into the checked default-JSON tree of `schema`.
    pub fn decode(
        &self,
        representation: Representation,
        bytes: &[u8],
        schema: &'static Schema,
    ) -> Result<Value, DecodeError> {
        let mut value = match representation {
            Representation::Xml => {
                xml::read::<Value>(bytes, schema, &self.namespace, &self.limits)?
            }
            Representation::Json => json::parse(bytes, &self.limits)?,
            Representation::Compact => {
                compact::from_compact(json::parse(bytes, &self.limits)?, schema)?
            }
            Representation::Binary => {
                return Err(DecodeError::whole(Problem::Malformed(BINARY_BODY.into())));
            }
        };
        tree::check(&value, schema, self.limits.max_depth)?;
        tree::order_map_items(&mut value, schema);
        Ok(value)
    }

    /// Decodes a body straight into the typed value of `schema`. XML, JSON and compact JSON go
    /// from their text to the type without building the tree when the message is regular
    /// (`xml::stream`, `json::stream`). A compact body the fast path declines is rewritten as
    /// default-JSON text (`json::rewrite_compact`), and a JSON body it declines is walked for
    /// the reference's error (`json::first_error`), then read again, grouping map-form items
    /// (`json::stream::read_traced`): none of them builds the tree.
    pub fn decode_typed<T: DeserializeOwned>(
        &self,
        representation: Representation,
        bytes: &[u8],
        schema: &'static Schema,
    ) -> Result<T, DecodeError> {
        match representation {
            Representation::Xml => xml::read::<T>(bytes, schema, &self.namespace, &self.limits),
            Representation::Json => self.read_json(bytes, schema),
            Representation::Compact => {
                match json::stream::read_compact(bytes, schema, &self.limits) {
                    Some(value) => Ok(value),
                    None => {
                        let text = json::rewrite_compact(bytes, schema, &self.limits)?;
                        self.read_declined(text.as_bytes(), schema)
                    }
                }
            }
            Representation::Binary => {
                Err(DecodeError::whole(Problem::Malformed(BINARY_BODY.into())))
            }
        }
    }

    /// Reads a default-JSON body: the fast path, else [`Codec::read_declined`].
    fn read_json<T: DeserializeOwned>(
        &self,
        bytes: &[u8],
        schema: &'static Schema,
    ) -> Result<T, DecodeError> {
        match json::stream::read(bytes, schema, &self.limits) {
            Some(value) => Ok(value),
            None => self.read_declined(bytes, schema),
        }
    }

    /// Reads a default-JSON body the fast path declined (or would: the rewrite of a compact
    /// body it declined): the error walk, then the second reading.
    fn read_declined<T: DeserializeOwned>(
        &self,
        bytes: &[u8],
        schema: &'static Schema,
    ) -> Result<T, DecodeError> {
        if let Some(error) = json::first_error(bytes, schema, &self.limits) {
            return Err(error);
        }
        // The second reading declines only what the tables never hold (`json::stream`'s
        // `every_schema_fits_the_fast_path`): a message it declined would be a fault of the
        // readers, which the property tests and fuzz targets look for against the reference.
        json::stream::read_traced(bytes, schema, &self.limits).map_err(|error| {
            error.unwrap_or_else(|| {
                DecodeError::whole(Problem::Malformed("no reader takes this message".into()))
            })
        })
    }

    /// Decodes a body into the typed value of `schema` through the reference readers only (the
    /// checked tree; for XML its node arena): what the server's readers are held to (property
    /// tests, fuzz targets, `contract-tests` `request_errors.rs`). The server never calls it; an
    /// XML body the fast path declines is read by the node arena inside `xml::read`.
    pub fn decode_reference<T: DeserializeOwned>(
        &self,
        representation: Representation,
        bytes: &[u8],
        schema: &'static Schema,
    ) -> Result<T, DecodeError> {
        match representation {
            Representation::Xml => {
                xml::read_reference::<T>(bytes, schema, &self.namespace, &self.limits)
            }
            // The tree is moved into the value without tracking the path; the rare failure
            // (an enumeration or a pattern) is decoded again with the path, to name it.
            _ => match T::deserialize(self.decode(representation, bytes, schema)?) {
                Ok(value) => Ok(value),
                Err(_) => typed(self.decode(representation, bytes, schema)?),
            },
        }
    }

    /// Encodes a typed answer straight from the value, in one pass: the generated types
    /// serialize in the default-JSON form (properties in schema order, collections present,
    /// defaults left out; `xtask` `codegen/types.rs`), which serde_json writes as it is, and
    /// which the writers of `emit` turn into XML and compact JSON as it comes. Each writes what
    /// [`Codec::encode`] makes of the value's tree, byte for byte (`contract-tests`
    /// `tests/document.rs` on every example, `tests/representations.rs` on generated messages).
    pub fn encode_typed<T: serde::Serialize>(
        &self,
        representation: Representation,
        value: T,
        schema: &'static Schema,
    ) -> Result<Vec<u8>, EncodeError> {
        match representation {
            Representation::Json => serde_json::to_vec(&value).map_err(|error| EncodeError {
                path: String::new(),
                reason: error.to_string(),
            }),
            Representation::Xml => {
                emit::xml::write(&value, schema, &self.namespace).map(String::into_bytes)
            }
            Representation::Compact => emit::compact::write(&value, schema),
            Representation::Binary => Err(EncodeError {
                path: String::new(),
                reason: "a message is not binary".into(),
            }),
        }
    }

    /// Encodes a default-JSON tree of `schema` (as the server produced it) in a representation.
    pub fn encode(
        &self,
        representation: Representation,
        mut value: Value,
        schema: &'static Schema,
    ) -> Result<Vec<u8>, EncodeError> {
        tree::normalize(&mut value, schema);
        match representation {
            Representation::Xml => {
                xml::write(&value, schema, &self.namespace).map(String::into_bytes)
            }
            Representation::Json => to_json(&value),
            Representation::Compact => to_json(&compact::to_compact(value, schema)?),
            Representation::Binary => Err(EncodeError {
                path: String::new(),
                reason: "a message is not binary".into(),
            }),
        }
    }
}

/// Turns a checked tree into its typed value; what the tables do not check (enumerations,
/// patterns) is reported with its path.
pub fn typed<T: DeserializeOwned>(value: Value) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        DecodeError::at(
            path_of(error.path()),
            Problem::Malformed(error.into_inner().to_string()),
        )
    })
}

/// The path of a typed conversion's error, in the words of every other error (`kwds/kwd[2]/id`).
fn path_of(segments: &serde_path_to_error::Path) -> String {
    let mut path = path::Path::new();
    let mut pending: Option<String> = None;
    for segment in segments.iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => match pending.take() {
                Some(name) => path.push_item(&name, *index),
                None => path.push(&format!("[{}]", index + 1)),
            },
            serde_path_to_error::Segment::Map { key }
            | serde_path_to_error::Segment::Enum { variant: key } => {
                if let Some(name) = pending.replace(key.clone()) {
                    path.push(&name);
                }
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    if let Some(name) = pending {
        path.push(&name);
    }
    path.as_str().to_string()
}

fn to_json(value: &Value) -> Result<Vec<u8>, EncodeError> {
    serde_json::to_vec(value).map_err(|error| EncodeError {
        path: String::new(),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests;
