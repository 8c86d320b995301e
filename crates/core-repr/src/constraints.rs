//! The constraints of the document the codecs enforce on every value, read from the tables:
//! lengths (`maxLength`), counts (`maxItems`), integer bounds (`minimum`, `maximum`, `not`),
//! patterns, and the rules of request objects. Every decoder asks these functions, so a refusal
//! reads the same in every representation, worded by the document where it says how (`x-message`).

use std::{
    collections::HashMap,
    sync::{OnceLock, RwLock},
};

use core_api_support::{Field, Rule, RuleKind, Scalar, Schema, Test};
use serde_json::{Map, Value};

use super::{error::Problem, text::find_forbidden};

/// What is wrong with the text of a string or integer value of `field`, if anything: its length,
/// its pattern, its bounds. The characters every string may hold are checked by the codecs
/// themselves (`text::find_forbidden`); the type of the value is checked by them too.
pub fn scalar(field: &Field, scalar: Scalar, text: &str) -> Option<Problem> {
    let broken = match scalar {
        Scalar::String => string(field, text),
        Scalar::Integer => match text.trim().parse::<i64>() {
            Ok(number) => integer(field, number),
            Err(_) => None,
        },
        Scalar::Number | Scalar::Boolean => None,
    }?;
    Some(match field.message {
        Some(message) => Problem::Refused(message.replace("{value}", &abbreviate(text))),
        None => broken,
    })
}

/// What is wrong with a string of `field` that did not come through a codec (a bootstrap
/// document's), if anything: its characters and its constraints.
pub fn text(field: &Field, text: &str) -> Option<Problem> {
    match find_forbidden(text) {
        Some(ch) => Some(Problem::ForbiddenCharacter(ch)),
        None => scalar(field, Scalar::String, text),
    }
}

/// Whether `field` constrains its values at all beyond their type: lets a hot path skip
/// [`scalar`] for the common field.
pub fn constrains(field: &Field) -> bool {
    field.max_length.is_some()
        || field.pattern.is_some()
        || field.minimum.is_some()
        || field.maximum.is_some()
        || !field.excluded.is_empty()
}

fn string(field: &Field, text: &str) -> Option<Problem> {
    if let Some(limit) = field.max_length {
        // A text of no more bytes than the limit has no more characters either.
        let limit = limit as usize;
        if text.len() > limit {
            let length = text.chars().count();
            if length > limit {
                return Some(Problem::TooLong { length, limit });
            }
        }
    }
    match field.pattern {
        Some(pattern) if !matches(pattern, text) => Some(Problem::NoMatch {
            value: abbreviate(text),
            pattern,
        }),
        _ => None,
    }
}

fn integer(field: &Field, number: i64) -> Option<Problem> {
    let below = field.minimum.is_some_and(|least| number < least);
    let above = field.maximum.is_some_and(|most| number > most);
    if below || above {
        Some(Problem::OutOfRange {
            value: number,
            minimum: field.minimum,
            maximum: field.maximum,
        })
    } else if field.excluded.contains(&number) {
        Some(Problem::Excluded(number))
    } else {
        None
    }
}

/// What is wrong with an array of `count` items of `field`, if anything.
pub fn items(field: &Field, count: usize) -> Option<Problem> {
    match field.max_items {
        Some(limit) if count > limit as usize => Some(Problem::TooMany {
            count,
            limit: limit as usize,
        }),
        _ => None,
    }
}

/// The first rule of `schema` that the object breaks, as the problem to report.
pub fn rules(schema: &'static Schema, object: &Map<String, Value>) -> Option<Problem> {
    broken_rule(schema, |property| Seen::of(object.get(property)))
}

/// The first rule of `schema` that an object breaks, its properties seen through `seen`, as the
/// problem to report: what a reader that builds no tree asks (`json::check`).
pub fn broken_rule<'v>(
    schema: &'static Schema,
    seen: impl Fn(&str) -> Seen<'v>,
) -> Option<Problem> {
    let broken = schema.rules.iter().find(|rule| !holds(rule, &seen))?;
    Some(refusal(broken))
}

/// Whether an object keeps every rule of `schema`, its properties seen through `seen`: what a
/// reader that builds no tree asks (`json::stream`).
pub fn keeps_rules<'v>(schema: &'static Schema, seen: impl Fn(&str) -> Seen<'v>) -> bool {
    schema.rules.iter().all(|rule| holds(rule, &seen))
}

/// One property of an object as the conditions of a rule see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen<'v> {
    /// Not given.
    Absent,
    /// A string.
    String(&'v str),
    /// A boolean or a number, as the text an `enum` of a rule lists it (`true`, `3`).
    Scalar(String),
    /// An array of this many items.
    Items(usize),
    /// An object (or `null`): no test but [`Test::Present`] looks into it.
    Other,
}

impl<'v> Seen<'v> {
    /// A property of a tree.
    fn of(value: Option<&'v Value>) -> Seen<'v> {
        match value {
            None => Seen::Absent,
            Some(Value::String(text)) => Seen::String(text),
            Some(Value::Array(items)) => Seen::Items(items.len()),
            Some(scalar @ (Value::Bool(_) | Value::Number(_))) => Seen::Scalar(scalar.to_string()),
            Some(Value::Object(_) | Value::Null) => Seen::Other,
        }
    }
}

/// The problem reported for a request that breaks the first rule of `schema`, in the words
/// decoding uses: for a module whose selection finds the rule broken where decoding let it
/// pass, which the document's rules make unreachable.
pub fn first_rule_broken(schema: &'static Schema) -> Option<Problem> {
    schema.rules.first().map(refusal)
}

/// The refusal of a broken rule: its `x-message`, else "exactly one of" its properties.
fn refusal(broken: &Rule) -> Problem {
    match broken.message {
        Some(message) => Problem::Refused(message.to_string()),
        None => Problem::ExactlyOneOf(
            broken
                .alternatives
                .iter()
                .flat_map(|conditions| conditions.iter().map(|condition| condition.property))
                .collect(),
        ),
    }
}

/// Whether the object keeps a rule, as JSON Schema reads `anyOf` and `oneOf`. An `enum` test
/// compares a scalar's text; an array or an object is in no list a rule gives.
fn holds<'v>(rule: &Rule, seen: &impl Fn(&str) -> Seen<'v>) -> bool {
    let kept = rule
        .alternatives
        .iter()
        .filter(|conditions| {
            conditions.iter().all(|condition| {
                let value = seen(condition.property);
                let text = match &value {
                    Seen::String(text) => Some(*text),
                    Seen::Scalar(text) => Some(text.as_str()),
                    _ => None,
                };
                match (&condition.test, &value) {
                    (Test::Present, value) => *value != Seen::Absent,
                    (_, Seen::Absent) => true,
                    (Test::In(values), _) => text.is_some_and(|text| values.contains(&text)),
                    (Test::NotIn(values), _) => !text.is_some_and(|text| values.contains(&text)),
                    (Test::MinItems(least), Seen::Items(count)) => *count >= *least as usize,
                    (Test::MaxItems(most), Seen::Items(count)) => *count <= *most as usize,
                    (Test::MinItems(_) | Test::MaxItems(_), _) => true,
                    (Test::Matches(pattern), Seen::String(text)) => matches(pattern, text),
                    (Test::Matches(_), _) => true,
                }
            })
        })
        .count();
    match rule.kind {
        RuleKind::AnyOf => kept >= 1,
        RuleKind::OneOf => kept == 1,
    }
}

/// Whether a pattern of the document (ECMA 262, as JSON Schema reads it) matches anywhere in
/// `text`. Each pattern is compiled once, on its first use; the tables hold a fixed few.
fn matches(pattern: &'static str, text: &str) -> bool {
    type Compiled = RwLock<HashMap<&'static str, Option<regress::Regex>>>;
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    let compiled = COMPILED.get_or_init(Compiled::default);
    let found = |regex: &Option<regress::Regex>| {
        regex
            .as_ref()
            .is_some_and(|regex| regex.find(text).is_some())
    };
    if let Ok(known) = compiled.read()
        && let Some(regex) = known.get(pattern)
    {
        return found(regex);
    }
    // The generator compiled every pattern with the same engine; one that failed here would
    // refuse every value, never accept a wrong one.
    let regex = regress::Regex::new(pattern).ok();
    let matched = found(&regex);
    if let Ok(mut known) = compiled.write() {
        known.insert(pattern, regex);
    }
    matched
}

/// A value as a refusal quotes it: at most 40 characters.
fn abbreviate(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
