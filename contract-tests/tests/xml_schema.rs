//! The generated XML Schema (`generated/core-v1.xsd`) against what XML toolchains will meet: every
//! XML example of the document and every XML form of the snapshots is valid for xmllint, and a
//! message with an attribute written as an element is not.

use std::path::Path;

use contract_tests::{
    document, examples, workspace_root,
    xml_checked::{XmlBody, default_schema},
};
use core_api_support::Representation;

/// The XML examples of the document (request bodies, answers, error answers).
fn example_bodies() -> Vec<XmlBody> {
    examples(&document())
        .into_iter()
        .filter(|example| example.representation() == Representation::Xml)
        .map(|example| XmlBody {
            what: example.label(),
            bytes: example.bytes(),
        })
        .collect()
}

/// The XML sections of the snapshot files (`-------------------- XML` up to the next section).
fn snapshot_bodies(folder: &Path) -> Vec<XmlBody> {
    let mut bodies = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .expect("the snapshots folder")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "snap")
        })
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a snapshot");
        let mut section: Option<String> = None;
        for line in text.lines().chain(["===================="]) {
            if line.starts_with("--------------------") || line.starts_with("====================")
            {
                if let Some(body) = section.take() {
                    bodies.push(XmlBody {
                        what: file.display().to_string(),
                        bytes: body.into_bytes(),
                    });
                }
                if line == "-------------------- XML" {
                    section = Some(String::new());
                }
            } else if let Some(body) = &mut section {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    bodies
}

#[test]
fn every_xml_example_and_snapshot_is_valid() {
    let Some(schema) = default_schema() else {
        return;
    };
    let examples = example_bodies();
    let snapshots = snapshot_bodies(&workspace_root().join("contract-tests/tests/snapshots"));
    assert!(examples.len() >= 50, "{} XML examples", examples.len());
    assert!(snapshots.len() >= 150, "{} XML snapshots", snapshots.len());
    let briefings = examples
        .iter()
        .chain(&snapshots)
        .filter(|body| {
            body.bytes
                .starts_with(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<patch-briefing")
        })
        .count();
    assert!(briefings >= 2, "the briefing (no namespace) is checked too");
    let invalid = schema
        .check(&[examples.as_slice(), snapshots.as_slice()].concat())
        .expect("xmllint runs");
    assert!(invalid.is_empty(), "{invalid:#?}");
    eprintln!(
        "xmllint: {} XML examples and {} XML snapshots valid against core-v1.xsd",
        examples.len(),
        snapshots.len()
    );
}

/// A deviation an XML binding would trip on: an attribute written as an element (the root's
/// `schemaVersion`, a keyword's `id`, the briefing layout's `id`), or an element in no namespace.
#[test]
fn an_attribute_written_as_an_element_is_refused() {
    let Some(schema) = default_schema() else {
        return;
    };
    let keywords = example_bodies()
        .into_iter()
        .find(|body| body.what.starts_with("keywordsRetrieve 200"))
        .expect("the keywords retrieve example");
    let text = String::from_utf8(keywords.bytes).expect("UTF-8");
    let briefing = example_bodies()
        .into_iter()
        .find(|body| body.what.starts_with("retrieveChannelBriefings 200"))
        .expect("the briefing example");
    let briefing = String::from_utf8(briefing.bytes).expect("UTF-8");
    let planted = [
        (
            "schemaVersion as an element",
            text.replacen(
                " schemaVersion=\"5.6.0\">",
                "><schemaVersion>5.6.0</schemaVersion>",
                1,
            ),
        ),
        (
            "a keyword's id as an element",
            text.replacen(
                "<kwd id=\"46190\" path=\"/Season\">",
                "<kwd path=\"/Season\"><id>46190</id>",
                1,
            ),
        ),
        (
            "the layout's id as an element",
            briefing.replacen(
                "<layout id=\"4711\" name=\"Print page 1\">",
                "<layout name=\"Print page 1\"><id>4711</id>",
                1,
            ),
        ),
        (
            "the root in no namespace",
            text.replacen(" xmlns=\"urn:core-interface:v1\"", "", 1),
        ),
    ];
    for (what, body) in &planted {
        assert!(
            body != &text && body != &briefing,
            "{what}: the deviation was planted"
        );
    }
    let bodies: Vec<XmlBody> = planted
        .into_iter()
        .map(|(what, body)| XmlBody {
            what: what.to_string(),
            bytes: body.into_bytes(),
        })
        .collect();
    let invalid = schema.check(&bodies).expect("xmllint runs");
    let refused: Vec<&str> = invalid.iter().map(|body| body.what.as_str()).collect();
    assert_eq!(
        refused,
        bodies
            .iter()
            .map(|body| body.what.as_str())
            .collect::<Vec<_>>(),
        "{invalid:#?}"
    );
    assert!(
        invalid[0].errors.contains("schemaVersion") && invalid[0].errors.contains("not expected"),
        "{}",
        invalid[0].errors
    );
}
