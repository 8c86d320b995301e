//! Generation is reproducible and is the only way the document reaches the code.

use xtask::{DOCUMENT_PATH, codegen, document::Document, workspace_root};

fn document_text() -> String {
    std::fs::read_to_string(workspace_root().join(DOCUMENT_PATH)).expect("the document is readable")
}

/// `cargo xtask codegen --check`: `generated/` is exactly what the document produces.
#[test]
fn generated_files_match_the_document() {
    let files = codegen::generate(&document_text()).expect("generation succeeds");
    let problems = codegen::check(&workspace_root(), &files).expect("generated/ is readable");
    assert!(
        problems.is_empty(),
        "generated/ is stale; run `cargo xtask codegen`:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_generated_file_says_how_it_was_made() {
    for file in codegen::generate(&document_text()).expect("generation succeeds") {
        let extension = file
            .path
            .extension()
            .and_then(|extension| extension.to_str());
        let header = match extension {
            Some("toml" | "yaml") => codegen::TOML_HEADER,
            Some("md") => codegen::MARKDOWN_HEADER,
            Some("xsd") => codegen::XML_HEADER,
            _ => codegen::RUST_HEADER,
        };
        assert!(
            file.contents.starts_with(header),
            "{} lacks the generated header",
            file.path.display()
        );
    }
}

#[test]
fn the_document_parses_with_openapiv3() {
    let document = Document::parse(&document_text()).expect("the document parses");
    assert_eq!(document.openapi.operations().count(), 27);
}

/// A field added to the document reaches the generated type, the client and the tables, with no
/// other edit.
#[test]
fn a_new_field_reaches_types_client_and_tables() {
    let original = document_text();
    let anchor = "    KeywordRequest:\n";
    let start = original
        .find(anchor)
        .expect("KeywordRequest is in the document");
    let properties = start
        + original[start..]
            .find("      properties:\n")
            .expect("its properties")
        + "      properties:\n".len();
    let mut changed = original.clone();
    changed.insert_str(
        properties,
        "        depthLimit:\n          type: integer\n          format: int32\n          xml:\n            attribute: true\n",
    );
    let before = codegen::generate(&original).expect("generation succeeds");
    let after = codegen::generate(&changed).expect("generation succeeds with the new field");
    let text = |files: &[codegen::GeneratedFile], path: &str| {
        files
            .iter()
            .find(|file| file.path.ends_with(path))
            .map(|file| file.contents.clone())
            .unwrap_or_else(|| panic!("{path} is generated"))
    };
    for (path, needle) in [
        (
            "core-api/src/types.rs",
            "pub depth_limit: ::std::option::Option<i32>",
        ),
        (
            "core-client/src/lib.rs",
            "pub depth_limit: ::std::option::Option<i32>",
        ),
        ("core-tables/src/tables.rs", "name: \"depthLimit\""),
    ] {
        assert!(
            !text(&before, path).contains(needle),
            "{path} already has the field"
        );
        assert!(
            text(&after, path).contains(needle),
            "{path} lacks the new field"
        );
    }
    let changed_paths: Vec<_> = before
        .iter()
        .zip(&after)
        .filter(|(old, new)| old.contents != new.contents)
        .map(|(old, _)| old.path.display().to_string())
        .collect();
    assert!(
        changed_paths
            .iter()
            .all(|path| path.starts_with("generated/")),
        "{changed_paths:?}"
    );
}

/// progenitor needs a filtered copy of the document; the filter keeps one error type per
/// operation and only JSON request bodies.
#[test]
fn the_client_is_fed_one_error_type_per_operation() {
    let document = Document::parse(&document_text()).expect("the document parses");
    let filtered = codegen::client_filter(&document).expect("the filter applies");
    assert!(
        filtered
            .pointer("/components/schemas/TransformError/oneOf")
            .is_some()
    );
    assert!(
        filtered
            .pointer("/components/schemas/MessagesPersistError/oneOf")
            .is_some()
    );
    let content = filtered
        .pointer("/paths/~1api~1core~1v1~1common~1keywords~1persist/post/requestBody/content")
        .and_then(|content| content.as_object())
        .expect("keywords persist has a body");
    assert_eq!(content.keys().collect::<Vec<_>>(), ["application/json"]);
}

#[test]
fn the_generator_reads_item_messages_as_the_runner_does() {
    let document: serde_json::Value =
        serde_yaml::from_str(&document_text()).expect("the document is YAML");
    let paths = document["paths"].as_object().expect("paths");
    let mut descriptions = 0;
    for item in paths.values() {
        for operation in item.as_object().expect("a path item").values() {
            let description = operation["description"].as_str().unwrap_or_default();
            assert_eq!(
                codegen::messages::stated(description),
                core_api_support::stated(description)
            );
            descriptions += 1;
        }
    }
    assert!(descriptions > 20, "{descriptions} descriptions read");
}
