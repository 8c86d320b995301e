//! A field added to the document's PimType appears in all three representations with no edit
//! beyond the document: `build.rs` adds `fixtureNote` (an attribute) and `fixtureCount` (a child
//! element) to a copy of the document and runs the generator on it, and the representation
//! engine, unchanged, reads and writes them here.

use core_api_support::Representation::{self, Compact, Json, Xml};
use core_server::repr::{Codec, Limits};
use field_fixture::{tables, types::PimType};
use serde_json::json;

const ALL: [Representation; 3] = [Xml, Json, Compact];

fn codec() -> Codec {
    Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, Limits::default())
}

/// A message using both new fields beside a collection the document already had.
fn message() -> PimType {
    serde_json::from_value(json!({
        "schemaVersion": "5.6.0",
        "fixtureNote": "added & kept",
        "fixtureCount": 3,
        "meta": {"itm": [{"key": "sourceEnv", "value": "fixture"}]},
        "kwds": {"kwd": [{"id": 1, "path": "/a"}]}
    }))
    .expect("the fixture's PimType has the new fields")
}

fn encode(representation: Representation, message: PimType) -> String {
    let bytes = codec()
        .encode_typed(representation, message, &tables::PIM_TYPE)
        .expect("encodes");
    String::from_utf8(bytes).expect("UTF-8")
}

#[test]
fn the_fields_exist_only_in_the_fixture() {
    for name in ["fixtureNote", "fixtureCount"] {
        assert!(core_api::tables::PIM_TYPE.field(name).is_none(), "{name}");
        assert!(tables::PIM_TYPE.field(name).is_some(), "{name}");
    }
}

#[test]
fn a_field_added_to_pim_type_is_written_in_all_three_representations() {
    let xml = encode(Xml, message());
    assert!(
        xml.contains(r#"<pim xmlns="urn:core-interface:v1" fixtureNote="added &amp; kept" schemaVersion="5.6.0">"#),
        "{xml}"
    );
    assert!(xml.contains("<fixtureCount>3</fixtureCount>"), "{xml}");
    for representation in [Json, Compact] {
        let text = encode(representation, message());
        let tree: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(tree["fixtureNote"], "added & kept", "{text}");
        // An integer stays an integer.
        assert_eq!(tree["fixtureCount"], 3, "{text}");
    }
}

#[test]
fn a_field_added_to_pim_type_survives_every_conversion() {
    let expected: Vec<String> = ALL.iter().map(|to| encode(*to, message())).collect();
    for from in ALL {
        let source = encode(from, message());
        let read: PimType = codec()
            .decode_typed(from, source.as_bytes(), &tables::PIM_TYPE)
            .expect("decodes");
        assert_eq!(read.fixture_note.as_deref(), Some("added & kept"));
        assert_eq!(read.fixture_count, Some(3));
        for (to, expected) in ALL.iter().zip(&expected) {
            assert_eq!(&encode(*to, read.clone()), expected, "{from:?} to {to:?}");
        }
    }
}

#[test]
fn a_field_added_to_pim_type_is_read_and_checked_like_any_other() {
    let written = r#"<pim xmlns="urn:core-interface:v1" fixtureNote="hand written"><fixtureCount> 7 </fixtureCount></pim>"#;
    let read: PimType = codec()
        .decode_typed(Xml, written.as_bytes(), &tables::PIM_TYPE)
        .expect("decodes");
    assert_eq!(read.fixture_note.as_deref(), Some("hand written"));
    assert_eq!(read.fixture_count, Some(7));
    let wrong = r#"<pim xmlns="urn:core-interface:v1"><fixtureCount>many</fixtureCount></pim>"#;
    let error = codec()
        .decode_typed::<PimType>(Xml, wrong.as_bytes(), &tables::PIM_TYPE)
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        r#"fixtureCount: expected integer, found "many""#
    );
    let error = codec()
        .decode_typed::<PimType>(Compact, br#"{"fixtureNote": 1}"#, &tables::PIM_TYPE)
        .expect_err("refused");
    assert_eq!(error.to_string(), "fixtureNote: expected string, found 1");
}
