//! The error walk against the reference reader (the tree, then `tree::check`): the same error,
//! or none, for bodies whose errors stand in every order the ranking can meet them.

use core_api::tables;
use core_api_support::Schema;

use super::first_error;
use crate::{Limits, json, tree};

/// What the reference reports before the typed conversion.
fn reference(text: &str, schema: &'static Schema, limits: &Limits) -> Option<String> {
    json::parse(text.as_bytes(), limits)
        .and_then(|value| tree::check(&value, schema, limits.max_depth))
        .err()
        .map(|error| error.to_string())
}

/// Requires the walk to report what the reference reports, and returns it.
fn agrees(text: &str, schema: &'static Schema) -> Option<String> {
    agrees_within(text, schema, &Limits::default())
}

fn agrees_within(text: &str, schema: &'static Schema, limits: &Limits) -> Option<String> {
    let walked = first_error(text.as_bytes(), schema, limits).map(|error| error.to_string());
    assert_eq!(walked, reference(text, schema, limits), "{text}");
    walked
}

fn pim(text: &str) -> Option<String> {
    agrees(text, &tables::PIM_TYPE)
}

#[test]
fn a_valid_body_has_no_error() {
    let keywords = r#"{"kwds":{"kwd":[{"id":1,"path":"/a","name":{"itm":[{"value":"A"}]}}]}}"#;
    assert_eq!(pim(keywords), None);
    assert_eq!(pim(r#"{"xmlns":"urn:x","kwds":{}}"#), None);
}

#[test]
fn the_parser_errors_come_first_wherever_they_stand() {
    assert!(pim("").is_some());
    assert!(pim(" \n").is_some());
    assert!(agrees_bytes(b"{\"kwds\":\"\xff\"}").is_some());
    // A syntax error after a wrong type, a repeated key after an unknown property.
    assert!(pim(r#"{"kwds":1,"x":}"#).is_some_and(|error| error.contains("line 1")));
    let repeated = pim(r#"{"zz":1,"kwds":{"kwd":[{"id":1},{"id":2,"id":3}]}}"#);
    assert_eq!(
        repeated.as_deref(),
        Some("kwds/kwd[2]: 'id' occurs more than once")
    );
    // Repeated keys are found in what no check looks into, and at the root's `xmlns`.
    assert!(pim(r#"{"zz":{"a":[{"b":1,"b":2}]}}"#).is_some());
    assert!(pim(r#"{"xmlns":"a","xmlns":"b"}"#).is_some());
    assert!(pim(r#"{"kwds":{}} x"#).is_some());
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(pim(&deep).is_some());
}

fn agrees_bytes(bytes: &[u8]) -> Option<String> {
    let limits = Limits::default();
    let walked = first_error(bytes, &tables::PIM_TYPE, &limits).map(|error| error.to_string());
    let reference = json::parse(bytes, &limits)
        .err()
        .map(|error| error.to_string());
    assert_eq!(walked, reference);
    walked
}

#[test]
fn the_first_error_is_chosen_in_table_order_not_text_order() {
    // The same two errors, given in both orders, report the same one.
    let one = pim(r#"{"kwds":{"kwd":[{"id":"x"}]},"peos":1}"#);
    let other = pim(r#"{"peos":1,"kwds":{"kwd":[{"id":"x"}]}}"#);
    assert_eq!(one, other);
    // An unknown property given last is reported before any field's error.
    let unknown = pim(r#"{"kwds":{"kwd":[{"id":"x"}]},"zz":1}"#);
    assert_eq!(unknown.as_deref(), Some("unknown property 'zz'"));
    // Within an array, the first item's error; the count before any item's.
    assert!(pim(r#"{"kwds":{"kwd":[{"id":1},{"id":"b"},{"id":"c"}]}}"#).is_some());
    assert!(pim(r#"{"kwds":{"kwd":{}}}"#).is_some());
    assert!(pim(r#"{"kwds":[]}"#).is_some());
}

#[test]
fn every_kind_of_value_meets_every_kind_of_expectation() {
    let values = [
        "null",
        "true",
        "1",
        "-1",
        "1.5",
        "18446744073709551615",
        "\"x\"",
        "\"\\u0001\"",
        "[]",
        "[1]",
        "{}",
        r#"{"a":1}"#,
    ];
    for value in values {
        for body in [
            format!(r#"{{"kwds":{value}}}"#),
            format!(r#"{{"kwds":{{"kwd":{value}}}}}"#),
            format!(r#"{{"kwds":{{"kwd":[{value}]}}}}"#),
            format!(r#"{{"kwds":{{"kwd":[{{"id":{value}}}]}}}}"#),
            format!(r#"{{"kwds":{{"kwd":[{{"id":1,"name":{value}}}]}}}}"#),
            format!(r#"{{"kwds":{{"kwd":[{{"id":1,"name":{{"itm":[{{"value":{value}}}]}}}}]}}}}"#),
            format!(r#"{{"meta":{{"itm":[{{"key":{value},"value":"x"}}]}}}}"#),
            value.to_string(),
        ] {
            pim(&body);
        }
    }
}

#[test]
fn objects_past_the_depth_limit_are_refused_where_they_start() {
    let nested = r#"{"kwds":{"kwd":[{"id":1,"name":{"itm":[{"value":"A"}]}}]}}"#;
    let refused: Vec<bool> = (0..7)
        .map(|max_depth| agrees_within(nested, &tables::PIM_TYPE, &Limits { max_depth }).is_some())
        .collect();
    assert_eq!(refused, [true, true, true, true, false, false, false]);
}

/// Requires the rewrite of compact JSON, then the walk, to report what the reference reports
/// (the tree, `from_compact`, `tree::check`), and returns it.
fn compact_agrees(text: &str, schema: &'static Schema) -> Option<String> {
    let limits = Limits::default();
    let walked = match super::rewrite_compact(text.as_bytes(), schema, &limits) {
        Ok(rewritten) => first_error(rewritten.as_bytes(), schema, &limits),
        Err(error) => Some(error),
    }
    .map(|error| error.to_string());
    let reference = json::parse(text.as_bytes(), &limits)
        .and_then(|value| crate::compact::from_compact(value, schema))
        .and_then(|value| tree::check(&value, schema, limits.max_depth))
        .err()
        .map(|error| error.to_string());
    assert_eq!(walked, reference, "{text}");
    walked
}

#[test]
fn compact_forms_are_rewritten_with_the_reference_errors() {
    let pim = |text: &str| compact_agrees(text, &tables::PIM_TYPE);
    assert_eq!(
        pim(r#"{"meta":{"a":["x",{"value":"y","loc":"de"}],"b":"z"}}"#),
        None
    );
    assert_eq!(pim(r#"{"xmlns":[1],"kwds":{"entries":[{"id":1}]}}"#), None);
    for text in [
        // Map form: an entry neither text nor object, an object naming the key, arrays of those.
        r#"{"meta":{"a":1}}"#,
        r#"{"meta":{"a":"x","b":null,"c":{"key":"c"}}}"#,
        r#"{"meta":{"a":["x",["y"]]}}"#,
        r#"{"meta":{"a":{"value":1}}}"#,
        r#"{"meta":[]}"#,
        // Entries form: the items under their own name; the rewrite's order of properties.
        r#"{"kwds":{"entries":[{"id":1}],"kwd":[]}}"#,
        r#"{"kwds":{"entries":[{"id":"x"}],"zz":1,"yy":2}}"#,
        r#"{"kwds":{"entries":{"id":1}}}"#,
        r#"{"kwds":{"entries":[1]}}"#,
        r#"{"kwds":1}"#,
        // Value form: a text, a list, anything else.
        r#"{"attrs":{"entries":[{"id":1,"vals":{"entries":[{"value":1}]}}]}}"#,
        r#"{"attrs":{"entries":[{"id":1,"vals":{"entries":[{"value":["a",{"value":"b"}]}]}}]}}"#,
        r#"{"attrs":{"entries":[{"id":1,"vals":{"entries":[{"value":[],"itm":[]}]}}]}}"#,
        // Repeated keys and syntax, before any error of the rewrite.
        r#"{"meta":{"a":1},"meta":{}}"#,
        r#"{"meta":{"a":{"value":"x","value":"y"}}}"#,
        r#"{"meta":{"a":1}"#,
    ] {
        assert!(pim(text).is_some(), "{text}");
    }
    let nested = r#"{"kwds":{"entries":[{"id":1,"name":{"itm":[{"value":"A"}]}}]}}"#;
    for max_depth in 0..7 {
        let limits = Limits { max_depth };
        let rewritten = super::rewrite_compact(nested.as_bytes(), &tables::PIM_TYPE, &limits);
        let walked = rewritten.map(|text| first_error(text.as_bytes(), &tables::PIM_TYPE, &limits));
        let reference = json::parse(nested.as_bytes(), &limits)
            .and_then(|value| crate::compact::from_compact(value, &tables::PIM_TYPE))
            .and_then(|value| tree::check(&value, &tables::PIM_TYPE, max_depth));
        assert_eq!(
            walked.ok().flatten().map(|error| error.to_string()),
            reference.err().map(|error| error.to_string()),
            "at most {max_depth} levels"
        );
    }
}

/// Found by Schemathesis: a repeated scalar property (a PEO's `nodes`, texts) was written empty
/// by the rewrite, which lost its items and let a forbidden character through.
#[test]
fn repeated_scalars_survive_the_compact_rewrite() {
    let codec = crate::Codec::new("urn:core-interface:v1", Limits::default());
    let body = |node: &str| {
        format!(
            r#"{{"meta":{{"a":["x","y"]}},"peos":{{"entries":[{{"tid":"P","nodes":{{"entries":[{node},"n2"]}}}}]}}}}"#
        )
    };
    for node in [r#""n1""#, r#""\u000f""#, "1", "[]", "{}"] {
        let text = body(node);
        compact_agrees(&text, &tables::PIM_TYPE);
        let engine = codec.decode_typed::<core_api::types::PimType>(
            core_api_support::Representation::Compact,
            text.as_bytes(),
            &tables::PIM_TYPE,
        );
        let reference = codec.decode_reference::<core_api::types::PimType>(
            core_api_support::Representation::Compact,
            text.as_bytes(),
            &tables::PIM_TYPE,
        );
        assert_eq!(
            engine.map_err(|error| error.to_string()),
            reference.map_err(|error| error.to_string()),
            "{text}"
        );
    }
}

/// Found by fuzzing (`decode_compact`): an integer of more digits than a `u64` holds, where an
/// integer is due, was shown rounded differently by the rewrite than by the reference.
#[test]
fn long_integers_are_shown_as_the_reference_shows_them() {
    let digits = format!("{}400", "6".repeat(100));
    for text in [
        format!(r#"{{"responses":{{"entries":[{{"nodeId":{digits}}}]}}}}"#),
        format!(r#"{{"kwds":{{"entries":[{{"id":-{digits}}}]}}}}"#),
        format!(r#"{{"kwds":{{"entries":[{{"id":{digits}.5e-3}}]}}}}"#),
    ] {
        assert!(compact_agrees(&text, &tables::PIM_TYPE).is_some(), "{text}");
    }
    let json = format!(r#"{{"responses":{{"response":[{{"nodeId":{digits}}}]}}}}"#);
    assert!(pim(&json).is_some());
}
