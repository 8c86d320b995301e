//! The fast path against the reference reader: the regular forms it takes and reads the same.

use core_api::{tables, types::PimType};

use super::read;
use crate::Limits;

const NS: &str = "urn:core-interface:v1";

fn fast(inner: &str) -> Option<PimType> {
    let text = format!(r#"<pim xmlns="{NS}" schemaVersion="5.6.0">{inner}</pim>"#);
    read(
        &text,
        &tables::PIM_TYPE,
        "pim",
        Some(NS),
        &Limits::default(),
    )
}

#[test]
fn the_regular_message_takes_the_fast_path() {
    let message = r#"
      <meta><itm key="a">x &amp; y</itm><itm key="a"><![CDATA[<z>]]></itm><itm key="b">&#233;</itm></meta>
      <kwds><kwd id="1" path="/a&amp;b&#9;c"/><!-- c --><kwd id="2" parentId="1"/></kwds>"#;
    let read = fast(message).expect("taken");
    let meta = serde_json::to_value(&read.meta).expect("serializes");
    assert_eq!(meta["itm"][0]["value"], "x & y");
    assert_eq!(meta["itm"][1]["value"], "<z>");
    assert_eq!(meta["itm"][2]["value"], "é");
    assert_eq!(
        read.kwds.expect("kwds").kwd[0].path.as_deref(),
        Some("/a&b\tc")
    );
    assert!(fast("").is_some());
    // Other forms of the same message the tokenizer reads itself.
    let forms = fast("\r\n<kwds ><kwd id = '1' path=\"/a>b\" /></kwds >\r\n").expect("taken");
    assert_eq!(
        forms.kwds.expect("kwds").kwd[0].path.as_deref(),
        Some("/a>b")
    );
}

#[test]
fn each_map_collection_tracks_its_own_keys() {
    // The same keys in two `meta` collections, each grouped: both stay on the fast path.
    let message = r#"<kwds>
        <kwd id="1"><meta><itm key="a">1</itm><itm key="b">2</itm></meta></kwd>
        <kwd id="2"><meta><itm key="b">3</itm><itm key="a">4</itm><itm key="a">5</itm></meta></kwd>
      </kwds>"#;
    let read = fast(message).expect("taken");
    let second = serde_json::to_value(&read.kwds.expect("kwds").kwd[1].meta).expect("meta");
    assert_eq!(second["itm"][2]["value"], "5");
    // A key coming back after another, in the second collection only, still declines.
    let ungrouped = r#"<kwds>
        <kwd id="1"><meta><itm key="a">1</itm><itm key="b">2</itm></meta></kwd>
        <kwd id="2"><meta><itm key="a">3</itm><itm key="b">4</itm><itm key="a">5</itm></meta></kwd>
      </kwds>"#;
    assert!(fast(ungrouped).is_none());
}

#[test]
fn text_with_references_is_resolved_on_the_fast_path() {
    let read = fast(r#"<kwds><kwd id="1"><name><itm>a &amp; b &lt;c&gt; &#x263A; &#65;</itm></name></kwd></kwds>"#)
        .expect("taken");
    let name = serde_json::to_value(&read.kwds.expect("kwds").kwd[0].name).expect("name");
    assert_eq!(name["itm"][0]["value"], "a & b <c> \u{263A} A");
}

#[test]
fn irregular_messages_and_errors_go_to_the_reference_reader() {
    for inner in [
        r#"<meta><itm key="a">1</itm><itm key="b">2</itm><itm key="a">3</itm></meta>"#,
        r#"<kwds><kwd id="1"/></kwds><locales/><kwds><kwd id="2"/></kwds>"#,
        r#"<kwds xmlns="urn:core-interface:v1"/>"#,
        r#"<kwds><kwd id="x"/></kwds>"#,
        r#"<kwds><kwd id="1" unknown="2"/></kwds>"#,
        r#"<kwds>text</kwds>"#,
        r#"<meta><itm key="a">x<b/></itm></meta>"#,
        r#"<meta/><meta/>"#,
        r#"<kwds><kwd id="1"path="/a"/></kwds>"#,
        r#"<kwds><kwd id="1" path="a<b"/></kwds>"#,
        "<meta><itm key=\"a\">x\r\ny</itm></meta>",
        r#"<meta><itm key="a">x<!-- a -- b -->y</itm></meta>"#,
        r#"<meta><itm key="a">x<?pi?>y</itm></meta>"#,
    ] {
        assert!(fast(inner).is_none(), "{inner}");
    }
    // Attribute forms the tokenizer leaves to the reference reader.
    for inner in [
        r#"<kwds><kwd xml:lang="en" id="1"/></kwds>"#,
        r#"<kwds><kwd id="1" path/></kwds>"#,
        r#"<kwds><kwd id=1/></kwds>"#,
        r#"<kwds><kwd id="1/></kwds>"#,
        r#"<kwds><p:kwd id="1"/></kwds>"#,
    ] {
        assert!(fast(inner).is_none(), "{inner}");
    }
    let prefixed = format!(r#"<p:pim xmlns:p="{NS}"/>"#);
    let limits = Limits::default();
    assert!(read::<PimType>(&prefixed, &tables::PIM_TYPE, "pim", Some(NS), &limits).is_none());
}
