//! `cargo xtask schemathesis [ST-ARGS…]`: runs Schemathesis (PyPI) with `--checks all` and every
//! phase (examples, coverage, fuzzing, stateful) against a core-server this chore builds and
//! starts on the demo catalogue over a fresh SQLite file, with the project's hooks and settings
//! (`xtask/schemathesis/`: request bodies and answers in all three representations, and 400
//! expected where a rule the schema language cannot state refuses a schema-valid request; see
//! there why). `.ci/run` runs it.
//!
//! Without arguments it tests every operation of the published document as two processes at
//! once, one per core, each on half of the operations (`xtask/schemathesis/split.py`: every link
//! inside one half, so each half's stateful phase follows every link it would in one run) and
//! against a server of its own; each writes its output and a JUnit report under
//! `target/schemathesis-<half>/`, printed when both are done. With arguments, one process over
//! every operation, the arguments going to `st run` as they are (`--include-tag CM` narrows the
//! run to one module).

use std::{
    path::{Path, PathBuf},
    process::{Child, Command},
};

use anyhow::{Context, Result, bail, ensure};

use crate::{python, server};

/// The pinned Schemathesis version (the latest on PyPI when this chore was written).
pub const SCHEMATHESIS: &str = "schemathesis==4.32.5";

/// Installs Schemathesis where missing; answers its command, `st`.
pub fn install(root: &Path) -> Result<PathBuf> {
    python::tool(root, SCHEMATHESIS, "st")
}

/// Runs Schemathesis: over two halves at once without `arguments`, else once with them.
pub fn run(root: &Path, arguments: &[&str]) -> Result<()> {
    let st = install(root)?;
    if !arguments.is_empty() {
        let (server, token, folder) = server::built_demo(root, "schemathesis")?;
        let mut command = st_run(root, &st, &server.address, &token, &folder);
        return python::status(command.args(arguments), "schemathesis");
    }
    let halves = split(root, &st)?;
    let mut running = Vec::new();
    for (name, operations) in ["a", "b"].into_iter().zip(&halves) {
        let (server, token, folder) = server::built_demo(root, &format!("schemathesis-{name}"))?;
        let log = folder.join("st.log");
        let pattern = format!("^({})$", operations.join("|"));
        let child = st_run(root, &st, &server.address, &token, &folder)
            .args(["--include-operation-id-regex", &pattern])
            .args(["--report", "junit", "--report-junit-path"])
            .arg(folder.join("junit.xml"))
            .stdout(std::fs::File::create(&log)?)
            .stderr(std::fs::File::create(folder.join("st.err"))?)
            .spawn()
            .context("starting st")?;
        eprintln!(
            "xtask: schemathesis half {name}: {} operations ({}), output in {}",
            operations.len(),
            operations.join(" "),
            log.display()
        );
        running.push(Half {
            name,
            child,
            folder,
            _server: server,
        });
    }
    let mut failed = Vec::new();
    for mut half in running {
        let outcome = half.child.wait().context("waiting for st")?;
        for file in ["st.log", "st.err"] {
            eprintln!("\nxtask: schemathesis half {} ({file}):", half.name);
            eprint!("{}", std::fs::read_to_string(half.folder.join(file))?);
        }
        if !outcome.success() {
            failed.push(format!("half {} ({outcome})", half.name));
        }
    }
    ensure!(
        failed.is_empty(),
        "schemathesis failed: {}",
        failed.join(", ")
    );
    Ok(())
}

/// One half being tested: its `st` process, its folder and its server (stopped when dropped).
struct Half {
    /// `a` or `b`.
    name: &'static str,
    /// The `st run` process.
    child: Child,
    /// `target/schemathesis-<name>`, where its output goes.
    folder: PathBuf,
    /// The server it tests.
    _server: server::Running,
}

/// `st run` against the server at `address`, every phase and check, with the project's hooks.
fn st_run(root: &Path, st: &Path, address: &str, token: &str, folder: &Path) -> Command {
    let base = format!("http://{address}");
    let mut command = Command::new(st);
    command
        .current_dir(folder)
        .env("SCHEMATHESIS_HOOKS", "core_hooks")
        .env("PYTHONPATH", root.join("xtask/schemathesis"))
        .arg("--config-file")
        .arg(root.join("xtask/schemathesis/schemathesis.toml"))
        .args(["run", &format!("{base}/openapi.yaml"), "--url", &base])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args([
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
        ])
        .args([
            "--max-examples",
            "50",
            "--workers",
            "2",
            "--continue-on-failure",
        ])
        // Hypothesis's `too_slow` health check times the generation of test data, not the
        // server: transform's request (the whole message) generated too slowly once on a busy
        // two-core machine and failed the run with every check passing. Every check stays on.
        .args(["--suppress-health-check", "too_slow"]);
    command
}

/// The two halves of the operations of the published document, as `split.py` deals them.
fn split(root: &Path, st: &Path) -> Result<[Vec<String>; 2]> {
    let python = st.with_file_name("python");
    let output = Command::new(&python)
        .arg(root.join("xtask/schemathesis/split.py"))
        .arg(root.join(crate::codegen::PUBLISHED_PATH))
        .output()
        .context("running xtask/schemathesis/split.py")?;
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        bail!("xtask/schemathesis/split.py failed ({})", output.status);
    }
    let text = String::from_utf8(output.stdout)?;
    let halves: Vec<Vec<String>> = text
        .lines()
        .map(|line| line.split_whitespace().map(String::from).collect())
        .collect();
    match <[Vec<String>; 2]>::try_from(halves) {
        Ok(halves) if halves.iter().all(|half| !half.is_empty()) => Ok(halves),
        _ => bail!("split.py printed no two halves:\n{text}"),
    }
}
