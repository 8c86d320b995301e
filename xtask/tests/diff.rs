//! `cargo xtask diff` on pairs of documents: `diff/base.yaml` against each `diff/<case>/new.yaml`,
//! whose report must be `diff/<case>/expected.txt` line for line. Each case changes one kind of
//! thing: prose only, changes every representation sees, XML-only and compact-only changes,
//! removed media types, a property no longer required, and additions that break nothing.

use std::path::Path;

use xtask::diff;

fn read(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("a pair's document");
    serde_yaml::from_str(&text).expect("YAML")
}

#[test]
fn every_pair_reports_what_it_breaks_and_nothing_else() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff");
    let base = read(&folder.join("base.yaml"));
    let mut cases = 0;
    for entry in std::fs::read_dir(&folder).expect("the pairs") {
        let case = entry.expect("an entry").path();
        if !case.is_dir() {
            continue;
        }
        let report = diff::report(&diff::changes(&base, &read(&case.join("new.yaml"))));
        let expected = std::fs::read_to_string(case.join("expected.txt")).expect("expected.txt");
        assert_eq!(report, expected, "{}", case.display());
        cases += 1;
    }
    assert_eq!(cases, 7);
}

#[test]
fn the_document_against_itself_changes_nothing() {
    let root = xtask::workspace_root();
    let document = read(&root.join(xtask::DOCUMENT_PATH));
    assert!(diff::changes(&document, &document).is_empty());
}

#[test]
fn the_clients_lose_what_their_representation_reads() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff");
    let base = read(&folder.join("base.yaml"));
    let clients = |case: &str| {
        diff::clients(&diff::changes(
            &base,
            &read(&folder.join(case).join("new.yaml")),
        ))
    };
    let json = "  JSON clients (Python core_interface_client, npm core-interface-client, Rust core-client)";
    let xml = "  XML bindings (Python core_interface_client.xml_bindings)";
    let compact = "  compact JSON (no generated client reads it)";
    assert_eq!(
        clients("shared"),
        format!(
            "what the generated clients lose:\n{json}: 8 breaking changes in thingsPersist, thingsRetrieve\n\
             {xml}: 8 breaking changes in thingsPersist, thingsRetrieve\n{compact}: nothing\n"
        )
    );
    assert_eq!(
        clients("xml"),
        format!(
            "what the generated clients lose:\n{json}: nothing\n\
             {xml}: 10 breaking changes in thingsPersist, thingsRetrieve\n{compact}: nothing\n"
        )
    );
    assert_eq!(
        clients("compact"),
        format!(
            "what the generated clients lose:\n{json}: nothing\n{xml}: nothing\n\
             {compact}: 1 breaking change in thingsRetrieve\n"
        )
    );
    assert_eq!(
        clients("additions"),
        format!(
            "what the generated clients lose:\n{json}: nothing\n{xml}: nothing\n{compact}: nothing\n"
        )
    );
}
