//! The static tables of the representation engine, from the `xml` objects and `x-compact`
//! extensions of the raw document (which `openapiv3` does not keep), and the constraints the codecs
//! enforce: lengths, counts, bounds, patterns and the rules of request objects.

use anyhow::{Context, Result, bail, ensure};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::{
    model::{Operation, QuerySchema},
    rules::{check_rules_reach_no_xml, rules},
    shape::{
        DefaultShape, FieldShape, FieldType, Root, ScalarType, ShapeKind, is_alias, shape, strings,
    },
};
use crate::document::{Document, screaming_case};

/// Generates `tables.rs`: one `static` [`Schema`](core_api_support::Schema) per component schema
/// and query type, and `ALL`, every table in document order.
pub fn generate(document: &Document, operations: &[Operation]) -> Result<TokenStream> {
    let queries: Vec<&QuerySchema> = operations
        .iter()
        .filter_map(|operation| operation.query.as_ref())
        .collect();
    check_rules_reach_no_xml(document, operations)?;
    let mut statics = Vec::new();
    let mut all = Vec::new();
    for (name, schema) in document.schemas()? {
        statics.push(table(document, name, schema).with_context(|| format!("schema {name}"))?);
        all.push(format_ident!("{}", screaming_case(name)));
    }
    for query in queries {
        statics.push(
            table(document, &query.name, &query.schema)
                .with_context(|| format!("query {}", query.name))?,
        );
        all.push(format_ident!("{}", screaming_case(&query.name)));
    }
    Ok(quote! {
        use core_api_support::{
            Compact, Condition, DefaultValue, Field, Kind, Node, Rule, RuleKind, Scalar, Schema, Test,
            Type, XmlRoot,
        };

        #(#statics)*

        /// Every table, in document order (component schemas, then query types).
        pub static ALL: &[&Schema] = &[#(&#all),*];
    })
}

fn table(document: &Document, name: &str, schema: &Value) -> Result<TokenStream> {
    let ident = format_ident!("{}", screaming_case(name));
    let shape = shape(document, name, schema)?;
    let kind = kind(&shape.kind);
    let xml_root = match &shape.xml_root {
        Some(Root { name, namespace }) => {
            let namespace = match namespace {
                Some(namespace) => quote!(Some(#namespace)),
                None => quote!(None),
            };
            quote!(Some(XmlRoot { name: #name, namespace: #namespace }))
        }
        None => quote!(None),
    };
    let compact = compact(document, schema)?;
    let rules = if is_alias(schema) {
        Vec::new()
    } else {
        rules(schema)?
    };
    ensure!(
        schema.get("x-exactly-one-of").is_none(),
        "x-exactly-one-of is stated as an allOf entry holding oneOf alternatives"
    );
    let doc = format!(" The `{name}` schema.");
    Ok(quote! {
        #[doc = #doc]
        pub static #ident: Schema = Schema {
            name: #name,
            kind: #kind,
            xml_root: #xml_root,
            compact: #compact,
            rules: &[#(#rules),*],
        };
    })
}

fn kind(kind: &ShapeKind) -> TokenStream {
    match kind {
        ShapeKind::Alias(target) => {
            let target = format_ident!("{}", screaming_case(target));
            quote!(Kind::Alias(&#target))
        }
        ShapeKind::Map(value) => {
            let value = field(value);
            quote!(Kind::Map(#value))
        }
        ShapeKind::Object(fields) => {
            let fields = fields.iter().map(field);
            quote!(Kind::Object(&[#(#fields),*]))
        }
        ShapeKind::Scalar(scalar) => {
            let scalar = scalar_tokens(*scalar);
            quote!(Kind::Scalar(#scalar))
        }
    }
}

fn field(field: &FieldShape) -> TokenStream {
    let FieldShape {
        name,
        xml_name,
        repeated,
        required,
        batch,
        ..
    } = field;
    let node = format_ident!("{}", format!("{:?}", field.node));
    let ty = match &field.ty {
        FieldType::Scalar(scalar) => {
            let scalar = scalar_tokens(*scalar);
            quote!(Type::Scalar(#scalar))
        }
        FieldType::Object(target) => {
            let target = format_ident!("{}", screaming_case(target));
            quote!(Type::Object(&#target))
        }
    };
    let default = match &field.default {
        None => quote!(None),
        Some(DefaultShape::Boolean(value)) => quote!(Some(DefaultValue::Boolean(#value))),
        Some(DefaultShape::Integer(value)) => quote!(Some(DefaultValue::Integer(#value))),
        Some(DefaultShape::String(value)) => quote!(Some(DefaultValue::String(#value))),
    };
    let allowed = &field.allowed;
    let excluded = &field.excluded;
    let pattern = optional(field.pattern.as_ref());
    let format = optional(field.format.as_ref());
    let message = optional(field.message.as_ref());
    let max_length = optional(field.max_length.as_ref());
    let max_items = optional(field.max_items.as_ref());
    let minimum = optional(field.minimum.as_ref());
    let maximum = optional(field.maximum.as_ref());
    quote! {
        Field {
            name: #name,
            xml_name: #xml_name,
            node: Node::#node,
            ty: #ty,
            repeated: #repeated,
            required: #required,
            default: #default,
            allowed: &[#(#allowed),*],
            pattern: #pattern,
            format: #format,
            max_length: #max_length,
            max_items: #max_items,
            minimum: #minimum,
            maximum: #maximum,
            excluded: &[#(#excluded),*],
            message: #message,
            batch: #batch,
        }
    }
}

/// `Some(value)` or `None`, as tokens.
fn optional<T: quote::ToTokens>(value: Option<&T>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

fn scalar_tokens(scalar: ScalarType) -> TokenStream {
    let ident = format_ident!("{}", format!("{scalar:?}"));
    quote!(Scalar::#ident)
}

fn compact(document: &Document, schema: &Value) -> Result<TokenStream> {
    let Some(extension) = schema.get("x-compact") else {
        return Ok(quote!(Compact::Same));
    };
    let get = |key: &str| {
        extension
            .get(key)
            .and_then(Value::as_str)
            .with_context(|| format!("x-compact needs `{key}`"))
    };
    let items = get("items")?;
    let array = schema
        .pointer(&format!("/properties/{items}"))
        .filter(|property| property.get("type").and_then(Value::as_str) == Some("array"))
        .with_context(|| format!("x-compact items `{items}` is not an array property"))?;
    let item_property = |name: &str| -> Result<()> {
        let item = document.resolve(array.get("items").context("array without items")?)?;
        ensure!(
            item.pointer(&format!("/properties/{name}")).is_some(),
            "the items of `{items}` have no property `{name}`"
        );
        Ok(())
    };
    match get("form")? {
        "entries" => Ok(quote!(Compact::Entries { items: #items })),
        "map" => {
            let (key, value) = (get("key")?, get("value")?);
            item_property(key)?;
            item_property(value)?;
            Ok(quote!(Compact::Map { items: #items, key: #key, value: #value }))
        }
        "val" => {
            let value = get("value")?;
            item_property(value)?;
            let list_types = strings(
                extension
                    .get("listTypes")
                    .context("x-compact val needs listTypes")?,
            )?;
            ensure!(
                schema.pointer("/properties/type").is_some(),
                "x-compact val needs a `type` property"
            );
            Ok(
                quote!(Compact::Val { items: #items, value: #value, list_types: &[#(#list_types),*] }),
            )
        }
        other => bail!("unknown x-compact form {other}"),
    }
}

/// The manifest of `generated/core-tables`: data for the engine, no server.
pub const MANIFEST: &str = r#"[package]
name = "core-tables"
description = "The schema tables and operation metadata generated from openapi/core-v1.yaml, which drive the core-repr codecs in the server and the client."
edition.workspace = true
rust-version.workspace = true
license.workspace = true
version.workspace = true

[lints]
workspace = true

[lib]
doctest = false

[dependencies]
core-api-support = { path = "../../crates/core-api-support", version = "0.1.0", default-features = false }
"#;

/// The `lib.rs` of `generated/core-tables`, with the facts of the document both the server and
/// the client read messages by: the default XML namespace and the media types of error bodies.
pub fn crate_lib(document: &Document) -> Result<TokenStream> {
    let namespace = document
        .raw
        .pointer("/x-xml-namespace/default")
        .and_then(Value::as_str)
        .context("x-xml-namespace.default")?;
    // The media types of error bodies: those of the shared error answers, in document order.
    let mut error_media: Vec<String> = Vec::new();
    let answers = document
        .raw
        .pointer("/components/responses")
        .and_then(Value::as_object)
        .context("components.responses")?;
    for answer in answers.values() {
        for name in answer
            .get("content")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|content| content.keys())
        {
            if !error_media.contains(name) {
                error_media.push(name.clone());
            }
        }
    }
    ensure!(
        error_media.iter().any(|name| name == "application/json"),
        "components.responses must offer application/json error bodies (the fallback of D-05)"
    );
    let error_media = super::server::media_tokens(&error_media)?;
    Ok(quote! {
        //! The data generated from `openapi/core-v1.yaml` that drives the representation engine
        //! (`core-repr`), shared by the server (`core-api` re-exports it) and the client
        //! (`core-client`), with no server dependency.
        //!
        //! * [`tables`]: how each schema maps to XML and compact JSON.
        //! * [`operations`]: what the document states about each operation.

        pub mod operations;
        pub mod tables;

        /// The default of the `xml_namespace` setting (`x-xml-namespace.default`).
        pub const XML_NAMESPACE_DEFAULT: &str = #namespace;

        /// The media types of error bodies (those of `components.responses`), in document order.
        pub static ERROR_MEDIA: &[core_api_support::MediaType] = &[#(#error_media),*];
    })
}
