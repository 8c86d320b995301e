//! Coverage of the Common module by the contract tests: every operation of the module has a test
//! that calls it by its path, and every item message its description in the document states
//! (the messages of the specification's error table and of the decisions) appears in a test.
//! Fails naming what is not covered.

use contract_tests::{document, workspace_root};

/// The module whose operations must all be covered.
const MODULE: &str = "Common";

/// The text of every contract test but this one and the generic HTTP test.
fn tests() -> Vec<String> {
    let folder = workspace_root().join("contract-tests/tests");
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(&folder).expect("the tests folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        if path.extension().and_then(|ext| ext.to_str()) == Some("rs")
            && !matches!(name, "coverage.rs" | "http.rs")
        {
            texts.push(std::fs::read_to_string(&path).expect("a test file"));
        }
    }
    texts
}

/// The quoted texts of a description that are messages: they start with a capital letter and
/// have more than one word.
fn messages(description: &str) -> Vec<String> {
    let flat = description.replace('\n', " ");
    flat.split('"')
        .skip(1)
        .step_by(2)
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| text.starts_with(|c: char| c.is_ascii_uppercase()) && text.contains(' '))
        .collect()
}

/// Whether a message, whose `<placeholders>` stand for any text, occurs in a line of a test.
fn covered(message: &str, tests: &[String]) -> bool {
    let parts: Vec<&str> = message
        .split('<')
        .enumerate()
        .map(|(index, part)| {
            if index == 0 {
                part
            } else {
                part.split_once('>').map_or(part, |(_, rest)| rest)
            }
        })
        .filter(|part| !part.is_empty())
        .collect();
    tests.iter().flat_map(|text| text.lines()).any(|line| {
        let mut rest = line;
        parts.iter().all(|part| match rest.find(part) {
            Some(at) => {
                rest = &rest[at + part.len()..];
                true
            }
            None => false,
        })
    })
}

#[test]
fn every_operation_and_item_message_of_the_module_has_a_test() {
    let document = document();
    let tests = tests();
    let mut missing = Vec::new();
    let (mut operations, mut texts) = (0, 0);
    for operation in core_api::operations::ALL
        .iter()
        .filter(|operation| operation.module == MODULE)
    {
        operations += 1;
        if !tests.iter().any(|text| text.contains(operation.path)) {
            missing.push(format!("operation {} ({})", operation.id, operation.path));
        }
        let description = document["paths"][operation.path]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(_, operation)| operation["description"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        for message in messages(&description) {
            texts += 1;
            if !covered(&message, &tests) {
                missing.push(format!("{}: \"{message}\"", operation.id));
            }
        }
    }
    assert!(
        operations >= 9 && texts >= 40,
        "{operations} operations, {texts} messages"
    );
    assert!(
        missing.is_empty(),
        "not covered by a contract test:\n  {}",
        missing.join("\n  ")
    );
    eprintln!(
        "coverage of {MODULE}: {operations}/{operations} operations, {texts}/{texts} item messages (100%)"
    );
}

#[test]
fn placeholders_match_any_text() {
    let tests = vec!["assert_eq!(x, \"Unknown translation entry type 'phrase'\");".to_string()];
    assert!(covered("Unknown translation entry type '<type>'", &tests));
    assert!(!covered("Unknown locale '<loc>'", &tests));
    assert_eq!(
        messages(
            "Errors: \"Asset not found\", \"abc\", `x` \"Keyword '<path>'\n already exists\"."
        ),
        ["Asset not found", "Keyword '<path>' already exists"]
    );
}
