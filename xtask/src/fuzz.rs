//! `cargo xtask fuzz-seeds`: seeds the fuzz corpora with the document's examples, each in the
//! corpus of the decoder of its representation (`fuzz/corpus/decode_{xml,json,compact}/`).
//! `cargo xtask fuzz --build`: installs a pinned cargo-fuzz under `target/` and builds every
//! target once (a stage of its own in `.ci/run`). `cargo xtask fuzz [--seconds N]`:
//! builds them where needed, seeds the corpora, then runs every target for N seconds (60 by
//! default; `.ci/run` runs it), two at a time, one per core; it fails when a target finds a crash
//! (libFuzzer leaves the input under `fuzz/artifacts/<target>/`; each run's output is kept in
//! `target/xtask-fuzz/<target>.log`).

use std::{
    path::Path,
    process::{Child, Command},
};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::{
    document::{Document, Representation},
    python::status,
};

/// The pinned cargo-fuzz (installed with `cargo install --locked --debug` under
/// `target/xtask-tools`: a command line that starts cargo needs no optimizing, and its debug build
/// took 21 s where the release build took 36).
pub const CARGO_FUZZ: &str = "0.13.2";

/// How every target is built and run (the same, so a run finds its target built).
pub const FLAGS: [&str; 5] = ["-O", "-s", "none", "--codegen-units", "16"];

/// The fuzz targets, one per decoder.
pub const TARGETS: [&str; 3] = ["decode_xml", "decode_json", "decode_compact"];

/// How many targets run at once: one per core of the machines CI runs on.
const AT_ONCE: usize = 2;

/// Installs the pinned cargo-fuzz where missing and builds every target; runs none.
pub fn build(root: &Path) -> Result<()> {
    eprintln!("xtask: building the fuzz targets");
    status(&mut cargo_fuzz(root, "build")?, "cargo fuzz build")
}

/// Builds the targets where needed, seeds the corpora and runs each target for `seconds`, two
/// at a time; an error when any finds a crash.
pub fn run(root: &Path, document: &Document, seconds: u64) -> Result<()> {
    build(root)?;
    let written = seed(root, document)?;
    eprintln!("xtask: wrote {written} seeds under fuzz/corpus/");
    let logs = root.join("target/xtask-fuzz");
    std::fs::create_dir_all(&logs)?;
    let mut failed = Vec::new();
    for targets in TARGETS.chunks(AT_ONCE) {
        let mut running = Vec::new();
        for target in targets {
            eprintln!("xtask: fuzzing {target} for {seconds} s");
            running.push((*target, start(root, target, seconds, &logs)?));
        }
        for (target, mut child) in running {
            let outcome = child.wait().with_context(|| format!("fuzzing {target}"))?;
            report(
                target,
                &logs.join(format!("{target}.log")),
                outcome.success(),
            )?;
            if !outcome.success() {
                failed.push(target);
            }
        }
    }
    if !failed.is_empty() {
        bail!("fuzzing found a crash in {}", failed.join(", "));
    }
    Ok(())
}

/// A `cargo fuzz <action>` of the fuzz workspace, with the pinned cargo-fuzz (installed now when
/// missing) first on the `PATH`.
fn cargo_fuzz(root: &Path, action: &str) -> Result<Command> {
    let tools = root.join("target/xtask-tools");
    let marker = tools.join(format!(".installed-cargo-fuzz-{CARGO_FUZZ}"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    if !marker.exists() {
        eprintln!(
            "xtask: installing cargo-fuzz {CARGO_FUZZ} into {}",
            tools.display()
        );
        status(
            unlinted(Command::new(&cargo).args([
                "install",
                "--locked",
                "--debug",
                "--quiet",
                "--version",
                CARGO_FUZZ,
                "--root",
            ]))
            .arg(&tools)
            .arg("cargo-fuzz"),
            "cargo install cargo-fuzz",
        )?;
        std::fs::write(&marker, "")?;
    }
    let path = crate::python::path_first(&tools.join("bin"))?;
    // cargo-fuzz needs nightly features; the pinned stable toolchain allows them with
    // RUSTC_BOOTSTRAP. No sanitizer: the engine has no unsafe code, and the run is faster.
    // Sixteen codegen units, not cargo-fuzz's one: the targets' library then builds in 3.5 min
    // rather than 8.7 (both cores at work), for about a fifth fewer runs per second.
    let mut command = Command::new(&cargo);
    unlinted(&mut command)
        .current_dir(root.join("fuzz"))
        .env("PATH", &path)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", action])
        .args(FLAGS);
    Ok(command)
}

/// A cargo command without the Clippy wrapper `.ci/run` sets for the workspace: the fuzz
/// targets are their own workspace, never linted, and cargo-fuzz is not ours to lint.
fn unlinted(command: &mut Command) -> &mut Command {
    command
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
}

/// Starts one target for `seconds`, its output to `<logs>/<target>.log`.
fn start(root: &Path, target: &str, seconds: u64, logs: &Path) -> Result<Child> {
    let log = std::fs::File::create(logs.join(format!("{target}.log")))?;
    cargo_fuzz(root, "run")?
        .args([target, "--"])
        .arg(format!("-max_total_time={seconds}"))
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .with_context(|| format!("starting cargo fuzz run {target}"))
}

/// Says how a run ended: libFuzzer's closing lines, or the end of its output when it failed.
fn report(target: &str, log: &Path, passed: bool) -> Result<()> {
    let text = std::fs::read_to_string(log).with_context(|| format!("{}", log.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    if passed {
        let closing = lines
            .iter()
            .filter(|line| line.contains("DONE") || line.starts_with("Done "));
        for line in closing {
            eprintln!("xtask: {target}: {line}");
        }
    } else {
        eprintln!(
            "xtask: {target} failed; the end of its output ({}):",
            log.display()
        );
        for line in &lines[lines.len().saturating_sub(200)..] {
            eprintln!("{line}");
        }
    }
    Ok(())
}

/// Writes one file per example of a message schema; returns how many were written.
pub fn seed(root: &Path, document: &Document) -> Result<usize> {
    let mut written = 0;
    let mut pending = vec![&document.raw];
    while let Some(value) = pending.pop() {
        let Some(object) = value.as_object() else {
            if let Some(items) = value.as_array() {
                pending.extend(items);
            }
            continue;
        };
        for (media, entry) in object {
            let target = match Representation::of(media) {
                Some(Representation::Xml) => "decode_xml",
                Some(Representation::Json) => "decode_json",
                Some(Representation::Compact) => "decode_compact",
                _ => continue,
            };
            for example in entry
                .get("examples")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(_, e)| e)
            {
                let bytes = match example.get("value") {
                    Some(Value::String(text)) if target == "decode_xml" => {
                        text.clone().into_bytes()
                    }
                    Some(value) if target != "decode_xml" => serde_json::to_vec(value)?,
                    _ => continue,
                };
                let folder = root.join("fuzz/corpus").join(target);
                std::fs::create_dir_all(&folder)
                    .with_context(|| format!("creating {}", folder.display()))?;
                std::fs::write(folder.join(format!("example-{written:04}")), bytes)?;
                written += 1;
            }
        }
        pending.extend(object.values());
    }
    Ok(written)
}
