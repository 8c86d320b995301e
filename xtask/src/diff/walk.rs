//! One operation's walk through both documents: its request and answers, once per
//! representation, each difference reported with whether it breaks clients.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Change, change, representation};

/// Which way a message goes: what a client sends may not narrow, what it reads may not change
/// under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Request,
    Response,
}

/// One operation's walk through both documents.
pub(super) struct Walk<'a, 'f> {
    pub(super) old: &'a Value,
    pub(super) new: &'a Value,
    pub(super) operation: String,
    pub(super) found: &'f mut BTreeSet<Change>,
}

impl<'a> Walk<'a, '_> {
    fn say(&mut self, breaking: bool, representation: &str, what: String) {
        self.found
            .insert(change(&self.operation, breaking, representation, what));
    }

    /// Compares one operation of both documents: its parameters, request and answers.
    pub(super) fn operation(&mut self, old: &'a Value, new: &'a Value) {
        self.parameters(old, new);
        let (old_body, new_body) = (&old["requestBody"], &new["requestBody"]);
        if !old_body["required"].as_bool().unwrap_or(false)
            && new_body["required"].as_bool().unwrap_or(false)
        {
            self.say(true, "all", "request body became required".to_string());
        }
        self.contents(old_body, new_body, Direction::Request, "request");
        let (old_responses, new_responses) = (&old["responses"], &new["responses"]);
        for (status, old_response) in entries(old_responses) {
            match new_responses.get(status) {
                None => self.say(true, "all", format!("response {status} removed")),
                Some(new_response) => {
                    let old_response = self.resolve_in(self.old, old_response);
                    let new_response = self.resolve_in(self.new, new_response);
                    self.contents(
                        old_response,
                        new_response,
                        Direction::Response,
                        &format!("response {status}"),
                    );
                }
            }
        }
        for (status, _) in entries(new_responses) {
            if old_responses.get(status).is_none() {
                self.say(false, "all", format!("response {status} added"));
            }
        }
    }

    fn parameters(&mut self, old: &Value, new: &Value) {
        let named = |operation: &Value| -> Vec<(String, bool)> {
            operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|parameter| {
                    (
                        format!(
                            "{} parameter '{}'",
                            parameter["in"].as_str().unwrap_or("?"),
                            parameter["name"].as_str().unwrap_or("?")
                        ),
                        parameter["required"].as_bool().unwrap_or(false),
                    )
                })
                .collect()
        };
        let (old_parameters, new_parameters) = (named(old), named(new));
        for (name, _) in &old_parameters {
            if !new_parameters.iter().any(|(other, _)| other == name) {
                self.say(true, "all", format!("{name} removed"));
            }
        }
        for (name, required) in &new_parameters {
            let before = old_parameters.iter().find(|(other, _)| other == name);
            match before {
                None if *required => self.say(true, "all", format!("required {name} added")),
                None => self.say(false, "all", format!("{name} added")),
                Some((_, false)) if *required => {
                    self.say(true, "all", format!("{name} became required"));
                }
                Some(_) => {}
            }
        }
    }

    /// The media types of a request body or a response: removed ones break their
    /// representation; common ones are walked in it.
    fn contents(&mut self, old: &'a Value, new: &'a Value, direction: Direction, place: &str) {
        let (old_content, new_content) = (&old["content"], &new["content"]);
        for (media_type, old_media) in entries(old_content) {
            let shown = representation(media_type).to_string();
            match new_content.get(media_type) {
                None => self.say(
                    true,
                    &shown,
                    format!("{place}: media type {media_type} removed"),
                ),
                Some(new_media) => {
                    let mut seen = BTreeSet::new();
                    self.schema(
                        &old_media["schema"],
                        &new_media["schema"],
                        direction,
                        &shown,
                        place,
                        &mut seen,
                    );
                }
            }
        }
        for (media_type, _) in entries(new_content) {
            if old_content.get(media_type).is_none() {
                let shown = representation(media_type).to_string();
                self.say(
                    false,
                    &shown,
                    format!("{place}: media type {media_type} added"),
                );
            }
        }
    }

    fn resolve_in(&self, document: &'a Value, value: &'a Value) -> &'a Value {
        let mut value = value;
        for _ in 0..16 {
            let Some(reference) = value["$ref"].as_str() else {
                return value;
            };
            let pointer = reference.trim_start_matches('#');
            match document.pointer(pointer) {
                Some(found) => value = found,
                None => return value,
            }
        }
        value
    }

    /// Compares two schemas at `at` (a dotted path from the message root) for one
    /// representation. A schema reached again through the pair of references being walked is not
    /// walked again inside itself (recursive schemas end); elsewhere every place is walked.
    fn schema(
        &mut self,
        old: &'a Value,
        new: &'a Value,
        direction: Direction,
        shown: &str,
        at: &str,
        seen: &mut BTreeSet<(String, String)>,
    ) {
        // A pair of references already being walked above this place: a recursive schema.
        let pair = match (old["$ref"].as_str(), new["$ref"].as_str()) {
            (Some(old_ref), Some(new_ref)) => Some((old_ref.to_string(), new_ref.to_string())),
            _ => None,
        };
        if let Some(pair) = &pair
            && !seen.insert(pair.clone())
        {
            return;
        }
        // An `xml` object beside a `$ref` names the element where the reference is used.
        if shown == "xml" && (old.get("xml").is_some() || new.get("xml").is_some()) {
            self.xml(old, new, at);
        }
        let old = self.resolve_in(self.old, old);
        let new = self.resolve_in(self.new, new);
        let request = direction == Direction::Request;
        // What every representation shares.
        if let (Some(before), Some(after)) = (old["type"].as_str(), new["type"].as_str())
            && before != after
        {
            let widened = before == "integer" && after == "number" && request;
            self.say(
                !widened,
                "all",
                format!("{at}: type {before} became {after}"),
            );
        }
        self.enumeration(old, new, request, at);
        self.bounds(old, new, request, at);
        self.properties(old, new, direction, shown, at, seen);
        if old.get("items").is_some() || new.get("items").is_some() {
            self.schema(
                &old["items"],
                &new["items"],
                direction,
                shown,
                &format!("{at}[]"),
                seen,
            );
        }
        for combinator in ["allOf", "oneOf", "anyOf"] {
            let (before, after) = (old[combinator].as_array(), new[combinator].as_array());
            if let (Some(before), Some(after)) = (before, after) {
                for (index, (old_part, new_part)) in before.iter().zip(after).enumerate() {
                    self.schema(
                        old_part,
                        new_part,
                        direction,
                        shown,
                        &format!("{at}({combinator} {index})"),
                        seen,
                    );
                }
            }
        }
        // What one representation reads.
        match shown {
            "xml" => self.xml(old, new, at),
            "compact" if old.get("x-compact") != new.get("x-compact") => {
                self.say(
                    true,
                    "compact",
                    format!(
                        "{at}: x-compact {} became {}",
                        compact_text(old.get("x-compact")),
                        compact_text(new.get("x-compact"))
                    ),
                );
            }
            _ => {}
        }
        if let Some(pair) = &pair {
            seen.remove(pair);
        }
    }

    fn enumeration(&mut self, old: &Value, new: &Value, request: bool, at: &str) {
        let values = |schema: &Value| -> Option<Vec<String>> {
            schema["enum"]
                .as_array()
                .map(|values| values.iter().map(Value::to_string).collect())
        };
        match (values(old), values(new)) {
            (Some(before), Some(after)) => {
                let removed: Vec<&String> = before.iter().filter(|v| !after.contains(v)).collect();
                let added: Vec<&String> = after.iter().filter(|v| !before.contains(v)).collect();
                if !removed.is_empty() {
                    let list = join(&removed);
                    self.say(request, "all", format!("{at}: enum values {list} removed"));
                }
                if !added.is_empty() {
                    let list = join(&added);
                    self.say(!request, "all", format!("{at}: enum values {list} added"));
                }
            }
            (None, Some(after)) => {
                let list = join(&after.iter().collect::<Vec<_>>());
                self.say(
                    request,
                    "all",
                    format!("{at}: restricted to the enum {list}"),
                );
            }
            _ => {}
        }
    }

    /// Lengths, counts, bounds and patterns: narrowing what a client sends breaks it.
    fn bounds(&mut self, old: &Value, new: &Value, request: bool, at: &str) {
        for (keyword, upper) in [
            ("maxLength", true),
            ("maxItems", true),
            ("maximum", true),
            ("minLength", false),
            ("minItems", false),
            ("minimum", false),
        ] {
            let (before, after) = (old[keyword].as_f64(), new[keyword].as_f64());
            let narrowed = match (before, after) {
                (Some(before), Some(after)) => {
                    if upper {
                        after < before
                    } else {
                        after > before
                    }
                }
                (None, Some(_)) => true,
                _ => false,
            };
            if before != after {
                let shown =
                    |bound: Option<f64>| bound.map_or("none".to_string(), |b| b.to_string());
                self.say(
                    narrowed && request,
                    "all",
                    format!("{at}: {keyword} {} became {}", shown(before), shown(after)),
                );
            }
        }
        if old["pattern"] != new["pattern"] && !new["pattern"].is_null() {
            self.say(
                request,
                "all",
                format!(
                    "{at}: pattern {} became {}",
                    old["pattern"].as_str().unwrap_or("none"),
                    new["pattern"].as_str().unwrap_or("none")
                ),
            );
        }
    }

    fn properties(
        &mut self,
        old: &'a Value,
        new: &'a Value,
        direction: Direction,
        shown: &str,
        at: &str,
        seen: &mut BTreeSet<(String, String)>,
    ) {
        let (old_properties, new_properties) = (&old["properties"], &new["properties"]);
        let required = |schema: &Value, name: &str| {
            schema["required"]
                .as_array()
                .is_some_and(|list| list.iter().any(|item| item == name))
        };
        let request = direction == Direction::Request;
        let closed = old["additionalProperties"] == Value::Bool(false);
        for (name, old_property) in entries(old_properties) {
            let place = format!("{at}.{name}");
            match new_properties.get(name) {
                None => self.say(true, "all", format!("{place}: property removed")),
                Some(new_property) => {
                    let (before, after) = (required(old, name), required(new, name));
                    if request && !before && after {
                        self.say(true, "all", format!("{place}: became required"));
                    }
                    if !request && before && !after {
                        self.say(true, "all", format!("{place}: no longer always present"));
                    }
                    self.schema(old_property, new_property, direction, shown, &place, seen);
                }
            }
        }
        for (name, _) in entries(new_properties) {
            if old_properties.get(name).is_some() {
                continue;
            }
            let place = format!("{at}.{name}");
            if request && required(new, name) {
                self.say(true, "all", format!("{place}: new required property"));
            } else if !request && closed {
                self.say(
                    true,
                    "all",
                    format!("{place}: new property where additionalProperties was false"),
                );
            } else {
                self.say(false, "all", format!("{place}: property added"));
            }
        }
    }

    /// The XML facets of a schema: name, attribute or element, wrapping, namespace, prefix, and
    /// whether it is the element's text.
    fn xml(&mut self, old: &Value, new: &Value, at: &str) {
        let (before, after) = (&old["xml"], &new["xml"]);
        let flag = |xml: &Value, key: &str| xml[key].as_bool().unwrap_or(false);
        let text = |xml: &Value, key: &str| xml[key].as_str().map(str::to_string);
        for (key, yes, no) in [
            ("attribute", "an attribute", "an element"),
            ("wrapped", "wrapped", "not wrapped"),
        ] {
            if flag(before, key) != flag(after, key) {
                let (from, to) = if flag(before, key) {
                    (yes, no)
                } else {
                    (no, yes)
                };
                self.say(true, "xml", format!("{at}: {from} became {to}"));
            }
        }
        if flag(before, "x-text") != flag(after, "x-text") {
            self.say(
                true,
                "xml",
                format!(
                    "{at}: x-text {} became {}",
                    flag(before, "x-text"),
                    flag(after, "x-text")
                ),
            );
        }
        for key in ["name", "namespace", "prefix"] {
            let (from, to) = (text(before, key), text(after, key));
            if from != to {
                self.say(
                    true,
                    "xml",
                    format!(
                        "{at}: xml {key} {} became {}",
                        from.as_deref().unwrap_or("none"),
                        to.as_deref().unwrap_or("none")
                    ),
                );
            }
        }
    }
}

fn join(values: &[&String]) -> String {
    values
        .iter()
        .map(|value| value.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn compact_text(value: Option<&Value>) -> String {
    value.map_or("none".to_string(), Value::to_string)
}

/// The members of an object (none when it is not one).
fn entries(value: &Value) -> impl Iterator<Item = (&String, &Value)> {
    value.as_object().into_iter().flatten()
}
