//! The representation engine: one message tree, three codecs.
//!
//! Every body decodes into one tree — a `serde_json::Value` in the default-JSON form, checked
//! against the schema tables generated from the document — and from there into the generated
//! typed value; every answer goes the other way. XML and compact JSON are rewrites of that tree
//! driven only by the tables (`xml` objects and `x-compact`), so a field added to the document is
//! handled by all three codecs after `cargo xtask codegen`.

pub mod compact;
pub mod error;
pub mod path;
pub mod tree;
pub mod xml;

use core_api_support::{Representation, Schema};
use serde_json::Value;

pub use error::{DecodeError, EncodeError, Problem, ProblemClass};

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

    /// The configured XML namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Decodes a body into the checked default-JSON tree of `schema`.
    pub fn decode(
        &self,
        representation: Representation,
        bytes: &[u8],
        schema: &'static Schema,
    ) -> Result<Value, DecodeError> {
        let value = match representation {
            Representation::Xml => xml::read(bytes, schema, &self.namespace, &self.limits)?,
            Representation::Json => json(bytes, &self.limits)?,
            Representation::Compact => compact::from_compact(json(bytes, &self.limits)?, schema)?,
            Representation::Binary => {
                return Err(DecodeError::whole(Problem::Malformed(
                    "a binary body carries no message".into(),
                )));
            }
        };
        tree::check(&value, schema, self.limits.max_depth)?;
        Ok(value)
    }

    /// Encodes a default-JSON tree of `schema` (as the server produced it) in a representation.
    pub fn encode(
        &self,
        representation: Representation,
        value: Value,
        schema: &'static Schema,
    ) -> Result<Vec<u8>, EncodeError> {
        let value = tree::normalize(value, schema);
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

/// Parses a JSON body; the root's `xmlns`, if any, is dropped (D-07).
fn json(bytes: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::whole(Problem::Empty));
    }
    if let Err(error) = std::str::from_utf8(bytes) {
        return Err(DecodeError::whole(Problem::InvalidUtf8 {
            offset: error.valid_up_to(),
        }));
    }
    let mut value: Value = serde_json::from_slice(bytes).map_err(|error| {
        // serde_json stops at 128 levels, deeper than our limit: report it as the same problem.
        if error.to_string().starts_with("recursion limit exceeded") {
            DecodeError::whole(Problem::TooDeep {
                limit: limits.max_depth,
            })
        } else {
            DecodeError::whole(Problem::Malformed(error.to_string()))
        }
    })?;
    if let Value::Object(object) = &mut value {
        object.shift_remove(tree::XMLNS);
    }
    Ok(value)
}

fn to_json(value: &Value) -> Result<Vec<u8>, EncodeError> {
    serde_json::to_vec(value).map_err(|error| EncodeError {
        path: String::new(),
        reason: error.to_string(),
    })
}

#[cfg(test)]
mod tests;
