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
    let types = with_list_reader(space.to_stream())?;
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
