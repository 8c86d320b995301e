//! The rules of request objects (`allOf` of `anyOf`/`oneOf` alternatives), as tables the codecs
//! check, and the check that no rule is reached from an XML body outside a batch collection.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail, ensure};
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use super::{
    model::Operation,
    shape::{is_alias, strings},
};
use crate::document::{Document, Representation, schema_ref_name};

/// The rules of an object schema: its `allOf` entries, each an `anyOf` or `oneOf` of
/// alternatives made of `required` and of `properties` with one test each.
pub(super) fn rules(schema: &Value) -> Result<Vec<TokenStream>> {
    let Some(entries) = schema.get("allOf") else {
        ensure!(
            schema.get("oneOf").is_none() && schema.get("anyOf").is_none(),
            "rules of an object are stated as allOf entries"
        );
        return Ok(Vec::new());
    };
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .context("rules need properties")?;
    let mut rules = Vec::new();
    for (index, entry) in entries
        .as_array()
        .context("allOf is not a list")?
        .iter()
        .enumerate()
    {
        let rule = rule(entry, properties).with_context(|| format!("allOf[{index}]"))?;
        rules.push(rule);
    }
    Ok(rules)
}

fn rule(entry: &Value, properties: &Map<String, Value>) -> Result<TokenStream> {
    let entry = entry.as_object().context("a rule is an object")?;
    for key in entry.keys() {
        ensure!(
            matches!(
                key.as_str(),
                "anyOf" | "oneOf" | "x-message" | "description"
            ),
            "a rule holds anyOf or oneOf, x-message and description only, not {key}"
        );
    }
    let (kind, alternatives) = match (entry.get("anyOf"), entry.get("oneOf")) {
        (Some(list), None) => (quote!(RuleKind::AnyOf), list),
        (None, Some(list)) => (quote!(RuleKind::OneOf), list),
        _ => bail!("a rule holds either anyOf or oneOf"),
    };
    let mut only_presence = true;
    let mut tokens = Vec::new();
    for alternative in alternatives.as_array().context("alternatives are a list")? {
        let conditions = conditions(alternative, properties)?;
        only_presence &= conditions.len() == 1 && conditions[0].1;
        let conditions = conditions.into_iter().map(|(tokens, _)| tokens);
        tokens.push(quote!(&[#(#conditions),*]));
    }
    let message = match entry.get("x-message").and_then(Value::as_str) {
        Some(message) => quote!(Some(#message)),
        None => {
            ensure!(
                only_presence && kind.to_string().contains("OneOf"),
                "a rule states its refusal (x-message), unless it is oneOf single `required`s"
            );
            quote!(None)
        }
    };
    Ok(quote!(Rule { kind: #kind, message: #message, alternatives: &[#(#tokens),*] }))
}

/// The conditions of one alternative; each with whether it only asks for presence.
fn conditions(
    alternative: &Value,
    properties: &Map<String, Value>,
) -> Result<Vec<(TokenStream, bool)>> {
    let alternative = alternative
        .as_object()
        .context("an alternative is an object")?;
    let known = |name: &str| -> Result<()> {
        ensure!(
            properties.contains_key(name),
            "the rule names {name}, which is not a property"
        );
        Ok(())
    };
    let mut out = Vec::new();
    for (key, value) in alternative {
        match key.as_str() {
            "required" => {
                for name in strings(value).context("required")? {
                    known(&name)?;
                    out.push((
                        quote!(Condition { property: #name, test: Test::Present }),
                        true,
                    ));
                }
            }
            "properties" => {
                for (name, test) in value.as_object().context("properties")? {
                    known(name)?;
                    let test = test.as_object().context("a test is an object")?;
                    ensure!(test.len() == 1, "{name}: one test per property");
                    let (keyword, argument) = test.iter().next().context("a test")?;
                    let test = match keyword.as_str() {
                        "enum" => {
                            let values = texts(argument)?;
                            quote!(Test::In(&[#(#values),*]))
                        }
                        "not" => {
                            let values = texts(argument.get("enum").context("not holds an enum")?)?;
                            quote!(Test::NotIn(&[#(#values),*]))
                        }
                        "minItems" | "maxItems" => {
                            let count = argument
                                .as_u64()
                                .and_then(|n| u32::try_from(n).ok())
                                .context("a count")?;
                            if keyword == "minItems" {
                                quote!(Test::MinItems(#count))
                            } else {
                                quote!(Test::MaxItems(#count))
                            }
                        }
                        "pattern" => {
                            let pattern = argument.as_str().context("a pattern")?;
                            regress::Regex::new(pattern).map_err(|error| {
                                anyhow::anyhow!("pattern {pattern:?} is not ECMA 262: {error}")
                            })?;
                            quote!(Test::Matches(#pattern))
                        }
                        other => bail!("{name}: `{other}` is not a test of a rule"),
                    };
                    out.push((quote!(Condition { property: #name, test: #test }), false));
                }
            }
            other => bail!("an alternative holds required and properties only, not {other}"),
        }
    }
    Ok(out)
}

/// The values of an `enum` as the texts a rule compares with (`true`, `ID`).
fn texts(list: &Value) -> Result<Vec<String>> {
    list.as_array()
        .context("an enum is a list")?
        .iter()
        .map(|value| match value {
            Value::String(text) => Ok(text.clone()),
            Value::Bool(_) | Value::Number(_) => Ok(value.to_string()),
            other => bail!("an enum value {other} is not a scalar"),
        })
        .collect()
}

/// Rules are checked on the JSON tree (and on batch items by the batch layer), so no schema with
/// rules may be reached from an XML request body except through a batch collection.
pub(super) fn check_rules_reach_no_xml(
    document: &Document,
    operations: &[Operation],
) -> Result<()> {
    let mut seen = BTreeSet::new();
    let mut pending: Vec<String> = operations
        .iter()
        .filter_map(|operation| operation.request.as_ref())
        .filter(|body| {
            body.media
                .iter()
                .any(|media| Representation::of(media) == Some(Representation::Xml))
        })
        .filter_map(|body| body.schema.clone())
        .collect();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = document.schema(&name)?;
        ensure!(
            is_alias(schema) || schema.get("allOf").is_none(),
            "schema {name} has rules but is read from XML request bodies; rules are checked on \
             JSON trees and on batch items only"
        );
        let references = schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(schema_ref_name);
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, property)| property.get("x-batch").is_none())
            .filter_map(|(_, property)| schema_ref_name(property.get("items").unwrap_or(property)));
        pending.extend(references.chain(properties).map(str::to_string));
    }
    Ok(())
}
