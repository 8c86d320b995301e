//! The XML representation, driven by the schema tables (attribute, child element or text; scalar
//! type; repetition; order).
//!
//! Reading takes one pass from the fast path's own tokenizer (`scan`) into the typed value
//! (`stream`) for the regular message. Anything irregular, and every error, goes to the
//! reference reader: the message becomes a compact arena of checked nodes (`dom`), which a
//! table-driven serde `Deserializer` (`de`) turns into the typed value — or into the tree, when
//! that is wanted — and which words the errors. Writing (`write`) goes from the tree.

pub mod de;
pub mod dom;
mod scan;
mod stream;
pub mod write;

use core_api_support::Schema;
use serde::de::DeserializeOwned;

pub use write::write;

use super::{
    Limits,
    error::{DecodeError, Problem},
    text::find_forbidden,
};

/// Reads an XML message whose root is described by `schema` into any deserializable value: the
/// generated type, or `serde_json::Value` for the tree.
pub fn read<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
) -> Result<T, DecodeError> {
    let message = Message::of(bytes, schema, namespace)?;
    match stream::read(
        message.text,
        schema,
        message.root,
        message.namespace,
        limits,
    ) {
        Some(value) => Ok(value),
        None => message.read_reference(schema, limits),
    }
}

/// Reads as `read` does, through the reference reader only: what the fast path is checked
/// against (fuzz target `decode_xml`, property tests).
pub fn read_reference<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
) -> Result<T, DecodeError> {
    Message::of(bytes, schema, namespace)?.read_reference(schema, limits)
}

/// Reads as `read` does, through the fast path only: `None` where `read` hands the message to
/// the reference reader (the contract test holding every request example to the fast path).
pub fn read_fast<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
) -> Option<T> {
    let message = Message::of(bytes, schema, namespace).ok()?;
    stream::read(
        message.text,
        schema,
        message.root,
        message.namespace,
        limits,
    )
}

/// A message's text once the checks both readers make first have passed, and what its root must
/// be.
struct Message<'a> {
    text: &'a str,
    root: &'static str,
    namespace: Option<&'a str>,
}

impl<'a> Message<'a> {
    fn of(
        bytes: &'a [u8],
        schema: &'static Schema,
        namespace: &'a str,
    ) -> Result<Message<'a>, DecodeError> {
        let text = std::str::from_utf8(bytes).map_err(|error| {
            DecodeError::whole(Problem::InvalidUtf8 {
                offset: error.valid_up_to(),
            })
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if let Some(ch) = find_forbidden(text) {
            return Err(DecodeError::whole(Problem::ForbiddenCharacter(ch)));
        }
        if text.trim().is_empty() {
            return Err(DecodeError::whole(Problem::Empty));
        }
        let root = schema.xml_root().ok_or_else(|| {
            DecodeError::whole(Problem::Malformed(format!(
                "{} has no XML representation",
                schema.name
            )))
        })?;
        Ok(Message {
            text,
            root: root.name,
            namespace: root.namespace.map(|_| namespace),
        })
    }

    fn read_reference<T: DeserializeOwned>(
        &self,
        schema: &'static Schema,
        limits: &Limits,
    ) -> Result<T, DecodeError> {
        let dom = dom::read(self.text, schema, self.root, self.namespace, limits)?;
        T::deserialize(de::Element { dom: &dom, id: 0 }).map_err(DecodeError::from)
    }
}
