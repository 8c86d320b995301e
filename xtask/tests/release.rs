//! The release check on the document pairs of `diff/`: a breaking change needs a new major
//! version, any other change a new version, and versions never go backwards; the document kept
//! as the latest release is the one `openapi/core-v1.yaml` may follow.

use std::path::Path;

use xtask::release::{Version, verdict};

fn read(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("a pair's document");
    serde_yaml::from_str(&text).expect("YAML")
}

#[test]
fn breaking_changes_need_a_new_major_version_and_other_changes_a_new_version() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff");
    let base = read(&folder.join("base.yaml"));
    let (shared, additions, prose) = (
        read(&folder.join("shared/new.yaml")),
        read(&folder.join("additions/new.yaml")),
        read(&folder.join("prose/new.yaml")),
    );
    let one = Version(1, 0, 0);
    let refused = verdict((one, &base), (Version(1, 1, 0), &shared)).expect_err("refused");
    assert!(
        refused.contains("without a new major version")
            && refused
                .contains("BREAKING thingsPersist [all] operation POST /things/persist removed"),
        "{refused}"
    );
    assert!(verdict((one, &base), (Version(2, 0, 0), &shared)).is_ok());
    let unchanged = verdict((one, &base), (one, &additions)).expect_err("refused");
    assert!(unchanged.contains("without a new version"), "{unchanged}");
    assert!(verdict((one, &base), (Version(1, 1, 0), &additions)).is_ok());
    assert!(verdict((one, &base), (one, &prose)).is_ok());
    let backwards = verdict((Version(1, 2, 0), &base), (Version(1, 1, 9), &base)).expect_err("x");
    assert!(
        backwards.contains("older than the latest release"),
        "{backwards}"
    );
}

#[test]
fn the_document_may_follow_its_latest_release() {
    let root = xtask::workspace_root();
    let current = read(&root.join(xtask::DOCUMENT_PATH));
    let (latest, path) = xtask::release::released(&root)
        .expect("released documents")
        .pop()
        .expect("a release");
    let version = xtask::release::version_of(&current).expect("a version");
    if let Err(reason) = verdict((latest, &read(&path)), (version, &current)) {
        panic!("{reason}");
    }
}

#[test]
fn versions_are_major_minor_patch() {
    assert_eq!(Version::parse("1.10.3"), Some(Version(1, 10, 3)));
    for bad in ["1.0", "1.0.0-rc1", "v1.0.0", "1.0.0.0", ""] {
        assert_eq!(Version::parse(bad), None, "{bad}");
    }
    assert!(Version(1, 10, 0) > Version(1, 9, 9));
}
