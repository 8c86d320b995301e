//! The XML representation, driven by the schema tables (attribute, child element or text; scalar
//! type; repetition; order).
//!
//! Reading is two steps: the message becomes a compact arena of checked nodes (`dom`), which a
//! table-driven serde `Deserializer` (`de`) turns into the generated typed value directly — or
//! into the tree, when that is wanted. Writing (`write`) goes from the tree.

pub mod de;
pub mod dom;
pub mod write;

use core_api_support::Schema;
use serde::de::DeserializeOwned;

pub use write::{find_forbidden, is_xml_char, write};

use super::{
    Limits,
    error::{DecodeError, Problem},
};

/// Reads an XML message whose root is described by `schema` into any deserializable value: the
/// generated type, or `serde_json::Value` for the tree.
pub fn read<T: DeserializeOwned>(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
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
    let dom = dom::read(
        text,
        schema,
        root.name,
        root.namespace.map(|_| namespace),
        limits,
    )?;
    T::deserialize(de::Element { dom: &dom, id: 0 }).map_err(DecodeError::from)
}
