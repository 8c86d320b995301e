//! The client's calls in every representation (`generated/core-client/src/representations/
//! calls.rs`): one method per operation on `representations::Client`, taking progenitor's request
//! type and answering progenitor's answer type, each a line that hands the operation's metadata
//! (`operations.rs`, as the server's) to the engine in `representations.rs`.

use anyhow::{Context, Result, bail};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::model::{Operation, QuerySchema};
use crate::document::{pascal_case, screaming_case, snake_case};

/// The `impl` block of every call.
pub fn generate(operations: &[Operation]) -> Result<TokenStream> {
    let calls = operations
        .iter()
        .map(|operation| call(operation).with_context(|| operation.id.clone()))
        .collect::<Result<Vec<_>>>()?;
    Ok(quote! {
        use crate::{operations, types};
        impl super::Client {
            #(#calls)*
        }
    })
}

fn call(operation: &Operation) -> Result<TokenStream> {
    let progenitor_name = snake_case(&operation.id);
    let name = format_ident!("{progenitor_name}");
    let metadata = format_ident!("{}", screaming_case(&operation.id));
    let doc = format!(
        " `{} {}` ({}): {}.",
        operation.method, operation.path, operation.id, operation.summary
    );
    let (parameters, pairs): (Vec<_>, Vec<_>) = match &operation.query {
        Some(query) => query_parameters(query)?.into_iter().unzip(),
        None => (Vec::new(), Vec::new()),
    };
    let (body_parameter, body) = match &operation.request {
        Some(body) => {
            let schema = body.schema.as_deref().context("a binary request body")?;
            let ty = format_ident!("{}", pascal_case(schema));
            (quote!(body: &types::#ty,), quote!(Some(body)))
        }
        None => (quote!(), quote!(None::<&()>)),
    };
    let query = quote!(&[#(#pairs),*]);
    Ok(match &operation.response.schema {
        Some(schema) => {
            let answer = format_ident!("{}", pascal_case(schema));
            quote! {
                #[doc = #doc]
                pub async fn #name(&self, #(#parameters,)* #body_parameter) -> Result<types::#answer, super::Error> {
                    self.message(&operations::#metadata, #progenitor_name, #query, #body).await
                }
            }
        }
        None => quote! {
            #[doc = #doc]
            pub async fn #name(&self, #(#parameters,)* #body_parameter) -> Result<super::Binary, super::Error> {
                self.binary(&operations::#metadata, #progenitor_name, #query, #body).await
            }
        },
    })
}

/// Each query parameter as a method parameter (an `Option` unless required, typed as progenitor
/// types it) and as a `(name, Option<String>)` pair of the query.
fn query_parameters(query: &QuerySchema) -> Result<Vec<(TokenStream, TokenStream)>> {
    let required: Vec<&str> = query.schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let properties = query.schema["properties"]
        .as_object()
        .context("the query schema's properties")?;
    // In progenitor's order: by name.
    let mut properties: Vec<(&String, &Value)> = properties.iter().collect();
    properties.sort_by_key(|(name, _)| snake_case(name));
    properties
        .into_iter()
        .map(|(name, schema)| {
            let ident = format_ident!("{}", snake_case(name));
            let ty = match (schema["type"].as_str(), schema["format"].as_str()) {
                (Some("integer"), Some("int32")) => quote!(i32),
                (Some("integer"), _) => quote!(i64),
                (Some("string"), _) => quote!(&str),
                (Some("boolean"), _) => quote!(bool),
                other => bail!("query parameter {name}: unsupported type {other:?}"),
            };
            Ok(if required.contains(&name.as_str()) {
                (
                    quote!(#ident: #ty),
                    quote!((#name, Some(#ident.to_string()))),
                )
            } else {
                (
                    quote!(#ident: Option<#ty>),
                    quote!((#name, #ident.map(|value| value.to_string()))),
                )
            })
        })
        .collect()
}
