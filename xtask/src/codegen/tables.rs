//! The static tables of the representation engine, from the `xml` objects and `x-compact`
//! extensions of the raw document (which `openapiv3` does not keep), and the constraints the codecs
//! enforce: lengths, counts, bounds, patterns and the rules of request objects.

use anyhow::{Context, Result, bail, ensure};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::{
    model::{Operation, QuerySchema},
    rules::{check_rules_reach_no_xml, rules},
};
use crate::document::{Document, schema_ref_name, screaming_case};

/// The keywords a property schema may carry: each is either enforced by the tables or describes
/// the value. Any other keyword is refused, so that the document never states a constraint the
/// server does not enforce.
const PROPERTY_KEYWORDS: [&str; 17] = [
    "type",
    "format",
    "description",
    "xml",
    "items",
    "$ref",
    "enum",
    "default",
    "example",
    "maxLength",
    "pattern",
    "maxItems",
    "minimum",
    "maximum",
    "not",
    "x-message",
    "x-batch",
];

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
    let rules = if is_alias(schema) {
        Vec::new()
    } else {
        rules(schema)?
    };
    ensure!(
        schema.get("x-exactly-one-of").is_none(),
        "x-exactly-one-of is stated as an allOf entry holding oneOf alternatives"
    );
    if schema.get("type").and_then(Value::as_str) == Some("string") {
        scalar_constraints(document, schema, schema, "string")?;
    }
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

/// Whether a schema stands for another (`allOf` with a single reference and no properties).
pub(super) fn is_alias(schema: &Value) -> bool {
    schema.get("allOf").is_some() && schema.get("properties").is_none()
}

fn kind(document: &Document, schema: &Value) -> Result<TokenStream> {
    if is_alias(schema) {
        let parts = schema
            .get("allOf")
            .and_then(Value::as_array)
            .context("allOf is not a list")?;
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
                let value =
                    field(document, "*", additional, false).context("additionalProperties")?;
                ensure!(
                    value.node == "Element" && !value.tokens.to_string().contains("Object"),
                    "the values of a map must be scalars"
                );
                let tokens = value.tokens;
                return Ok(quote!(Kind::Map(#tokens)));
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
    for keyword in definition.as_object().into_iter().flatten().map(|(k, _)| k) {
        ensure!(
            PROPERTY_KEYWORDS.contains(&keyword.as_str()),
            "`{keyword}` is not a keyword the tables enforce or the generator reads"
        );
    }
    let repeated = definition.get("type").and_then(Value::as_str) == Some("array");
    let item = if repeated {
        ensure!(
            definition.pointer("/xml/wrapped").and_then(Value::as_bool) != Some(true),
            "wrapped arrays are not used: model the wrapper as an object schema"
        );
        definition.get("items").context("an array without items")?
    } else {
        ensure!(
            definition.get("maxItems").is_none() && definition.get("x-batch").is_none(),
            "maxItems and x-batch belong to arrays"
        );
        definition
    };
    let batch = definition.get("x-batch").and_then(Value::as_bool) == Some(true);
    // The XML facts of a property: its own `xml` object, or for a reference the target's.
    let (ty, xml, structured) = match schema_ref_name(item) {
        Some(target) => {
            let target_schema = document.schema(target)?;
            if let Some(root) = target_schema.pointer("/xml/name").and_then(Value::as_str) {
                ensure!(
                    root == property,
                    "refers to {target}, whose root element is <{root}>, under another name"
                );
            }
            let structured = is_structured(target_schema);
            let ty = if structured {
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
            (ty, xml, structured)
        }
        None => {
            ensure!(
                item.get("type").and_then(Value::as_str) != Some("object"),
                "inline object schemas are not supported: use a component schema"
            );
            let scalar = scalar(item.get("type").and_then(Value::as_str))?;
            (quote!(Type::Scalar(#scalar)), definition.get("xml"), false)
        }
    };
    ensure!(
        !batch || structured,
        "the items of a batch (x-batch) are objects"
    );
    let flag = |key: &str| xml.and_then(|xml| xml.get(key)).and_then(Value::as_bool) == Some(true);
    let node = match (flag("attribute"), flag("x-text")) {
        (true, true) => bail!("a property cannot be both an attribute and the text"),
        (true, false) => "Attribute",
        (false, true) => "Text",
        (false, false) => "Element",
    };
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
    let format = optional_text(constraint_source, "format");
    let constraints = if structured {
        Constraints::default()
    } else {
        let ty = constraint_source
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        scalar_constraints(document, constraint_source, item, ty)?
    };
    let Constraints {
        pattern,
        max_length,
        minimum,
        maximum,
        excluded,
        message,
    } = constraints;
    let max_items = optional_u32(definition, "maxItems")?.filter(|_| repeated);
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
    let optional = |value: Option<TokenStream>| value.unwrap_or_else(|| quote!(None));
    let (pattern, message) = (optional(pattern), optional(message));
    let (max_length, max_items) = (
        optional(max_length.map(|n| quote!(Some(#n)))),
        optional(max_items.map(|n| quote!(Some(#n)))),
    );
    let (minimum, maximum) = (
        optional(minimum.map(|n| quote!(Some(#n)))),
        optional(maximum.map(|n| quote!(Some(#n)))),
    );
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
                max_length: #max_length,
                max_items: #max_items,
                minimum: #minimum,
                maximum: #maximum,
                excluded: &[#(#excluded),*],
                message: #message,
                batch: #batch,
            }
        },
    })
}

/// The constraints of a scalar, as tokens.
#[derive(Default)]
struct Constraints {
    pattern: Option<TokenStream>,
    max_length: Option<u32>,
    minimum: Option<i64>,
    maximum: Option<i64>,
    excluded: Vec<i64>,
    message: Option<TokenStream>,
}

/// The constraints of a scalar schema (`source`, a named scalar or the item schema itself; `item`
/// is where the property states it). Every string carries a `maxLength` and a pattern (the
/// document's text pattern, which the codecs check natively, or a stricter one), unless an `enum`
/// bounds it.
fn scalar_constraints(
    document: &Document,
    source: &Value,
    item: &Value,
    ty: &str,
) -> Result<Constraints> {
    let enumerated = source.get("enum").is_some();
    let pattern = source.get("pattern").and_then(Value::as_str);
    let max_length = optional_u32(source, "maxLength")?;
    if ty == "string" && !enumerated {
        ensure!(
            max_length.is_some(),
            "a string states its maxLength (D-56), or an enum"
        );
        ensure!(
            pattern.is_some(),
            "a string states the document's x-text-pattern or a stricter pattern (D-56), or an enum"
        );
    }
    if ty != "string" {
        ensure!(
            pattern.is_none() && max_length.is_none(),
            "pattern and maxLength belong to strings"
        );
    }
    if let Some(pattern) = pattern {
        regress::Regex::new(pattern)
            .map_err(|error| anyhow::anyhow!("pattern {pattern:?} is not ECMA 262: {error}"))?;
    }
    let integer = |key: &str| -> Result<Option<i64>> {
        match source.get(key).or_else(|| item.get(key)) {
            None => Ok(None),
            Some(value) => {
                ensure!(ty == "integer", "{key} belongs to integers");
                value
                    .as_i64()
                    .map(Some)
                    .with_context(|| format!("{key} is not an integer"))
            }
        }
    };
    let excluded = match source.get("not") {
        None => Vec::new(),
        Some(not) => {
            ensure!(ty == "integer", "not belongs to integers");
            ensure!(
                not.as_object().is_some_and(|not| not.len() == 1),
                "not holds only an enum"
            );
            not.get("enum")
                .and_then(Value::as_array)
                .context("not holds an enum")?
                .iter()
                .map(|value| {
                    value
                        .as_i64()
                        .context("an excluded value is not an integer")
                })
                .collect::<Result<_>>()?
        }
    };
    let text_pattern = document.text_pattern()?;
    Ok(Constraints {
        pattern: pattern
            .filter(|pattern| *pattern != text_pattern)
            .map(|pattern| quote!(Some(#pattern))),
        max_length,
        minimum: integer("minimum")?,
        maximum: integer("maximum")?,
        excluded,
        message: source
            .get("x-message")
            .and_then(Value::as_str)
            .map(|message| quote!(Some(#message))),
    })
}

fn optional_text(schema: &Value, key: &str) -> TokenStream {
    match schema.get(key).and_then(Value::as_str) {
        Some(text) => quote!(Some(#text)),
        None => quote!(None),
    }
}

fn optional_u32(schema: &Value, key: &str) -> Result<Option<u32>> {
    match schema.get(key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .with_context(|| format!("{key} is not a count")),
    }
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

pub(super) fn strings(list: &Value) -> Result<Vec<String>> {
    list.as_array()
        .context("not a list")?
        .iter()
        .map(|item| item.as_str().map(str::to_string).context("not a string"))
        .collect()
}
