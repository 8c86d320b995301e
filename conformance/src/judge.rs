//! How the checks judge an answer: its body against the published document's schemas (an
//! independent JSON Schema validator), in each representation decoded by the reference codec,
//! with the values the server generates redacted so that answers compare.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

use core_api_support::{Representation, Schema};
use core_repr::{Codec, Limits};
use serde_json::{Value, json};

use crate::{Answer, Fail};

/// The published document (`/openapi.json`) as a JSON tree.
pub fn published() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT
        .get_or_init(|| serde_json::from_str(core_api::document::OPENAPI_JSON).unwrap_or_default())
}

/// Fails unless `value` is valid against the published component schema `name` (draft 4, as
/// OpenAPI 3.0 reads it).
pub fn valid(name: &str, value: &Value) -> Result<(), Fail> {
    static VALIDATORS: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> =
        OnceLock::new();
    let validator = {
        let mut validators = VALIDATORS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match validators.get(name) {
            Some(validator) => validator.clone(),
            None => {
                let document = published();
                let root = json!({
                    "$ref": format!("#/components/schemas/{name}"),
                    "components": {"schemas": document["components"]["schemas"].clone()},
                });
                let validator = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft4)
                    .build(&root)
                    .map_err(|error| {
                        Fail::because(format!("the schema {name} does not compile: {error}"))
                    })?;
                let validator = Arc::new(validator);
                validators.insert(name.to_string(), validator.clone());
                validator
            }
        }
    };
    let errors: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Fail::because(format!(
            "the body is not a valid {name}: {}",
            errors.join("; ")
        )))
    }
}

/// The reference codec (core-server's engine) for the document's default namespace.
pub fn codec() -> Codec {
    Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, Limits::default())
}

/// An answer's body in any representation as its default-JSON tree, read by the reference
/// codec, which checks it against the schema's tables (and validated against the published
/// schema in JSON and compact JSON).
pub fn tree(
    answer: &Answer,
    representation: Representation,
    schema: &'static Schema,
) -> Result<Value, Fail> {
    match representation {
        Representation::Json => {
            let value = answer.json()?;
            valid(schema.name, &value)?;
            Ok(value)
        }
        Representation::Compact => {
            let value = answer.json()?;
            let compact = format!("{}Compact", schema.name);
            if published()["components"]["schemas"].get(&compact).is_some() {
                valid(&compact, &value)?;
            } else {
                valid(schema.name, &value)?;
            }
            decode(representation, &answer.bytes, schema)
        }
        _ => decode(representation, &answer.bytes, schema),
    }
}

/// A body decoded by the reference codec into its default-JSON tree.
pub fn decode(
    representation: Representation,
    bytes: &[u8],
    schema: &'static Schema,
) -> Result<Value, Fail> {
    codec()
        .decode(representation, bytes, schema)
        .map_err(|error| {
            Fail::because(format!(
                "the {representation:?} body does not read as {}: {error}",
                schema.name
            ))
        })
}

/// A default-JSON tree written in a representation by the reference codec.
pub fn encode(
    representation: Representation,
    value: &Value,
    schema: &'static Schema,
) -> Result<Vec<u8>, Fail> {
    codec()
        .encode(representation, value.clone(), schema)
        .map_err(|error| {
            Fail::because(format!(
                "the request does not encode as {representation:?}: {error}"
            ))
        })
}

/// The result records (`responses/response`) of a batch answer's tree.
pub fn records(tree: &Value) -> Vec<Value> {
    tree["responses"]["response"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The value of an item of an error body's first issue (`code`, `description`, `errorMessage`).
pub fn issue_item<'a>(body: &'a Value, key: &str) -> Option<&'a str> {
    let issue = &body["issues"][0];
    issue["itm"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(issue["itms"][0]["itm"].as_array().into_iter().flatten())
        .find(|item| item["key"] == key)
        .and_then(|item| item["value"].as_str())
}

/// Item keys whose text the server generates.
pub const GENERATED_ITEMS: [&str; 6] = [
    "supportId",
    "messageTime",
    "creationDate",
    "modificationDate",
    "newId",
    "newTid",
];

/// Whether a value is generated: a number under `id`/`parentId`, a UUID under `tid`.
pub fn generated_attribute(name: &str, value: &str) -> bool {
    match name {
        "id" | "parentId" => true,
        "tid" => value.len() == 36 && value.matches('-').count() == 4,
        _ => false,
    }
}

/// Replaces the values the server generates (ids, generated tids, timestamps) by `[generated]`,
/// so that answers compare with documented examples and snapshots.
pub fn redact_json(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let generated_item = object
                .get("key")
                .and_then(Value::as_str)
                .is_some_and(|key| GENERATED_ITEMS.contains(&key));
            for (key, value) in object.iter_mut() {
                let text = match value {
                    Value::Number(number) => number.to_string(),
                    Value::String(text) => text.clone(),
                    _ => String::new(),
                };
                if (!text.is_empty() && generated_attribute(key, &text))
                    || (generated_item && key == "value")
                    || (GENERATED_ITEMS.contains(&key.as_str()) && value.is_string())
                {
                    *value = json!("[generated]");
                } else {
                    redact_json(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        _ => {}
    }
}

/// The XML form of [`redact_json`].
pub fn redact_xml(text: &str) -> String {
    let mut out = text.to_string();
    let mut replace = |open: String, close: char, generated: &dyn Fn(&str) -> bool| {
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(&open) {
            let start = at + open.len();
            let end = rest[start..]
                .find(close)
                .map_or(rest.len(), |end| start + end);
            result.push_str(&rest[..start]);
            let value = &rest[start..end];
            result.push_str(if generated(value) {
                "[generated]"
            } else {
                value
            });
            rest = &rest[end..];
        }
        result.push_str(rest);
        out = result;
    };
    for name in ["id", "parentId", "tid"] {
        replace(format!(" {name}=\""), '"', &|value| {
            generated_attribute(name, value)
        });
    }
    for key in GENERATED_ITEMS {
        replace(format!("<itm key=\"{key}\">"), '<', &|_| true);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_replaces_only_generated_values() {
        assert_eq!(
            redact_xml(
                r#"<kwd id="4" path="/a" parentId="3"><meta><itm key="creationDate">2024</itm><itm key="orderNumber">1</itm></meta>"#
            ),
            r#"<kwd id="[generated]" path="/a" parentId="[generated]"><meta><itm key="creationDate">[generated]</itm><itm key="orderNumber">1</itm></meta>"#
        );
        assert_eq!(
            redact_xml(
                r#"<response tid="GE-1"/><response tid="5b0d6c2e-7c1a-4c55-9a53-2f0e1f8b9d11"/>"#
            ),
            r#"<response tid="GE-1"/><response tid="[generated]"/>"#
        );
        let mut value = json!({"id": 4, "meta": {"itm": [{"key": "messageTime", "value": "x"}, {"key": "k", "value": "v"}]}, "m": {"messageTime": "x"}});
        redact_json(&mut value);
        assert_eq!(
            value,
            json!({"id": "[generated]", "meta": {"itm": [{"key": "messageTime", "value": "[generated]"}, {"key": "k", "value": "v"}]}, "m": {"messageTime": "[generated]"}})
        );
    }
}
