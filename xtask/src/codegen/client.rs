//! The Rust client, with progenitor, for the JSON representation.
//!
//! progenitor 0.15 cannot read the document as it is: it panics on a request body with several
//! media types (`todo!`: "more media types than expected"), and asserts that all error answers
//! of an operation share one type. It is therefore fed a filtered copy in which
//! * every request body keeps only `application/json`;
//! * the constraints the server's tables enforce (lengths, counts, bounds, patterns, rules) are
//!   left out, so that strings stay strings and request types stay structs;
//! * an operation whose error answers have different schemas (transform and messages persist
//!   answer 400 with ResponsesType, other errors with ResponseType) gets a synthetic schema
//!   `<OperationId>Error`, `oneOf` those schemas, for all its error answers.

use std::collections::BTreeSet;

use anyhow::{Context, Result, anyhow};
use serde_json::{Value, json};

use crate::document::{Document, pascal_case, schema_ref_name, schemas};

/// Generates the client's `lib.rs` body.
pub fn generate(document: &Document) -> Result<proc_macro2::TokenStream> {
    let filtered = filter(document)?;
    let spec: openapiv3::OpenAPI =
        serde_json::from_value(filtered).context("the filtered document")?;
    let mut settings = progenitor::GenerationSettings::default();
    settings.with_interface(progenitor::InterfaceStyle::Positional);
    settings.with_map_type("::std::collections::BTreeMap");
    let generated = std::panic::catch_unwind(move || {
        let mut generator = progenitor::Generator::new(&settings);
        generator
            .generate_tokens(&spec)
            .map_err(|error| anyhow!("{error}"))
    });
    match generated {
        Ok(result) => result.context("progenitor rejected the document"),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(anyhow!("progenitor panicked: {message}"))
        }
    }
}

/// The copy of the document progenitor is given.
pub fn filter(document: &Document) -> Result<Value> {
    let mut raw = document.raw.clone();
    let mut synthetic = Vec::new();
    let paths = raw
        .get_mut("paths")
        .and_then(Value::as_object_mut)
        .context("no paths")?;
    for item in paths.values_mut() {
        for operation in item.as_object_mut().context("path item")?.values_mut() {
            if let Some(content) = operation
                .pointer_mut("/requestBody/content")
                .and_then(Value::as_object_mut)
            {
                content.retain(|name, _| name == "application/json");
            }
            let id = operation
                .get("operationId")
                .and_then(Value::as_str)
                .context("operationId")?
                .to_string();
            let Some(responses) = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let mut error_schemas = BTreeSet::new();
            for (status, response) in responses.iter() {
                if status.starts_with('4') || status.starts_with('5') {
                    let response = document.resolve(response)?;
                    if let Some(name) = response
                        .pointer("/content/application~1json/schema")
                        .and_then(schema_ref_name)
                    {
                        error_schemas.insert(name.to_string());
                    }
                }
            }
            if error_schemas.len() > 1 {
                let name = format!("{}Error", pascal_case(&id));
                let one_of: Vec<Value> = error_schemas
                    .iter()
                    .map(|schema| json!({"$ref": format!("#/components/schemas/{schema}")}))
                    .collect();
                synthetic.push((name.clone(), json!({
                    "description": format!("An error answer of {id}: one of {}.", error_schemas.iter().cloned().collect::<Vec<_>>().join(", ")),
                    "oneOf": one_of,
                })));
                for (status, response) in responses.iter_mut() {
                    if status.starts_with('4') || status.starts_with('5') {
                        let description = document
                            .resolve(response)?
                            .get("description")
                            .cloned()
                            .unwrap_or_else(|| json!("error"));
                        *response = json!({
                            "description": description,
                            "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{name}")}}},
                        });
                    }
                }
            }
        }
    }
    // The constraints the server's tables enforce are left out, as for the server's types.
    for pointer in ["/components/schemas", "/components/parameters"] {
        if let Some(Value::Object(section)) = raw.pointer_mut(pointer) {
            *section = schemas(section);
        }
    }
    let schemas = raw
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .context("no components.schemas")?;
    for (name, schema) in synthetic {
        schemas.insert(name, schema);
    }
    Ok(raw)
}

/// The client crate's manifest (`{version}`: the contract's version).
pub const CLIENT_MANIFEST: &str = r#"[package]
name = "core-client"
description = "Rust client for the Core Interface v1 in XML, JSON and compact JSON, generated from openapi/core-v1.yaml (progenitor, and the core-repr engine for the representations)."
version = "{version}"
edition = "2024"
rust-version = "1.88"
license = "MIT OR Apache-2.0"
keywords = ["pim", "dam", "openapi", "client"]
categories = ["api-bindings", "web-programming::http-client"]
readme = "README.md"

# Doc comments carry the document's descriptions, which are prose, not Rust.
[lib]
doctest = false

[dependencies]
bytes = "1"
core-api-support = { path = "../../crates/core-api-support", version = "0.1.0", default-features = false }
core-repr = { path = "../../crates/core-repr", version = "0.1.0" }
core-tables = { path = "../core-tables", version = "0.1.0" }
futures-core = "0.3"
progenitor-client = "0.15.1"
regress = "0.10"
reqwest = { version = "0.13", default-features = false, features = ["json", "query", "stream"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
serde_urlencoded = "0.7"
tokio = { version = "1", features = ["time"] }
uuid = { version = "1", features = ["v4"] }

[dev-dependencies]
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
"#;
