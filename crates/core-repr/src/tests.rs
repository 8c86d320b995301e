//! The engine's refusals and edge cases; the documented examples (contract tests) cover the
//! ordinary shapes.

use core_api::tables;
use core_api_support::Representation::{Compact, Json, Xml};
use serde_json::json;

use super::{Codec, Limits, Problem};

fn codec() -> Codec {
    Codec::new("urn:core-interface:v1", Limits::default())
}

fn xml_problem(text: &str) -> Problem {
    codec()
        .decode(Xml, text.as_bytes(), &tables::PIM_TYPE)
        .expect_err("refused")
        .problem
}

#[test]
fn a_doctype_is_refused_and_never_expanded() {
    let laughs = r#"<?xml version="1.0"?><!DOCTYPE pim [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><pim xmlns="urn:core-interface:v1"><meta><itm key="x">&b;</itm></meta></pim>"#;
    assert_eq!(xml_problem(laughs), Problem::Doctype);
}

#[test]
fn only_predefined_entities_and_character_references_resolve() {
    let value = codec()
        .decode(Xml, br#"<pim xmlns="urn:core-interface:v1"><meta><itm key="k">a&amp;b&#x41;&#66;</itm></meta></pim>"#, &tables::PIM_TYPE)
        .expect("decodes");
    assert_eq!(value["meta"]["itm"][0]["value"], "a&bAB");
    assert_eq!(
        xml_problem(
            r#"<pim xmlns="urn:core-interface:v1"><meta><itm key="k">&foo;</itm></meta></pim>"#
        ),
        Problem::UnknownEntity("foo".into())
    );
}

#[test]
fn the_root_must_be_pim_in_the_configured_namespace() {
    assert!(matches!(
        xml_problem(r#"<foo xmlns="urn:core-interface:v1"/>"#),
        Problem::WrongRoot { .. }
    ));
    assert!(matches!(
        xml_problem("<pim/>"),
        Problem::WrongNamespace { found: None, .. }
    ));
    assert!(matches!(
        xml_problem(r#"<pim xmlns="urn:other"/>"#),
        Problem::WrongNamespace { .. }
    ));
    let prefixed =
        r#"<c:pim xmlns:c="urn:core-interface:v1"><c:kwds><c:kwd id="1"/></c:kwds></c:pim>"#;
    assert!(
        codec()
            .decode(Xml, prefixed.as_bytes(), &tables::PIM_TYPE)
            .is_ok(),
        "a prefix bound to the namespace is fine"
    );
}

#[test]
fn unknown_elements_attributes_and_stray_text_are_named() {
    let error = codec()
        .decode(
            Xml,
            br#"<pim xmlns="urn:core-interface:v1"><kwds><kwd colour="red"/></kwds></pim>"#,
            &tables::PIM_TYPE,
        )
        .expect_err("refused");
    assert_eq!(error.to_string(), "kwds/kwd[1]: unknown attribute 'colour'");
    let error = codec()
        .decode(
            Xml,
            br#"<pim xmlns="urn:core-interface:v1"><kwds><keyword/></kwds></pim>"#,
            &tables::PIM_TYPE,
        )
        .expect_err("refused");
    assert_eq!(error.to_string(), "kwds: unknown element 'keyword'");
    assert!(matches!(
        xml_problem(r#"<pim xmlns="urn:core-interface:v1"><kwds>hello</kwds></pim>"#),
        Problem::UnexpectedText(_)
    ));
    assert!(matches!(
        xml_problem(r#"<pim xmlns="urn:core-interface:v1"><meta/><meta/></pim>"#),
        Problem::Duplicate(_)
    ));
}

#[test]
fn malformed_and_non_utf8_bodies_are_refused() {
    assert!(matches!(
        xml_problem(r#"<pim xmlns="urn:core-interface:v1"><kwds></pim>"#),
        Problem::Malformed(_)
    ));
    assert!(matches!(xml_problem("<pim"), Problem::Malformed(_)));
    assert!(matches!(xml_problem(""), Problem::Empty));
    let error = codec()
        .decode(Json, b"{\"kwds\": \xff}", &tables::PIM_TYPE)
        .expect_err("refused");
    assert!(matches!(error.problem, Problem::InvalidUtf8 { offset: 9 }));
    let error = codec()
        .decode(Json, b"{\"kwds\":", &tables::PIM_TYPE)
        .expect_err("refused");
    assert!(matches!(error.problem, Problem::Malformed(_)));
}

#[test]
fn nesting_beyond_the_limit_is_refused() {
    let depth = 200;
    let text = format!(
        r#"<pim xmlns="urn:core-interface:v1"><links>{}{}</links></pim>"#,
        "<itms>".repeat(depth),
        "</itms>".repeat(depth)
    );
    assert_eq!(xml_problem(&text), Problem::TooDeep { limit: 64 });
    let mut json = String::from(r#"{"links":{"itms":["#);
    json.push_str(&r#"{"itms":["#.repeat(100));
    json.push_str(&"]}".repeat(100));
    json.push_str("]}}");
    let error = codec()
        .decode(Json, json.as_bytes(), &tables::PIM_TYPE)
        .expect_err("refused");
    assert!(matches!(error.problem, Problem::TooDeep { .. }), "{error}");
}

#[test]
fn json_types_are_checked_with_paths() {
    let error = codec()
        .decode(
            Json,
            br#"{"kwds":{"kwd":[{},{"id":"abc"}]}}"#,
            &tables::PIM_TYPE,
        )
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        r#"kwds/kwd[2]/id: expected integer, found "abc""#
    );
    let error = codec()
        .decode(
            Json,
            br#"{"meta":{"itm":[{"value":"x"}]}}"#,
            &tables::PIM_TYPE,
        )
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        "meta/itm[1]: missing required value 'key'"
    );
    let error = codec()
        .decode(
            Json,
            br#"{"ids":[1],"nodeIds":[2]}"#,
            &tables::ATTRIBUTES_RETRIEVE_REQUEST,
        )
        .expect_err("refused");
    assert!(matches!(error.problem, Problem::ExactlyOneOf(_)));
    assert!(
        codec()
            .decode(Json, br#"{"xmlns":"urn:x","kwds":{}}"#, &tables::PIM_TYPE)
            .is_ok(),
        "xmlns is ignored"
    );
}

#[test]
fn compact_values_collapse_only_when_nothing_is_lost() {
    let tree = json!({"projects": {"project": [{"tid": "a", "vals": {"val": [
        {"attr": "One", "itm": [{"value": "x"}]},
        {"attr": "Positioned", "itm": [{"value": "x", "pos": 0}]},
        {"attr": "Sizes", "type": "multiple", "itm": [{"value": "S", "pos": 0}]},
        {"attr": "Empty"}
    ]}}]}});
    let compact: serde_json::Value = serde_json::from_slice(
        &codec()
            .encode(Compact, tree.clone(), &tables::PIM_TYPE)
            .expect("encodes"),
    )
    .expect("JSON");
    let vals = &compact["projects"]["entries"][0]["vals"]["entries"];
    assert_eq!(vals[0], json!({"attr": "One", "value": "x"}));
    assert_eq!(
        vals[1],
        json!({"attr": "Positioned", "value": [{"value": "x", "pos": 0}]})
    );
    assert_eq!(
        vals[2],
        json!({"attr": "Sizes", "type": "multiple", "value": [{"value": "S", "pos": 0}]})
    );
    assert_eq!(vals[3], json!({"attr": "Empty", "value": []}));
    let back = codec()
        .decode(
            Compact,
            &serde_json::to_vec(&compact).expect("JSON"),
            &tables::PIM_TYPE,
        )
        .expect("decodes");
    let (mut back, mut tree) = (back, tree);
    super::tree::normalize(&mut back, &tables::PIM_TYPE);
    super::tree::normalize(&mut tree, &tables::PIM_TYPE);
    assert_eq!(back, tree);
}

#[test]
fn compact_meta_keeps_locales_positions_and_repeated_keys() {
    let tree = json!({"meta": {"itm": [
        {"key": "a", "value": "1"},
        {"key": "value", "loc": "en_GB", "value": "shirt"},
        {"key": "r", "value": "x"},
        {"key": "r", "value": "y"}
    ]}});
    let compact: serde_json::Value = serde_json::from_slice(
        &codec()
            .encode(Compact, tree.clone(), &tables::PIM_TYPE)
            .expect("encodes"),
    )
    .expect("JSON");
    assert_eq!(
        compact["meta"],
        json!({"a": "1", "value": {"loc": "en_GB", "value": "shirt"}, "r": ["x", "y"]})
    );
    let back = codec()
        .decode(
            Compact,
            &serde_json::to_vec(&compact).expect("JSON"),
            &tables::PIM_TYPE,
        )
        .expect("decodes");
    assert_eq!(back, tree);
}

#[test]
fn xml_keeps_whitespace_in_attributes_and_text() {
    let tree = json!({"meta": {"itm": [{"key": "a\tb\nc", "value": " padded\r\n text "}]}});
    let xml = codec()
        .encode(Xml, tree.clone(), &tables::PIM_TYPE)
        .expect("encodes");
    let back = codec()
        .decode(Xml, &xml, &tables::PIM_TYPE)
        .expect("decodes");
    assert_eq!(back, tree);
    let control = json!({"meta": {"itm": [{"key": "a", "value": "bell\u{7}"}]}});
    assert!(
        codec().encode(Xml, control, &tables::PIM_TYPE).is_err(),
        "XML 1.0 cannot carry U+0007"
    );
}

#[test]
fn forbidden_characters_are_found_past_the_byte_scan() {
    use super::text::find_forbidden;
    assert_eq!(find_forbidden("plain text,\ttabs\r\nand lines"), None);
    assert_eq!(find_forbidden("fullwidth Ａ and BOM \u{feff} pass"), None);
    assert_eq!(find_forbidden("bell \u{7}"), Some('\u{7}'));
    assert_eq!(find_forbidden("not a character \u{fffe}"), Some('\u{fffe}'));
    assert_eq!(find_forbidden("not a character \u{ffff}"), Some('\u{ffff}'));
    let long = format!("{}\u{1}", "x".repeat(200));
    assert_eq!(find_forbidden(&long), Some('\u{1}'));
}

#[test]
fn meta_items_sharing_a_key_decode_grouped() {
    let json = br#"{"meta":{"itm":[{"key":"a","value":"1"},{"key":"b","value":"2"},{"key":"a","value":"3"}]}}"#;
    let tree = codec()
        .decode(Json, json, &tables::PIM_TYPE)
        .expect("decodes");
    let keys: Vec<&str> = tree["meta"]["itm"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["key"].as_str())
        .collect();
    assert_eq!(keys, ["a", "a", "b"]);
}

#[test]
fn decoded_lists_hold_no_unused_capacity() {
    // The generated types read lists with `core_api_support::list`, so a one-item list is one
    // allocation of one element, in every representation (serde's own reader reserves four).
    let xml = br#"<pim xmlns="urn:core-interface:v1"><projects><project tid="CH-1"><vals><val attr="Comment"><itm>Cover</itm></val></vals></project></projects></pim>"#;
    let json = br#"{"projects":{"project":[{"tid":"CH-1","vals":{"val":[{"attr":"Comment","itm":[{"value":"Cover"}]}]}}]}}"#;
    for (representation, body) in [(Xml, &xml[..]), (Json, &json[..])] {
        let message: core_api::types::PimType = codec()
            .decode_typed(representation, body, &tables::PIM_TYPE)
            .expect("decodes");
        let projects = &message.projects.expect("projects").project;
        let vals = &projects[0].vals.as_ref().expect("vals").val;
        let items = &vals[0].itm;
        assert_eq!(items[0].value, "Cover");
        assert_eq!(
            [projects.capacity(), vals.capacity(), items.capacity()],
            [1, 1, 1],
            "{representation:?}"
        );
    }
}

/// A message's constraints (lengths, counts, bounds, patterns) are refused alike in every
/// representation, with the path of the value, by both XML readers. (XML names an element's text
/// by the element's path; JSON by the property holding it, `value`.)
#[test]
fn the_document_constraints_are_refused_in_every_representation() {
    let codec = codec();
    let long = "x".repeat(256);
    let refusals = [
        (
            format!(r#"{{"kwds":{{"kwd":[{{"id":1,"name":{{"itm":[{{"value":"{long}"}}]}}}}]}}}}"#),
            format!(
                r#"{{"kwds":{{"entries":[{{"id":1,"name":{{"itm":[{{"value":"{long}"}}]}}}}]}}}}"#
            ),
            format!(
                r#"<pim xmlns="urn:core-interface:v1"><kwds><kwd id="1"><name><itm>{long}</itm></name></kwd></kwds></pim>"#
            ),
            "kwds/kwd[1]/name/itm[1]/value: 256 characters exceed the limit of 255 characters",
        ),
        (
            format!(
                r#"{{"kwds":{{"kwd":[{{"path":"/{}"}}]}}}}"#,
                "p".repeat(1024)
            ),
            format!(
                r#"{{"kwds":{{"entries":[{{"path":"/{}"}}]}}}}"#,
                "p".repeat(1024)
            ),
            format!(
                r#"<pim xmlns="urn:core-interface:v1"><kwds><kwd path="/{}"/></kwds></pim>"#,
                "p".repeat(1024)
            ),
            "kwds/kwd[1]/path: 1025 characters exceed the limit of 1024 characters",
        ),
        (
            r#"{"schemaVersion":"6.0.0"}"#.to_string(),
            r#"{"schemaVersion":"6.0.0"}"#.to_string(),
            r#"<pim xmlns="urn:core-interface:v1" schemaVersion="6.0.0"/>"#.to_string(),
            "schemaVersion: unsupported schemaVersion '6.0.0' (this service speaks 5.6.0)",
        ),
    ];
    for (json, compact, xml, said) in refusals {
        for (representation, body) in [(Json, &json), (Compact, &compact), (Xml, &xml)] {
            let error = codec
                .decode_typed::<core_api::types::PimType>(
                    representation,
                    body.as_bytes(),
                    &tables::PIM_TYPE,
                )
                .expect_err("refused");
            let said = match representation {
                Xml => said.replace("/value:", ":"),
                _ => said.to_string(),
            };
            assert_eq!(error.to_string(), said, "{representation:?}");
        }
        let error = super::xml::read_reference::<core_api::types::PimType>(
            xml.as_bytes(),
            &tables::PIM_TYPE,
            "urn:core-interface:v1",
            &Limits::default(),
        )
        .expect_err("refused");
        assert_eq!(
            error.to_string(),
            said.replace("/value:", ":"),
            "reference reader"
        );
    }
    // Within the limits, all is read; a name of 255 characters and a path of 1,024 included.
    let name = "n".repeat(255);
    let fits = format!(
        r#"<pim xmlns="urn:core-interface:v1" schemaVersion="5.1.0"><kwds><kwd path="/{}"><name><itm>{name}</itm></name></kwd></kwds></pim>"#,
        "p".repeat(1023)
    );
    assert!(
        codec
            .decode_typed::<core_api::types::PimType>(Xml, fits.as_bytes(), &tables::PIM_TYPE)
            .is_ok()
    );
}

/// A batch collection holds at most its `maxItems`, in every representation and both XML
/// readers; other lists (a retrieve answer's keywords) have no such limit.
#[test]
fn a_batch_collection_holds_at_most_its_max_items() {
    let codec = codec();
    let schema = &tables::KEYWORDS_PERSIST_REQUEST;
    let items = |count: usize| {
        let xml = format!(
            r#"<pim xmlns="urn:core-interface:v1"><kwds>{}</kwds></pim>"#,
            r#"<kwd id="1"/>"#.repeat(count)
        );
        let json = format!(
            r#"{{"kwds":{{"kwd":[{}]}}}}"#,
            vec![r#"{"id":1}"#; count].join(",")
        );
        let compact = json.replace(r#""kwd":"#, r#""entries":"#);
        [(Xml, xml), (Json, json), (Compact, compact)]
    };
    for (representation, body) in items(1001) {
        let error = codec
            .decode_typed::<core_api::types::KeywordsPersistRequest>(
                representation,
                body.as_bytes(),
                schema,
            )
            .expect_err("refused");
        assert_eq!(
            error.to_string(),
            "kwds/kwd: 1001 items exceed the limit of 1000 items",
            "{representation:?}"
        );
    }
    for (representation, body) in items(1000) {
        assert!(
            codec
                .decode_typed::<core_api::types::KeywordsPersistRequest>(
                    representation,
                    body.as_bytes(),
                    schema
                )
                .is_ok(),
            "{representation:?}"
        );
        // The same keywords in a message no batch reads (transform) are not limited.
        let body = body.replace("1\"/>", "1\"/><kwd id=\"2\"/>");
        assert!(
            codec
                .decode(representation, body.as_bytes(), &tables::PIM_TYPE)
                .is_ok()
        );
    }
}

/// Integer bounds and excluded values, and the rules of a request object, come from the
/// document, with its wording where it gives one.
#[test]
fn bounds_and_rules_come_from_the_document() {
    let codec = codec();
    let refused = |body: &str, schema| {
        codec
            .decode(Json, body.as_bytes(), schema)
            .expect_err("refused")
            .to_string()
    };
    let level = &tables::KEYWORD_REQUEST;
    assert_eq!(
        refused(r#"{"path":"/","level":0}"#, level),
        "level: 0 is invalid; give 1 or more generations, or -1 for all levels"
    );
    assert_eq!(
        refused(r#"{"path":"/","level":-2}"#, level),
        "level: -2 is invalid; give 1 or more generations, or -1 for all levels"
    );
    for fine in [
        r#"{"path":"/","level":-1}"#,
        r#"{"path":"/","level":1}"#,
        r#"{"path":"/"}"#,
    ] {
        assert!(codec.decode(Json, fine.as_bytes(), level).is_ok(), "{fine}");
    }
    let locales = &tables::LOCALE_REQUEST;
    for (body, said) in [
        (
            r#"{"mode":"ALL","ids":[1]}"#,
            "ids: when ids is set, mode must be ID",
        ),
        (
            r#"{"mode":"ID","tids":["de_DE"]}"#,
            "tids: when tids is set, mode must be TID",
        ),
        (
            r#"{"mode":"ID","ids":[]}"#,
            "ids: mode ID needs a non-empty ids",
        ),
        (r#"{"mode":"TID"}"#, "tids: mode TID needs a non-empty tids"),
    ] {
        assert_eq!(refused(body, locales), said);
    }
    for fine in [
        r#"{"mode":"ALL","ids":[]}"#,
        r#"{"mode":"ID","ids":[1],"tids":[]}"#,
        r#"{"mode":"TID","tids":["de_DE"]}"#,
    ] {
        assert!(
            codec.decode(Json, fine.as_bytes(), locales).is_ok(),
            "{fine}"
        );
    }
    let versions = &tables::ASSETS_VERSIONS_BIN_QUERY;
    assert_eq!(
        refused(r#"{"versionNumber":0}"#, versions),
        "versionNumber: 0 is out of range: at least 1"
    );
}

/// The selectors of channel requests are rules of the document, checked before any operation.
#[test]
fn channel_selectors_are_rules_of_the_document() {
    let codec = codec();
    let query = &tables::CHANNEL_QUERY_DTO;
    for body in [
        r#"{}"#,
        r#"{"root":false}"#,
        r#"{"id":1,"tid":"A"}"#,
        r#"{"id":1,"root":true}"#,
    ] {
        let error = codec
            .decode(Json, body.as_bytes(), query)
            .expect_err("refused");
        assert_eq!(
            error.to_string(),
            "exactly one of id, tid or root true must be given",
            "{body}"
        );
    }
    for body in [
        r#"{"id":1}"#,
        r#"{"tid":"A","level":2}"#,
        r#"{"root":true}"#,
        r#"{"id":1,"root":false}"#,
    ] {
        assert!(codec.decode(Json, body.as_bytes(), query).is_ok(), "{body}");
    }
    let retrieve = &tables::CHANNEL_REQUEST_DTO;
    assert_eq!(
        codec
            .decode(Json, b"{}", retrieve)
            .expect_err("refused")
            .to_string(),
        "ids or tids must be given"
    );
    assert!(codec.decode(Json, br#"{"tids":[]}"#, retrieve).is_ok());
}
