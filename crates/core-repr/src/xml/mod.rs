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
    read_with(bytes, schema, namespace, limits, true)
}

/// Reads as `read` does, through the reference reader only: what the fast path is checked
/// against (fuzz target `decode_xml`, property tests).
pub fn read_reference<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
) -> Result<T, DecodeError> {
    read_with(bytes, schema, namespace, limits, false)
}

fn read_with<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
    fast: bool,
) -> Result<T, DecodeError> {
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
    let namespace = root.namespace.map(|_| namespace);
    if fast && let Some(value) = stream::read(text, schema, root.name, namespace, limits) {
        return Ok(value);
    }
    let dom = dom::read(text, schema, root.name, namespace, limits)?;
    T::deserialize(de::Element { dom: &dom, id: 0 }).map_err(DecodeError::from)
}
