//! The authored document, loaded twice: as `openapiv3` types (for operations and for progenitor)
//! and as a raw JSON tree in document order (for what `openapiv3` drops: `xml` objects, and the
//! order of properties, which is the XML child order).

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

/// The document in both forms.
pub struct Document {
    /// The parsed OpenAPI document.
    pub openapi: openapiv3::OpenAPI,
    /// The same document as a JSON tree, keys in document order.
    pub raw: Value,
}

impl Document {
    /// Parses the YAML text of the document.
    pub fn parse(yaml: &str) -> Result<Document> {
        let raw: Value = serde_yaml::from_str(yaml).context("the document is not valid YAML")?;
        let openapi: openapiv3::OpenAPI = serde_json::from_value(raw.clone())
            .context("the document does not parse as OpenAPI 3.0 (openapiv3)")?;
        if !openapi.openapi.starts_with("3.0.") {
            bail!(
                "the document declares OpenAPI {}, expected 3.0.x",
                openapi.openapi
            );
        }
        Ok(Document { openapi, raw })
    }

    /// The component schemas in document order.
    pub fn schemas(&self) -> Result<&Map<String, Value>> {
        self.raw
            .pointer("/components/schemas")
            .and_then(Value::as_object)
            .context("the document has no components.schemas")
    }

    /// A component schema by name.
    pub fn schema(&self, name: &str) -> Result<&Value> {
        self.schemas()?
            .get(name)
            .with_context(|| format!("no component schema named {name}"))
    }

    /// The pattern every string is held to (`x-text-pattern`), which the codecs check themselves.
    pub fn text_pattern(&self) -> Result<&str> {
        self.raw
            .pointer("/x-text-pattern/pattern")
            .and_then(Value::as_str)
            .context("the document has no x-text-pattern.pattern")
    }

    /// Follows a `$ref` (to a schema, a response or a parameter) within the document.
    pub fn resolve<'a>(&'a self, value: &'a Value) -> Result<&'a Value> {
        let mut value = value;
        for _ in 0..16 {
            match value.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    let pointer = reference.strip_prefix('#').with_context(|| {
                        format!("external reference {reference} is not supported")
                    })?;
                    value = self
                        .raw
                        .pointer(pointer)
                        .with_context(|| format!("dangling reference {reference}"))?;
                }
                None => return Ok(value),
            }
        }
        bail!("reference chain too long")
    }
}

/// The keywords of a schema that the generated tables enforce (lengths, counts, bounds, patterns,
/// rules), left out of the copy the type generators see: typify would turn each constrained
/// string into a newtype of its own and each rule into an enum of variants, while the codecs check
/// them from the tables, with the path and wording of every refusal.
const ENFORCED_BY_TABLES: [&str; 9] = [
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "minimum",
    "maximum",
    "pattern",
    "not",
    "anyOf",
];

/// A schema as the type generators (typify, progenitor) are given it: the keywords of
/// [`ENFORCED_BY_TABLES`] removed at every depth, and the rules of an object (`allOf` and `oneOf`
/// beside `properties`) too. `allOf` with a single reference (an alias such as ServiceType) stays.
/// A map of schemas (`components.schemas`, `properties`) keeps its keys.
pub fn for_types(schema: &Value) -> Value {
    let Value::Object(object) = schema else {
        return schema.clone();
    };
    let rules = object.contains_key("properties");
    let mut out = Map::new();
    for (key, value) in object {
        let dropped = ENFORCED_BY_TABLES.contains(&key.as_str())
            || (rules && matches!(key.as_str(), "allOf" | "oneOf"));
        let kept = match (key.as_str(), value) {
            _ if dropped => continue,
            ("properties", Value::Object(map)) => Value::Object(schemas(map)),
            ("items" | "additionalProperties" | "schema", _) => for_types(value),
            ("allOf" | "oneOf", Value::Array(list)) => {
                Value::Array(list.iter().map(for_types).collect())
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), kept);
    }
    Value::Object(out)
}

/// Each schema of a map of named schemas (`components.schemas`, `components.parameters`,
/// `properties`) as [`for_types`] gives it.
pub fn schemas(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .map(|(name, schema)| (name.clone(), for_types(schema)))
        .collect()
}

/// The media type of binary content.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// The representation a media type of the document stands for; the variants are those of
/// `core_api_support::Representation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Representation {
    Xml,
    Json,
    Compact,
    Binary,
}

impl Representation {
    /// The representation of a media type name (parameters such as `charset` ignored).
    pub fn of(media: &str) -> Option<Representation> {
        match media.split(';').next().unwrap_or(media).trim() {
            "application/xml" => Some(Representation::Xml),
            "application/json" => Some(Representation::Json),
            "application/json+compact" => Some(Representation::Compact),
            OCTET_STREAM => Some(Representation::Binary),
            _ => None,
        }
    }
}

/// The component name a `$ref` to a schema points at.
pub fn schema_ref_name(value: &Value) -> Option<&str> {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
}

/// `keywordsPersist` → `keywords_persist`.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (index, ch) in name.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else if ch == '-' {
            out.push('_');
        } else {
            out.push(ch);
        }
    }
    out
}

/// `keywordsPersist` → `KEYWORDS_PERSIST`.
pub fn screaming_case(name: &str) -> String {
    snake_case(name).to_ascii_uppercase()
}

/// `keywordsPersist` → `KeywordsPersist`.
pub fn pascal_case(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases() {
        assert_eq!(snake_case("keywordsPersist"), "keywords_persist");
        assert_eq!(snake_case("ChannelQueryDto"), "channel_query_dto");
        assert_eq!(screaming_case("PimType"), "PIM_TYPE");
        assert_eq!(pascal_case("getClasses"), "GetClasses");
    }
}
