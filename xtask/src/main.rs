//! `cargo xtask <chore>`: the project's chores.

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use xtask::{DOCUMENT_PATH, codegen, validate, workspace_root};

const USAGE: &str = "usage: cargo xtask <chore>

chores:
  codegen            regenerate generated/ from openapi/core-v1.yaml
  codegen --check    fail if generated/ differs from what the document produces
  tidy               check the house rules (SQL only in src/storage, no panics outside tests,
                     module docs, no src/modules -> http, paths in the maps exist, lengths)
  validate           check the documents (openapi-spec-validator) and lint the published one
                     (Spectral, Redocly: 0 errors, 0 warnings); tools installed under target/
  fuzz [--seconds N] seed the corpora and run every fuzz target N seconds (60), two at a time, with a
                     pinned cargo-fuzz
  fuzz --build       install the pinned cargo-fuzz and build every fuzz target; run none
  fuzz-seeds         seed fuzz/corpus/ with the document's examples (then: cd fuzz && cargo fuzz run …)
  schemathesis [ARGS] run Schemathesis against a server started on the demo (ARGS go to `st run`)
  diff OLD NEW       what a document change breaks, per operation and representation (OLD, NEW:
                     files or git revisions of openapi/core-v1.yaml), and what the generated
                     clients lose
  release-check      fail when the document breaks the latest release (openapi/released/) without
                     a new major version, or changes it without a new version
  release            keep the document as openapi/released/<info.version>.yaml
  conformance        run core-conformance against core-server on SQLite (and PostgreSQL when
                     CORE_TEST_POSTGRES_URL is set), fixture imported and tokens issued by the CLI
  browser            check /docs and /redoc in headless Chromium (installed when missing)
  tools              install every pinned tool of validate, browser, clients and schemathesis
  clients            build the client packages from a demo server's document, install each into a
                     clean environment and run a scenario with each
  clients --package [--document FILE|REV] [--out DIR]
                     build the Python wheel and the npm package of the served document (or of a
                     document file or git revision) into DIR (target/client-packages)
  bench-http [--rounds N] [--seconds S] [--database sqlite|postgres] [--postgres-url URL]
             [--prism] [--report]
                     load benchmark: core-server against a bare poem floor (and a Prism mock), with
                     wrk; on PostgreSQL with 1, 2 and 4 instances; --report writes
                     docs/benchmarks.md (both databases, large answers, import, the machine)";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<()> {
    let root = workspace_root();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["codegen"] | ["codegen", "--check"] => {
            let yaml = std::fs::read_to_string(root.join(DOCUMENT_PATH))?;
            let files = codegen::generate(&yaml)?;
            if args.len() == 2 {
                let problems = codegen::check(&root, &files)?;
                if !problems.is_empty() {
                    bail!(
                        "generated/ is stale; run `cargo xtask codegen`:\n  {}",
                        problems.join("\n  ")
                    );
                }
                eprintln!("xtask: generated/ is up to date ({} files)", files.len());
            } else {
                let changed = codegen::write(&root, &files)?;
                eprintln!(
                    "xtask: {changed} of {} files under generated/ changed",
                    files.len()
                );
            }
            Ok(())
        }
        ["validate"] => validate::run(&root),
        ["tidy"] => xtask::tidy::run(&root),
        ["schemathesis", arguments @ ..] => xtask::schemathesis::run(&root, arguments),
        ["browser"] => xtask::browser::run(&root),
        ["tools"] => xtask::tools::run(&root),
        ["conformance"] => xtask::conformance::run(&root),
        ["release-check"] => xtask::release::check(&root),
        ["release"] => xtask::release::release(&root),
        ["diff", old, new] => {
            let changes = xtask::diff::changes(
                &xtask::diff::read(&root, old)?,
                &xtask::diff::read(&root, new)?,
            );
            print!("{}", xtask::diff::report(&changes));
            print!("{}", xtask::diff::clients(&changes));
            Ok(())
        }
        ["clients"] => xtask::clients::run(&root),
        ["clients", "--package", options @ ..] => {
            let (mut document, mut out) = (None, None);
            for pair in options.chunks(2) {
                match pair {
                    ["--document", given] => document = Some(*given),
                    ["--out", folder] => out = Some(std::path::PathBuf::from(folder)),
                    _ => bail!("{USAGE}"),
                }
            }
            xtask::clients::package_only(&root, document, out)
        }
        ["bench-http", arguments @ ..] => xtask::bench_http::run(&root, arguments),
        ["fuzz"] | ["fuzz", "--seconds", _] => {
            let seconds = match args.get(2) {
                Some(seconds) => seconds.parse().context("--seconds takes a number")?,
                None => 60,
            };
            let yaml = std::fs::read_to_string(root.join(DOCUMENT_PATH))?;
            xtask::fuzz::run(&root, &xtask::document::Document::parse(&yaml)?, seconds)
        }
        ["fuzz", "--build"] => xtask::fuzz::build(&root),
        ["fuzz-seeds"] => {
            let yaml = std::fs::read_to_string(root.join(DOCUMENT_PATH))?;
            let written = xtask::fuzz::seed(&root, &xtask::document::Document::parse(&yaml)?)?;
            eprintln!("xtask: wrote {written} seeds under fuzz/corpus/");
            Ok(())
        }
        _ => bail!("{USAGE}"),
    }
}
