//! Request/response types with typify, from `components.schemas` and the operations' query
//! parameters.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use quote::{format_ident, quote};

use super::model::QuerySchema;
use crate::document::{Document, screaming_case};

/// Generates `types.rs`: one type per component schema (plus typify's helper types), and an
/// implementation of `Described` linking each component type to its schema table.
pub fn generate(document: &Document, queries: &[&QuerySchema]) -> Result<proc_macro2::TokenStream> {
    let mut definitions = schemars::Map::new();
    // What each type's JSON must look like: the raw schemas (property order, defaults,
    // collections), by type name.
    let mut shapes: serde_json::Map<String, serde_json::Value> = document.schemas()?.clone();
    for query in queries {
        shapes.insert(query.name.clone(), query.schema.clone());
    }
    let schemas = serde_json::Value::Object(crate::document::schemas(document.schemas()?));
    let text =
        serde_json::to_string(&schemas)?.replace("\"#/components/schemas/", "\"#/definitions/");
    let schemas: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)?;
    let mut names: Vec<String> = schemas.keys().cloned().collect();
    for (name, schema) in schemas {
        definitions.insert(name.clone(), to_schemars(&name, schema)?);
    }
    for query in queries {
        if definitions.contains_key(&query.name) {
            bail!("query type {} collides with a component schema", query.name);
        }
        definitions.insert(
            query.name.clone(),
            to_schemars(&query.name, crate::document::for_types(&query.schema))?,
        );
        names.push(query.name.clone());
    }

    let mut settings = typify::TypeSpaceSettings::default();
    settings.with_derive("PartialEq".to_string());
    // Maps (components, message parameters) keep their keys sorted, so answers are byte-stable.
    settings.with_map_type("::std::collections::BTreeMap");
    let mut space = typify::TypeSpace::new(&settings);
    space
        .add_root_schema(schemars::schema::RootSchema {
            meta_schema: None,
            schema: schemars::schema::SchemaObject::default(),
            definitions,
        })
        .context("typify rejected the component schemas")?;

    let generated: BTreeSet<String> = space.iter_types().map(|ty| ty.name()).collect();
    let mut described = Vec::new();
    for name in &names {
        if !generated.contains(name) {
            bail!("typify did not generate a type named {name}; rename the schema to PascalCase");
        }
        let ty = format_ident!("{}", name);
        let table = format_ident!("{}", screaming_case(name));
        described.push(quote! {
            impl core_api_support::Described for #ty {
                const SCHEMA: &'static core_api_support::Schema = &crate::tables::#table;
            }
        });
    }
    let types = in_document_form(with_list_reader(space.to_stream())?, &shapes)?;
    Ok(quote! {
        #types
        #(#described)*
    })
}

/// Names `core_api_support::list::deserialize` as the reader of every `Vec` field, so that a
/// decoded list's capacity fits its length (see that module for why).
fn with_list_reader(types: proc_macro2::TokenStream) -> Result<proc_macro2::TokenStream> {
    let mut file: syn::File = syn::parse2(types).context("typify's output does not parse")?;
    let reader: syn::Attribute =
        syn::parse_quote!(#[serde(deserialize_with = "::core_api_support::list::deserialize")]);
    for item in &mut file.items {
        let syn::Item::Struct(item) = item else {
            continue;
        };
        for field in item.fields.iter_mut() {
            if is_vec(&field.ty) {
                field.attrs.push(reader.clone());
            }
        }
    }
    Ok(quote!(#file))
}

/// Makes each type's serde output the default JSON the engine answers with (D-07), so that a
/// typed answer is written as JSON in one pass (`repr::Codec::encode_typed`): fields in the
/// order of the schema's properties (typify sorts them by name), the items of a collection
/// (`x-compact: entries`) written even when empty, and a property equal to its documented
/// default left out (through a generated `skip_defaults` function per such field).
fn in_document_form(
    types: proc_macro2::TokenStream,
    shapes: &serde_json::Map<String, serde_json::Value>,
) -> Result<proc_macro2::TokenStream> {
    let mut file: syn::File = syn::parse2(types).context("the types do not parse")?;
    let mut skips = Vec::new();
    for item in &mut file.items {
        let syn::Item::Struct(item) = item else {
            continue;
        };
        let Some(shape) = shapes.get(&item.ident.to_string()) else {
            continue;
        };
        let syn::Fields::Named(fields) = &mut item.fields else {
            continue;
        };
        let properties: Vec<&String> = shape
            .get("properties")
            .and_then(serde_json::Value::as_object)
            .map(|properties| properties.keys().collect())
            .unwrap_or_default();
        let collection = shape
            .pointer("/x-compact/form")
            .and_then(serde_json::Value::as_str)
            == Some("entries");
        let items = shape
            .pointer("/x-compact/items")
            .and_then(serde_json::Value::as_str);
        let mut ordered: Vec<(usize, syn::Field)> = Vec::new();
        for mut field in std::mem::take(&mut fields.named) {
            let name = json_name(&field)?;
            let position = properties
                .iter()
                .position(|property| **property == name)
                .unwrap_or(usize::MAX);
            if collection && items == Some(name.as_str()) {
                rewrite_serde(&mut field, |key| key != "skip_serializing_if", None)?;
            }
            let default = shape.pointer(&format!("/properties/{name}/default"));
            if default.is_some() {
                let function = format_ident!(
                    "{}_{}",
                    screaming_case(&item.ident.to_string()).to_lowercase(),
                    field.ident.as_ref().context("a named field")?
                );
                let ty = &field.ty;
                let value = default_expression(&field)?;
                skips.push(quote! {
                    pub(super) fn #function(value: &#ty) -> bool {
                        *value == #value
                    }
                });
                let path = format!("skip_defaults::{function}");
                rewrite_serde(&mut field, |_| true, Some(path))?;
            }
            ordered.push((position, field));
        }
        // A stable sort: fields the schema does not name keep their place after the others.
        ordered.sort_by_key(|(position, _)| *position);
        fields.named = ordered.into_iter().map(|(_, field)| field).collect();
    }
    Ok(quote! {
        #file
        /// Whether a property equals its documented default, which answers leave out (D-07).
        pub mod skip_defaults {
            #[allow(unused_imports)]
            use super::*;
            #(#skips)*
        }
    })
}

/// The JSON name of a field: its serde `rename`, else its name.
fn json_name(field: &syn::Field) -> Result<String> {
    let mut name = field
        .ident
        .as_ref()
        .context("a named field")?
        .to_string()
        .trim_start_matches("r#")
        .to_string();
    for attr in field
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                name = value.value();
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(name)
}

/// The value a field's documented default stands for: typify's `default = "path"` function, or
/// the type's `Default` for a bare `default`.
fn default_expression(field: &syn::Field) -> Result<proc_macro2::TokenStream> {
    let mut expression = None;
    for attr in field
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") {
                expression = Some(if meta.input.peek(syn::Token![=]) {
                    let path: syn::LitStr = meta.value()?.parse()?;
                    let path: syn::ExprPath = path.parse()?;
                    quote!(#path())
                } else {
                    let ty = &field.ty;
                    quote!(<#ty as ::std::default::Default>::default())
                });
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        })?;
    }
    expression.context("a property with a documented default has a serde default")
}

/// Rewrites a field's serde attributes: keeps the keys `keep` admits and adds
/// `skip_serializing_if = "<skip>"` when given.
fn rewrite_serde(
    field: &mut syn::Field,
    keep: impl Fn(&str) -> bool,
    skip: Option<String>,
) -> Result<()> {
    let mut kept: Vec<proc_macro2::TokenStream> = Vec::new();
    let mut others = Vec::new();
    for attr in std::mem::take(&mut field.attrs) {
        if !attr.path().is_ident("serde") {
            others.push(attr);
            continue;
        }
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let path = meta.path.clone();
            if meta.input.peek(syn::Token![=]) {
                let value: syn::Expr = meta.value()?.parse()?;
                if keep(&key) {
                    kept.push(quote!(#path = #value));
                }
            } else if keep(&key) {
                kept.push(quote!(#path));
            }
            Ok(())
        })?;
    }
    if let Some(skip) = skip {
        kept.push(quote!(skip_serializing_if = #skip));
    }
    field.attrs = others;
    if !kept.is_empty() {
        field.attrs.push(syn::parse_quote!(#[serde(#(#kept),*)]));
    }
    Ok(())
}

/// Whether `ty` is `Vec<…>` (typify spells it `::std::vec::Vec<…>`).
fn is_vec(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.qself.is_none()
        && path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == "Vec")
}

fn to_schemars(name: &str, schema: serde_json::Value) -> Result<schemars::schema::Schema> {
    serde_json::from_value(schema)
        .with_context(|| format!("schema {name} is not a JSON Schema typify can read"))
}
