//! The static tables of the representation engine, from the `xml` objects and `x-compact`
//! extensions of the raw document (which `openapiv3` does not keep).

use anyhow::{Context, Result, bail, ensure};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::model::QuerySchema;
use crate::document::{Document, schema_ref_name, screaming_case};

/// Generates `tables.rs`: one `static` [`Schema`](core_api_support::Schema) per component schema
/// and query type, and `ALL`, every table in document order.
pub fn generate(document: &Document, queries: &[&QuerySchema]) -> Result<TokenStream> {
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
        use core_api_support::{Compact, DefaultValue, Field, Kind, Node, Scalar, Schema, Type, XmlRoot};

        #(#statics)*

        /// Every table, in document order (component schemas, then query types).
        pub static ALL: &[&Schema] = &[#(&#all),*];
    })
}

fn table(document: &Document, name: &str, schema: &Value) -> Result<TokenStream> {
    let ident = format_ident!("{}", screaming_case(name));
    let kind = kind(document, schema)?;
    let xml_root = match schema.pointer("/xml/name").and_then(Value::as_str) {
        Some(root) => {
            let namespace = match schema.pointer("/xml/namespace").and_then(Value::as_str) {
                Some(namespace) => quote!(Some(#namespace)),
                None => quote!(None),
            };
            quote!(Some(XmlRoot { name: #root, namespace: #namespace }))
        }
        None => quote!(None),
    };
    let compact = compact(document, schema)?;
    let exactly_one_of = match schema.get("x-exactly-one-of") {
        Some(list) => {
            let names = strings(list).context("x-exactly-one-of")?;
            for property in &names {
                ensure!(
                    schema.pointer(&format!("/properties/{property}")).is_some(),
                    "x-exactly-one-of names {property}, which is not a property"
                );
            }
            names
        }
        None => Vec::new(),
    };
    let doc = format!(" The `{name}` schema.");
    Ok(quote! {
        #[doc = #doc]
        pub static #ident: Schema = Schema {
            name: #name,
            kind: #kind,
            xml_root: #xml_root,
            compact: #compact,
            exactly_one_of: &[#(#exactly_one_of),*],
        };
    })
}

fn kind(document: &Document, schema: &Value) -> Result<TokenStream> {
    if let Some(all_of) = schema.get("allOf") {
        let parts = all_of.as_array().context("allOf is not a list")?;
        ensure!(parts.len() == 1, "allOf must hold exactly one reference");
        let target = schema_ref_name(&parts[0]).context("allOf must hold a reference")?;
        let target = format_ident!("{}", screaming_case(target));
        return Ok(quote!(Kind::Alias(&#target)));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let properties = schema.get("properties").and_then(Value::as_object);
            if let (None, Some(additional)) = (
                properties,
                schema.get("additionalProperties").filter(|v| v.is_object()),
            ) {
                let scalar = scalar(additional.get("type").and_then(Value::as_str))?;
                return Ok(quote!(Kind::Map(#scalar)));
            }
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|list| list.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let empty = Map::new();
            let properties = properties.unwrap_or(&empty);
            let mut fields = Vec::new();
            let mut texts = 0;
            let mut elements = 0;
            for (property, definition) in properties {
                let field = field(
                    document,
                    property,
                    definition,
                    required.contains(&property.as_str()),
                )
                .with_context(|| format!("property {property}"))?;
                match field.node {
                    "Text" => texts += 1,
                    "Element" => elements += 1,
                    _ => {}
                }
                fields.push(field.tokens);
            }
            ensure!(
                texts <= 1,
                "more than one property carries the element text (x-text)"
            );
            ensure!(
                texts == 0 || elements == 0,
                "an element cannot hold both text (x-text) and child elements"
            );
            Ok(quote!(Kind::Object(&[#(#fields),*])))
        }
        other => {
            let scalar = scalar(other)?;
            Ok(quote!(Kind::Scalar(#scalar)))
        }
    }
}

struct FieldTokens {
    node: &'static str,
    tokens: TokenStream,
}

fn field(
    document: &Document,
    property: &str,
    definition: &Value,
    required: bool,
) -> Result<FieldTokens> {
    let repeated = definition.get("type").and_then(Value::as_str) == Some("array");
    let item = if repeated {
        ensure!(
            definition.pointer("/xml/wrapped").and_then(Value::as_bool) != Some(true),
            "wrapped arrays are not used: model the wrapper as an object schema"
        );
        definition.get("items").context("an array without items")?
    } else {
        definition
    };
    // The XML facts of a property: its own `xml` object, or for a reference the target's.
    let (ty, xml) = match schema_ref_name(item) {
        Some(target) => {
            let target_schema = document.schema(target)?;
            if let Some(root) = target_schema.pointer("/xml/name").and_then(Value::as_str) {
                ensure!(
                    root == property,
                    "refers to {target}, whose root element is <{root}>, under another name"
                );
            }
            let ty = if is_structured(target_schema) {
                let target = format_ident!("{}", screaming_case(target));
                quote!(Type::Object(&#target))
            } else {
                let scalar = scalar(target_schema.get("type").and_then(Value::as_str))?;
                quote!(Type::Scalar(#scalar))
            };
            let xml = if repeated {
                definition.get("xml")
            } else {
                target_schema.get("xml")
            };
            (ty, xml)
        }
        None => {
            ensure!(
                item.get("type").and_then(Value::as_str) != Some("object"),
                "inline object schemas are not supported: use a component schema"
            );
            let scalar = scalar(item.get("type").and_then(Value::as_str))?;
            (quote!(Type::Scalar(#scalar)), definition.get("xml"))
        }
    };
    let flag = |key: &str| xml.and_then(|xml| xml.get(key)).and_then(Value::as_bool) == Some(true);
    let node = match (flag("attribute"), flag("x-text")) {
        (true, true) => bail!("a property cannot be both an attribute and the text"),
        (true, false) => "Attribute",
        (false, true) => "Text",
        (false, false) => "Element",
    };
    let structured = ty.to_string().contains("Object");
    ensure!(
        node == "Element" || (!repeated && !structured),
        "attributes and text must be single scalars"
    );
    let xml_name = xml
        .and_then(|xml| xml.get("name"))
        .filter(|_| schema_ref_name(item).is_none() || repeated)
        .and_then(Value::as_str)
        .unwrap_or(property);
    // Value constraints come from the item schema, or from the named scalar it refers to.
    let constraint_source = match schema_ref_name(item) {
        Some(target) => document.schema(target)?,
        None => item,
    };
    let allowed = match constraint_source.get("enum") {
        Some(values) => strings(values).context("enum")?,
        None => Vec::new(),
    };
    let optional_text = |key: &str| match constraint_source.get(key).and_then(Value::as_str) {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    };
    let (pattern, format) = (optional_text("pattern"), optional_text("format"));
    let default = match definition.get("default") {
        None => quote!(None),
        Some(Value::Bool(value)) => quote!(Some(DefaultValue::Boolean(#value))),
        Some(Value::Number(value)) => {
            let value = value
                .as_i64()
                .context("only integer number defaults are supported")?;
            quote!(Some(DefaultValue::Integer(#value)))
        }
        Some(Value::String(value)) => quote!(Some(DefaultValue::String(#value))),
        Some(other) => bail!("unsupported default {other}"),
    };
    let node_ident = format_ident!("{}", node);
    Ok(FieldTokens {
        node,
        tokens: quote! {
            Field {
                name: #property,
                xml_name: #xml_name,
                node: Node::#node_ident,
                ty: #ty,
                repeated: #repeated,
                required: #required,
                default: #default,
                allowed: &[#(#allowed),*],
                pattern: #pattern,
                format: #format,
            }
        },
    })
}

/// Whether a component schema is an object, a map or an alias (as opposed to a named scalar).
fn is_structured(schema: &Value) -> bool {
    schema.get("allOf").is_some() || schema.get("type").and_then(Value::as_str) == Some("object")
}

fn scalar(ty: Option<&str>) -> Result<TokenStream> {
    Ok(match ty {
        Some("string") => quote!(Scalar::String),
        Some("integer") => quote!(Scalar::Integer),
        Some("number") => quote!(Scalar::Number),
        Some("boolean") => quote!(Scalar::Boolean),
        other => bail!("unsupported scalar type {other:?}"),
    })
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

fn strings(list: &Value) -> Result<Vec<String>> {
    list.as_array()
        .context("not a list")?
        .iter()
        .map(|item| item.as_str().map(str::to_string).context("not a string"))
        .collect()
}
