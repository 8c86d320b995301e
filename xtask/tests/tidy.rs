//! The house rules (`cargo xtask tidy`): the workspace keeps every one, and each finds a
//! violation planted in a scratch tree, by file and line.

use std::path::{Path, PathBuf};

use xtask::tidy::{Finding, MAX_FILE_LINES, MAX_FUNCTION_LINES, Rule, check};

#[test]
fn the_workspace_keeps_every_house_rule() {
    let findings = check(&xtask::workspace_root()).expect("tidy reads the workspace");
    let shown: Vec<String> = findings.iter().map(Finding::to_string).collect();
    assert!(
        shown.is_empty(),
        "run `cargo xtask tidy`:\n{}",
        shown.join("\n")
    );
}

/// A scratch tree under `target/`, emptied first.
fn scratch(name: &str) -> PathBuf {
    let root = xtask::workspace_root().join("target/tidy-tests").join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("a scratch folder");
    root
}

fn plant(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
    std::fs::write(path, text).expect("a planted file");
}

/// The findings of one planted file: (rule, line).
fn found(name: &str, path: &str, text: &str) -> Vec<(Rule, usize)> {
    let root = scratch(name);
    plant(&root, path, text);
    let findings = check(&root).expect("tidy reads the scratch tree");
    assert!(
        findings
            .iter()
            .all(|finding| finding.path == Path::new(path)),
        "{findings:?}"
    );
    findings
        .into_iter()
        .map(|finding| (finding.rule, finding.line))
        .collect()
}

#[test]
fn sql_outside_storage_is_found() {
    let text = "//! A module.\n\nfn find() -> &'static str {\n    \"SELECT id FROM keywords WHERE path = $1\"\n}\n\nfn read() {\n    sqlx::query(\"x\");\n}\n";
    assert_eq!(
        found("sql", "src/modules/planted.rs", text),
        [(Rule::Sql, 4), (Rule::Sql, 8)]
    );
    assert_eq!(found("sql-storage", "src/storage/planted.rs", text), []);
    let macro_text = "//! A module.\n\nfn find() {\n    let _ = sql!(\"UPDATE x SET y = 1\");\n}\n";
    let macro_found = found("sql-macro", "src/auth.rs", macro_text);
    assert!(macro_found.contains(&(Rule::Sql, 4)), "{macro_found:?}");
}

#[test]
fn panics_outside_tests_are_found() {
    let text = "//! A module.\n\nfn a(x: Option<u8>) -> u8 {\n    x.unwrap()\n}\n\nfn b(x: Option<u8>) -> u8 {\n    x.expect(\"one\")\n}\n\nfn c() {\n    panic!(\"no\");\n}\n\nfn d(x: Option<u8>) {\n    println!(\"{}\", x.unwrap());\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn e() {\n        Some(1).unwrap();\n    }\n}\n";
    assert_eq!(
        found("panics", "src/planted.rs", text),
        [
            (Rule::Panics, 4),
            (Rule::Panics, 8),
            (Rule::Panics, 12),
            (Rule::Panics, 16)
        ]
    );
}

#[test]
fn a_file_without_a_module_doc_is_found() {
    assert_eq!(
        found(
            "doc",
            "tests/planted.rs",
            "// not a module doc\nfn a() {}\n"
        ),
        [(Rule::ModuleDoc, 1)]
    );
}

#[test]
fn modules_naming_http_are_found() {
    let text = "//! A module.\n\nuse crate::{error::ApiError, http::host::Context};\n\nfn a() {\n    crate::http::limit::check();\n}\n";
    assert_eq!(
        found("http", "src/modules/pim/planted.rs", text),
        [(Rule::ModulesImportHttp, 3), (Rule::ModulesImportHttp, 6)]
    );
    assert_eq!(found("http-elsewhere", "src/service.rs", text), []);
}

#[test]
fn a_stale_path_in_a_map_is_found() {
    let root = scratch("map");
    plant(&root, "src/lib.rs", "//! A crate.\n");
    plant(
        &root,
        "ARCHITECTURE.md",
        "# Map\n\n`src/lib.rs` is here; `src/gone.rs::Thing` is not.\n`application/xml` and `core-server serve` are no paths.\n[a link](src/moved/)\n",
    );
    let findings: Vec<(Rule, usize, String)> = check(&root)
        .expect("tidy reads the scratch tree")
        .into_iter()
        .map(|finding| (finding.rule, finding.line, finding.detail))
        .collect();
    assert_eq!(
        findings,
        [
            (
                Rule::StalePath,
                3,
                "`src/gone.rs` does not exist".to_string()
            ),
            (Rule::StalePath, 5, "`src/moved` does not exist".to_string()),
        ]
    );
}

#[test]
fn a_long_file_and_a_long_function_are_found() {
    let mut long_file = String::from("//! A module.\n");
    long_file.push_str(&"// filler\n".repeat(MAX_FILE_LINES));
    assert_eq!(
        found("long-file", "conformance/src/planted.rs", &long_file),
        [(Rule::LongFile, MAX_FILE_LINES + 1)]
    );
    let mut long_function = String::from("//! A module.\n\nfn long() {\n");
    long_function.push_str(&"    let _ = 1;\n".repeat(MAX_FUNCTION_LINES));
    long_function.push_str("}\n");
    assert_eq!(
        found("long-function", "src/planted.rs", &long_function),
        [(Rule::LongFunction, 3)]
    );
    // The same function outside src/ is not held to the bound.
    assert_eq!(found("long-test", "tests/planted.rs", &long_function), []);
}
