//! `generated/core-api/src/messages.rs`: the item messages the operations' descriptions state, one
//! constant each, so that the server, the contract tests and the conformance scenarios name a text
//! once; and the [`Envelope`] of every request body (its `meta`, if it has one), which the server
//! checks before a batch runs.
//!
//! A message is a quoted text of a description that starts with a capital letter and has more
//! than one word (`core_api_support::stated`, which `core-conformance` reads served documents
//! with too); `<placeholders>` stand for the parts a record fills in (`core_api_support::fill`).

use std::collections::BTreeMap;

use anyhow::Result;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::model::Operation;
use crate::document::Document;

/// The constant's name of a text: its words (a placeholder's name counts as one), upper case.
pub fn constant_name(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_uppercase)
        .collect();
    words.join("_")
}

/// The quoted texts of a description that are item messages: `core_api_support::stated`, whose
/// rule this repeats because the generator does not build poem (which that crate needs);
/// `xtask/tests/codegen.rs` holds the two to the same answers.
pub fn stated(description: &str) -> Vec<String> {
    let flat = description.replace('\n', " ");
    flat.split('"')
        .skip(1)
        .step_by(2)
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| text.starts_with(|c: char| c.is_ascii_uppercase()) && text.contains(' '))
        .collect()
}

/// The messages module: every text once, in the order the document first states it.
pub fn generate(document: &Document, operations: &[Operation]) -> Result<TokenStream> {
    let mut order: Vec<String> = Vec::new();
    let mut stated_by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for operation in operations {
        let description = document.raw["paths"][&operation.path]
            [operation.method.to_ascii_lowercase()]["description"]
            .as_str()
            .unwrap_or_default();
        for text in stated(description) {
            let by = stated_by.entry(text.clone()).or_default();
            if by.is_empty() {
                order.push(text.clone());
            }
            if !by.contains(&operation.id) {
                by.push(operation.id.clone());
            }
        }
    }
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let constants = order.iter().map(|text| {
        let mut name = constant_name(text);
        while names.contains_key(&name) {
            name.push('_');
        }
        names.insert(name.clone(), text.clone());
        let ident = format_ident!("{}", name);
        let doc = format!(
            " Stated by {}.",
            stated_by[text]
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        quote! {
            #[doc = #doc]
            pub const #ident: &str = #text;
        }
    });
    let by_operation = operations.iter().map(|operation| {
        let id = &operation.id;
        let texts = stated_by
            .iter()
            .filter(|(_, by)| by.contains(id))
            .map(|(text, _)| text);
        quote!((#id, &[#(#texts),*]))
    });
    Ok(quote! {
        #(#constants)*

        /// Each operation's messages, by operation id, in document order of operations.
        pub const BY_OPERATION: &[(&str, &[&str])] = &[#(#by_operation),*];
    })
}

/// The `envelope` module: [`Envelope`] for the request body of every operation that takes one.
pub fn envelopes(document: &Document, operations: &[Operation]) -> TokenStream {
    let mut schemas: Vec<&str> = operations
        .iter()
        .filter_map(|operation| operation.request.as_ref()?.schema.as_deref())
        .collect();
    schemas.sort_unstable();
    schemas.dedup();
    let impls = schemas.iter().map(|schema| {
        let ident = format_ident!("{}", schema);
        let has_meta = document.raw["components"]["schemas"][schema]["properties"]
            .get("meta")
            .is_some_and(Value::is_object);
        let meta = if has_meta {
            quote!(self.meta.as_ref())
        } else {
            quote!(None)
        };
        quote! {
            impl Envelope for types::#ident {
                fn meta(&self) -> Option<&types::Meta> {
                    #meta
                }
            }
        }
    });
    quote! {
        use crate::types;

        /// A request message: what its envelope carries (a body without `meta` carries none).
        pub trait Envelope {
            /// Its `meta`, if any.
            fn meta(&self) -> Option<&types::Meta>;
        }

        #(#impls)*
    }
}
