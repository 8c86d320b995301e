//! Every example of the document, decoded from each representation it is given in and written in
//! all three, as insta snapshots in `snapshots/` (one file per example).

use std::{collections::BTreeMap, fmt::Write};

use contract_tests::{document, examples, table};
use core_api::document::XML_NAMESPACE_DEFAULT;
use core_api_support::Representation::{self, Compact, Json, Xml};
use core_server::repr::{Codec, Limits};
use serde_json::Value;

fn written(
    codec: &Codec,
    to: Representation,
    tree: Value,
    schema: &'static core_api_support::Schema,
) -> String {
    let bytes = codec.encode(to, tree, schema).expect("encodes");
    match to {
        Xml => String::from_utf8(bytes).expect("UTF-8"),
        _ => {
            let value: Value = serde_json::from_slice(&bytes).expect("JSON");
            serde_json::to_string_pretty(&value).expect("JSON") + "\n"
        }
    }
}

#[test]
fn every_example_in_every_representation() {
    let codec = Codec::new(XML_NAMESPACE_DEFAULT, Limits::default());
    let mut groups: BTreeMap<String, String> = BTreeMap::new();
    for example in examples(&document()) {
        let Some(schema_name) = &example.schema else {
            continue;
        };
        let schema = table(schema_name);
        let tree = codec
            .decode(example.representation(), &example.bytes(), schema)
            .unwrap_or_else(|error| panic!("{}: {error}", example.label()));
        let name = format!(
            "example__{}__{}",
            example.place.replace([' ', '/'], "_"),
            example.name
        );
        let text = groups.entry(name).or_default();
        let _ = writeln!(
            text,
            "==================== from {} ({schema_name})",
            example.media
        );
        // A schema without an XML root (a JSON-only request or answer) has only the JSON form.
        let targets: &[(&str, Representation)] = if schema.xml_root().is_some() {
            &[("XML", Xml), ("JSON", Json), ("compact JSON", Compact)]
        } else {
            &[("JSON", Json)]
        };
        for &(label, to) in targets {
            let _ = writeln!(text, "-------------------- {label}");
            text.push_str(&written(&codec, to, tree.clone(), schema));
        }
    }
    assert!(groups.len() > 50, "only {} examples", groups.len());
    insta::with_settings!({prepend_module_to_snapshot => false, omit_expression => true}, {
        for (name, text) in groups {
            insta::assert_snapshot!(name, text);
        }
    });
}
