//! The mapping rules of the specification ("Message envelope"), one named test each, and a
//! property test: messages generated from the schema tables survive every path through the three
//! representations unchanged.

use std::sync::OnceLock;

use contract_tests::{published, table, validator};
use core_api::{document::XML_NAMESPACE_DEFAULT, tables, types};
use core_api_support::{
    Compact as CompactForm, Field, Kind, Representation,
    Representation::{Compact, Json, Xml},
    Scalar, Schema, Type,
};
use core_server::repr::{Codec, Limits, tree, xml};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn codec() -> Codec {
    Codec::new(XML_NAMESPACE_DEFAULT, Limits::default())
}

/// Decodes a message given in one representation and writes it in another.
fn convert(from: Representation, text: &str, to: Representation) -> String {
    let codec = codec();
    let tree = codec
        .decode(from, text.as_bytes(), &tables::PIM_TYPE)
        .expect("decodes");
    String::from_utf8(codec.encode(to, tree, &tables::PIM_TYPE).expect("encodes")).expect("UTF-8")
}

fn to_json(from: Representation, text: &str, to: Representation) -> Value {
    serde_json::from_str(&convert(from, text, to)).expect("JSON")
}

const NS: &str = r#"xmlns="urn:core-interface:v1""#;

// ---------------------------------------------------------------- XML

#[test]
fn xml_root_is_pim_in_the_configured_namespace_with_schema_version() {
    let xml = convert(Json, r#"{"schemaVersion":"5.6.0","kwds":{"kwd":[]}}"#, Xml);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    assert!(
        xml.contains(&format!(r#"<pim {NS} schemaVersion="5.6.0">"#)),
        "{xml}"
    );
}

#[test]
fn xml_attributes_and_child_elements_follow_the_document() {
    let json = r#"{"projects":{"project":[{"name":"N","tid":"a","id":5,"orderSequence":2}]}}"#;
    let xml = convert(Json, json, Xml);
    assert!(
        xml.contains(r#"<project id="5" tid="a" orderSequence="2">"#),
        "{xml}"
    );
    assert!(xml.contains("<name>N</name>"), "{xml}");
}

#[test]
fn xml_collections_hold_repeated_children() {
    let xml = convert(
        Json,
        r#"{"kwds":{"kwd":[{"id":1},{"id":2}]},"locales":{"locale":[]}}"#,
        Xml,
    );
    assert!(
        xml.contains("<kwds>\n    <kwd id=\"1\"/>\n    <kwd id=\"2\"/>\n  </kwds>"),
        "{xml}"
    );
    assert!(
        xml.contains("<locales/>"),
        "an empty collection is written as an empty element: {xml}"
    );
}

#[test]
fn xml_meta_itm_carries_key_pos_loc_and_text() {
    let json = r#"{"meta":{"itm":[{"key":"sourceEnv","value":"ci"},{"key":"k","pos":1,"loc":"de_DE","value":"x"}]}}"#;
    let xml = convert(Json, json, Xml);
    assert!(xml.contains(r#"<itm key="sourceEnv">ci</itm>"#), "{xml}");
    assert!(
        xml.contains(r#"<itm key="k" pos="1" loc="de_DE">x</itm>"#),
        "{xml}"
    );
}

/// Reads XML through the engine (fast path first) and through the reference reader alone, into
/// the typed value and into the tree, and requires the same answer from both: the same value or
/// the same error.
fn both_xml_readers_agree(text: &str) {
    let schema = &tables::PIM_TYPE;
    let limits = Limits::default();
    let typed =
        xml::read::<types::PimType>(text.as_bytes(), schema, XML_NAMESPACE_DEFAULT, &limits);
    let reference = xml::read_reference::<types::PimType>(
        text.as_bytes(),
        schema,
        XML_NAMESPACE_DEFAULT,
        &limits,
    );
    match (&typed, &reference) {
        (Ok(fast), Ok(reference)) => assert_eq!(fast, reference, "{text}"),
        (Err(fast), Err(reference)) => {
            assert_eq!(fast.to_string(), reference.to_string(), "{text}")
        }
        _ => panic!("the readers disagree on {text}: {typed:?} / {reference:?}"),
    }
    let tree = xml::read::<Value>(text.as_bytes(), schema, XML_NAMESPACE_DEFAULT, &limits);
    let reference =
        xml::read_reference::<Value>(text.as_bytes(), schema, XML_NAMESPACE_DEFAULT, &limits);
    assert_eq!(
        tree.as_ref().map_err(ToString::to_string),
        reference.as_ref().map_err(ToString::to_string),
        "{text}"
    );
}

/// Reads JSON through the engine (fast path first) and through the reference reader alone, and
/// requires the same value or the same error.
fn both_json_readers_agree(bytes: &[u8]) {
    both_readers_agree(Json, bytes);
}

/// As [`both_json_readers_agree`], in `representation` (JSON or compact JSON).
fn both_readers_agree(representation: Representation, bytes: &[u8]) {
    let schema = &tables::PIM_TYPE;
    let codec = codec();
    let typed = codec.decode_typed::<types::PimType>(representation, bytes, schema);
    let reference = codec.decode_reference::<types::PimType>(representation, bytes, schema);
    assert_eq!(
        typed.map_err(|error| error.to_string()),
        reference.map_err(|error| error.to_string()),
        "{}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn xml_fast_path_and_reference_reader_agree_on_irregular_messages() {
    let body = |inner: &str| {
        format!(r#"<?xml version="1.0"?><pim {NS} schemaVersion="5.6.0">{inner}</pim>"#)
    };
    let cases = [
        // regular, with every kind of text the fast path handles itself
        body(
            r#"<meta><itm key="a">x &amp; y</itm><itm key="a"><![CDATA[<z>]]></itm><itm key="b">&#233;<!-- c --></itm></meta>"#,
        ),
        body(
            r#"<kwds><kwd id="1"/><kwd id="2" parentId="1"><name>  spaced
 </name></kwd></kwds>"#,
        ),
        body("<kwds>\n  <kwd id=\"1\" path=\"/a&#9;b\"/>\n</kwds>"),
        body(""),
        format!("<pim {NS}/>"),
        // irregular: each goes to the reference reader
        body(r#"<meta><itm key="a">1</itm><itm key="b">2</itm><itm key="a">3</itm></meta>"#),
        body(r#"<kwds><kwd id="1"/></kwds><locales/><kwds><kwd id="2"/></kwds>"#),
        body(r#"<kwds><kwd id="1"/><!-- between --><kwd id="2"/></kwds>"#),
        format!(r#"<p:pim xmlns:p="{XML_NAMESPACE_DEFAULT}"><p:kwds/></p:pim>"#),
        body(&format!(
            r#"<kwds xmlns="{XML_NAMESPACE_DEFAULT}"><kwd id="1"/></kwds>"#
        )),
        body(r#"<kwds xmlns="urn:other"><kwd id="1"/></kwds>"#),
        body(r#"<kwds><kwd id="x"/></kwds>"#),
        body(r#"<kwds><kwd id="1" id="2"/></kwds>"#),
        body(r#"<kwds><kwd id="1" unknown="2"/></kwds>"#),
        body(r#"<kwds><kwd id="1" xml:lang="de"/></kwds>"#),
        body(r#"<kwds>text</kwds>"#),
        body(r#"<kwds>&#32;</kwds>"#),
        body(r#"<meta><itm key="a">x<b/></itm></meta>"#),
        body(r#"<meta><itm key="a">&unknown;</itm></meta>"#),
        body(r#"<meta><itm key="a&#8;">x</itm></meta>"#),
        body(r#"<meta/><meta/>"#),
        body(r#"<kwds><kwd id="1"><name loc="x">a</name></kwd></kwds>"#),
        format!("<pim {NS}></pim><pim {NS}/>"),
        format!("<pim {NS}></pim>trailing"),
        format!("<pim {NS}><kwds></pim>"),
        "<pim/>".to_string(),
        r#"<pim xmlns="urn:other"/>"#.to_string(),
        format!("<other {NS}/>"),
        format!("<!DOCTYPE pim><pim {NS}/>"),
        format!(r#"<pim {NS} xmlns:x="urn:x"/>"#),
        // the fast path's own tokenizer: forms it reads and forms it leaves to the reference
        body(r#"<kwds><kwd id='1' path = "/a>b" /></kwds>"#),
        body(r#"<kwds><kwd id="1"path="/a"/></kwds>"#),
        body(r#"<kwds><kwd id="1" path="/a<b"/></kwds>"#),
        body(r#"<kwds><kwd id="1" path="/a&#10;b&lt;"/></kwds>"#),
        body("<kwds><kwd id=\"1\" path=\"/a\r\nb\tc\"/></kwds>"),
        body(r#"<kwds><kwd id="1" path/></kwds>"#),
        body(r#"<kwds><kwd id=1/></kwds>"#),
        body(r#"<kwds><kwd id="1"/ ></kwds>"#),
        body(r#"<kwds><kwd id="1"></kwd ></kwds>"#),
        body(r#"<kwds><kwd id="1"></kwds></kwd>"#),
        body(r#"<kwds></>"#),
        body(r#"< kwds/>"#),
        body("<meta><itm key=\"a\">line\r\nbreak</itm></meta>"),
        body("<meta><itm key=\"a\"><![CDATA[a\r\nb]]></itm></meta>"),
        body(r#"<meta><itm key="a">a &amp b; c</itm></meta>"#),
        body(r#"<meta><itm key="a">a & b</itm></meta>"#),
        body(r#"<meta><itm key="a">a]]>b &#x41;&#65;&quot;&apos;&gt;</itm></meta>"#),
        body(r#"<meta><itm key="a">x<!-- a -- b -->y</itm></meta>"#),
        body(r#"<meta><itm key="a">x<!---->y<!-- - -->z</itm></meta>"#),
        body(r#"<meta><itm key="a">x<?pi here?>y</itm></meta>"#),
        body(r#"<meta><itm key="a">x</itm></meta><![CDATA[ ]]>"#),
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><!-- c --><?style x?>  <pim {NS}/>  <!-- d -->"#
        ),
        format!("<?xml version=\"1.0\"?>\r\n<pim {NS}>\r\n<kwds/>\r\n</pim>\r\n"),
        format!("<pim {NS}><kwds/></pim><?pi after?>"),
        format!("<pim {NS}><kwds/>"),
        format!("<??><pim {NS}/>"),
        format!("<![CDATA[x]]><pim {NS}/>"),
    ];
    for case in &cases {
        both_xml_readers_agree(case);
    }
    let deep = format!("{}{}", "<kwds>".repeat(70), "</kwds>".repeat(70));
    both_xml_readers_agree(&body(&deep));
}

// ---------------------------------------------------------------- default JSON

#[test]
fn json_attributes_become_properties_typed_by_the_schema() {
    let json = to_json(
        Xml,
        &format!(r#"<pim {NS}><kwds><kwd id="5" path="/A"/></kwds></pim>"#),
        Json,
    );
    assert_eq!(json["kwds"]["kwd"][0], json!({"id": 5, "path": "/A"}));
}

#[test]
fn json_repeated_children_become_arrays_under_the_child_name() {
    let xml =
        format!(r#"<pim {NS}><projects><project tid="a"/><project tid="b"/></projects></pim>"#);
    assert_eq!(
        to_json(Xml, &xml, Json)["projects"],
        json!({"project": [{"tid": "a"}, {"tid": "b"}]})
    );
    let one = format!(r#"<pim {NS}><kwds><kwd id="5"/></kwds></pim>"#);
    assert_eq!(
        to_json(Xml, &one, Json)["kwds"],
        json!({"kwd": [{"id": 5}]}),
        "one occurrence is still an array"
    );
    let vals = format!(
        r#"<pim {NS}><projects><project><vals><val attr="A"><itm>1</itm></val><val attr="B"><itm>2</itm></val></vals></project></projects></pim>"#
    );
    assert_eq!(
        to_json(Xml, &vals, Json)["projects"]["project"][0]["vals"]["val"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn json_meta_holds_itm_with_key_and_value() {
    let xml = format!(r#"<pim {NS}><meta><itm key="messageType">request</itm></meta></pim>"#);
    assert_eq!(
        to_json(Xml, &xml, Json)["meta"],
        json!({"itm": [{"key": "messageType", "value": "request"}]})
    );
}

#[test]
fn json_itm_with_text_becomes_value_with_pos_and_loc_only_when_present() {
    let xml = format!(
        r#"<pim {NS}><projects><project><vals><val attr="Claim"><itm loc="de_DE">Hallo</itm><itm pos="0">S</itm></val></vals></project></projects></pim>"#
    );
    let val = &to_json(Xml, &xml, Json)["projects"]["project"][0]["vals"]["val"][0];
    assert_eq!(
        val["itm"],
        json!([{"loc": "de_DE", "value": "Hallo"}, {"pos": 0, "value": "S"}])
    );
}

#[test]
fn json_root_is_not_wrapped_and_xmlns_is_not_written() {
    let json = to_json(Xml, &format!(r#"<pim {NS} schemaVersion="5.6.0"/>"#), Json);
    assert_eq!(json, json!({"schemaVersion": "5.6.0"}));
}

// ---------------------------------------------------------------- compact JSON

#[test]
fn compact_meta_becomes_a_plain_object() {
    let json = r#"{"meta":{"itm":[{"key":"messageType","value":"request"},{"key":"sourceEnv","value":"ci"}]}}"#;
    assert_eq!(
        to_json(Json, json, Compact)["meta"],
        json!({"messageType": "request", "sourceEnv": "ci"})
    );
}

#[test]
fn compact_collections_become_entries_with_their_attributes_beside() {
    let json = r#"{"kwds":{"kwd":[{"id":1},{"id":2}]},"locales":{"mode":"delta","locale":[{"tid":"de_DE"}]}}"#;
    let compact = to_json(Json, json, Compact);
    assert_eq!(compact["kwds"], json!({"entries": [{"id": 1}, {"id": 2}]}));
    assert_eq!(
        compact["locales"],
        json!({"mode": "delta", "entries": [{"tid": "de_DE"}]})
    );
}

#[test]
fn compact_single_val_becomes_attr_and_value() {
    let json =
        r#"{"projects":{"project":[{"vals":{"val":[{"attr":"Comment","itm":[{"value":"x"}]}]}}]}}"#;
    let compact = to_json(Json, json, Compact);
    assert_eq!(
        compact["projects"]["entries"][0]["vals"]["entries"][0],
        json!({"attr": "Comment", "value": "x"})
    );
}

#[test]
fn compact_multiple_val_becomes_attr_type_and_value_list() {
    let json = r#"{"projects":{"project":[{"vals":{"val":[{"attr":"Target_Sizes","type":"multiple","itm":[{"value":"S","pos":0},{"value":"M","pos":1}]}]}}]}}"#;
    let compact = to_json(Json, json, Compact);
    assert_eq!(
        compact["projects"]["entries"][0]["vals"]["entries"][0],
        json!({"attr": "Target_Sizes", "type": "multiple", "value": [{"value": "S", "pos": 0}, {"value": "M", "pos": 1}]})
    );
}

#[test]
fn compact_schema_version_stays_a_top_level_property() {
    assert_eq!(
        to_json(Json, r#"{"schemaVersion":"5.6.0"}"#, Compact),
        json!({"schemaVersion": "5.6.0"})
    );
}

#[test]
fn meta_items_sharing_a_key_are_grouped_in_every_representation() {
    // Compact JSON writes meta as an object, which cannot keep keys interleaved: every decoder
    // therefore groups the items of one key at its first place, keeping their order (D-08).
    let xml = format!(
        r#"<pim {NS}><meta><itm key="a">1</itm><itm key="b">2</itm><itm key="a">3</itm></meta></pim>"#
    );
    let grouped = json!({"itm": [
        {"key": "a", "value": "1"}, {"key": "a", "value": "3"}, {"key": "b", "value": "2"}
    ]});
    assert_eq!(to_json(Xml, &xml, Json)["meta"], grouped);
    let json = r#"{"meta":{"itm":[{"key":"a","value":"1"},{"key":"b","value":"2"},{"key":"a","value":"3"}]}}"#;
    assert_eq!(to_json(Json, json, Json)["meta"], grouped);
    let compact = to_json(Json, json, Compact);
    assert_eq!(compact["meta"], json!({"a": ["1", "3"], "b": "2"}));
    assert_eq!(
        to_json(Compact, &compact.to_string(), Json)["meta"],
        grouped
    );
    let typed = |representation, text: &str| -> types::PimType {
        codec()
            .decode_typed(representation, text.as_bytes(), &tables::PIM_TYPE)
            .expect("decodes")
    };
    assert_eq!(typed(Xml, &xml), typed(Json, json));
    assert_eq!(typed(Json, json), typed(Compact, &compact.to_string()));
}

// ---------------------------------------------------------------- types survive

#[test]
fn integers_booleans_absence_empty_collections_and_empty_strings_survive() {
    let message = r#"{
        "kwds": {"kwd": []},
        "projects": {"project": [{"id": 7, "orderSequence": 0, "name": "",
            "peos": {"peo": [{"tid": "p", "default": false, "nodes": {"node": [""]}}]}}]},
        "meta": {"itm": [{"key": "k", "value": ""}]}
    }"#;
    let original: Value = serde_json::from_str(message).expect("JSON");
    for via in [Xml, Compact] {
        let there = convert(Json, message, via);
        let back = to_json(via, &there, Json);
        assert_eq!(back, original, "through {via:?}: {there}");
    }
    let back = to_json(Json, message, Json);
    assert_eq!(
        back["projects"]["project"][0]["id"],
        json!(7),
        "an integer stays an integer"
    );
    assert_eq!(
        back["projects"]["project"][0]["peos"]["peo"][0]["default"],
        json!(false),
        "a boolean stays a boolean"
    );
    assert!(
        back["projects"]["project"][0].get("tid").is_none(),
        "absent stays absent"
    );
}

// ---------------------------------------------------------------- property test

/// Values of a scalar property.
fn scalar(field: &Field, scalar: Scalar) -> BoxedStrategy<Value> {
    if !field.allowed.is_empty() {
        let allowed: Vec<Value> = field.allowed.iter().map(|value| json!(value)).collect();
        return proptest::sample::select(allowed).boxed();
    }
    match scalar {
        Scalar::String => match field.pattern {
            Some(pattern) => {
                let longest = field.max_length.map_or(usize::MAX, |limit| limit as usize);
                proptest::string::string_regex(
                    pattern.trim_start_matches('^').trim_end_matches('$'),
                )
                .expect("the pattern is a regular expression")
                .prop_filter("within maxLength", move |text| {
                    text.chars().count() <= longest
                })
                .prop_map(Value::String)
                .boxed()
            }
            // XML-legal text with the characters that need escaping, whitespace and non-ASCII.
            None => "[a-z0-9 <>&\"'\t\n\r/é€😀]{0,8}"
                .prop_map(Value::String)
                .boxed(),
        },
        Scalar::Integer if field.format == Some("int32") => {
            any::<i32>().prop_map(|n| json!(n)).boxed()
        }
        Scalar::Integer => any::<i64>().prop_map(|n| json!(n)).boxed(),
        Scalar::Number => (-1e9f64..1e9).prop_map(|n| json!(n)).boxed(),
        Scalar::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
    }
}

/// One value of a property (of each item, for an array).
fn value(field: &'static Field, depth: u32) -> BoxedStrategy<Value> {
    match field.ty {
        Type::Scalar(kind) => scalar(field, kind),
        Type::Object(schema) => tree(schema, depth - 1),
    }
}

/// Trees of a schema, nesting at most `depth` objects.
fn tree(schema: &'static Schema, depth: u32) -> BoxedStrategy<Value> {
    let schema = schema.resolve();
    let Kind::Object(fields) = schema.kind else {
        return Just(json!({})).boxed();
    };
    let map_key = match schema.compact {
        CompactForm::Map { key, .. } => Some(key),
        _ => None,
    };
    let mut parts: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for field in fields {
        let deeper = matches!(field.ty, Type::Object(_));
        if deeper && depth == 0 {
            if field.required && !field.repeated {
                // A required object cannot be left out: this schema is too deep to generate.
                return Just(Value::Null).boxed();
            }
            continue;
        }
        let name = field.name.to_string();
        let strategy: BoxedStrategy<Value> = if field.repeated {
            proptest::collection::vec(value(field, depth), 0..3)
                .prop_map(Value::Array)
                .boxed()
        } else {
            value(field, depth)
        };
        let strategy = strategy.prop_map(move |value| Some((name.clone(), value)));
        parts.push(if field.required {
            strategy.boxed()
        } else {
            prop_oneof![Just(None), strategy].boxed()
        });
    }
    parts
        .prop_map(move |entries| {
            let mut object: Map<String, Value> = entries.into_iter().flatten().collect();
            // Map-form items (meta) share keys now and then, in the canonical order every
            // decoder gives them: grouped by key (D-08).
            if let Some(key) = map_key
                && let Some(Value::Array(items)) = object.values_mut().next()
            {
                for (index, item) in items.iter_mut().enumerate() {
                    item[key] = json!(format!("k{}", index % 2));
                }
                tree::group_by_key(items, |item| item.get(key).and_then(Value::as_str));
            }
            Value::Object(object)
        })
        .boxed()
}

/// The published document's schemas of a message in default and compact JSON.
fn published_validators() -> &'static (jsonschema::Validator, jsonschema::Validator) {
    static VALIDATORS: OnceLock<(jsonschema::Validator, jsonschema::Validator)> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let published = published();
        let json = validator(&published, "PimType").expect("PimType compiles");
        let compact = validator(&published, "PimTypeCompact").expect("PimTypeCompact compiles");
        (json, compact)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Every path through the representations is the identity on the typed value.
    #[test]
    fn every_representation_path_is_the_identity(generated in tree(&tables::PIM_TYPE, 5)) {
        // The JSON readers agree on the generated tree, which may break the document's rules,
        // and so do the compact readers on its compact form, when it has one.
        both_json_readers_agree(generated.to_string().as_bytes());
        if let Ok(compact) = codec().encode(Compact, generated.clone(), table("PimType")) {
            both_readers_agree(Compact, &compact);
        }
        let Ok(message) = serde_json::from_value::<types::PimType>(generated.clone()) else {
            return Err(TestCaseError::reject("not a valid message"));
        };
        let codec = codec();
        let schema = table("PimType");
        let tree = serde_json::to_value(&message).expect("a tree");
        for representation in [Xml, Json, Compact] {
            let bytes = codec.encode_typed(representation, message.clone(), schema).expect("encodes");
            // Written straight from the value, as the tree path writes it.
            let through_tree = codec.encode(representation, tree.clone(), schema).expect("encodes");
            prop_assert_eq!(
                String::from_utf8_lossy(&bytes),
                String::from_utf8_lossy(&through_tree),
                "{:?} written from the value and from its tree",
                representation
            );
            let back: types::PimType = codec.decode_typed(representation, &bytes, schema).map_err(|error| {
                TestCaseError::fail(format!("{representation:?}: {error}\n{}", String::from_utf8_lossy(&bytes)))
            })?;
            prop_assert_eq!(&back, &message, "through {:?}", representation);
            // What the server writes in JSON and compact JSON fits the published document.
            let (json_schema, compact_schema) = published_validators();
            let schema_of = match representation {
                Json => Some(json_schema),
                Compact => Some(compact_schema),
                _ => None,
            };
            if let Some(schema_of) = schema_of {
                let written: Value = serde_json::from_slice(&bytes).expect("JSON");
                let errors: Vec<String> = schema_of
                    .iter_errors(&written)
                    .map(|error| format!("{error} at {}", error.instance_path()))
                    .collect();
                prop_assert!(errors.is_empty(), "{:?} does not fit the published document: {}\n{}", representation, errors.join("; "), written);
            }
        }
        let bytes = codec.encode_typed(Xml, message.clone(), schema).expect("encodes");
        both_xml_readers_agree(std::str::from_utf8(&bytes).expect("UTF-8"));
        // The JSON fast path and the reference reader agree on the message written.
        let json = codec.encode_typed(Json, message.clone(), schema).expect("encodes");
        both_json_readers_agree(&json);
        let compact = codec.encode_typed(Compact, message.clone(), schema).expect("encodes");
        both_readers_agree(Compact, &compact);
        // XML → JSON → compact → XML, and back the other way.
        for path in [[Xml, Json, Compact, Xml], [Compact, Json, Xml, Compact]] {
            let mut current = message.clone();
            for step in path {
                let bytes = codec.encode_typed(step, current, schema).expect("encodes");
                current = codec.decode_typed(step, &bytes, schema).expect("decodes");
            }
            prop_assert_eq!(&current, &message, "along {:?}", path);
        }
    }
}
