//! `cargo xtask fuzz-seeds`: seeds the fuzz corpora with the document's examples, each in the
//! corpus of the decoder of its representation (`fuzz/corpus/decode_{xml,json,compact}/`).
//! `cargo xtask fuzz [--seconds N]`: seeds them, then runs every target for N seconds (60 by
//! default; `.ci/run` runs it) with a pinned cargo-fuzz it installs under `target/`, and fails
//! on the first crash (libFuzzer leaves the input under `fuzz/artifacts/<target>/`).

use std::{path::Path, process::Command};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::{
    document::{Document, Representation},
    python::status,
};

/// The pinned cargo-fuzz (installed with `cargo install --locked` under `target/xtask-tools`).
pub const CARGO_FUZZ: &str = "0.13.2";

/// How every target is built and run (the same, so a run finds its target built).
pub const FLAGS: [&str; 5] = ["-O", "-s", "none", "--codegen-units", "16"];

/// The fuzz targets, one per decoder.
pub const TARGETS: [&str; 3] = ["decode_xml", "decode_json", "decode_compact"];

/// Seeds the corpora and runs each target for `seconds`; an error on the first crash.
pub fn run(root: &Path, document: &Document, seconds: u64) -> Result<()> {
    let tools = root.join("target/xtask-tools");
    let marker = tools.join(format!(".installed-cargo-fuzz-{CARGO_FUZZ}"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    if !marker.exists() {
        eprintln!(
            "xtask: installing cargo-fuzz {CARGO_FUZZ} into {}",
            tools.display()
        );
        status(
            Command::new(&cargo)
                .args([
                    "install",
                    "--locked",
                    "--quiet",
                    "--version",
                    CARGO_FUZZ,
                    "--root",
                ])
                .arg(&tools)
                .arg("cargo-fuzz"),
            "cargo install cargo-fuzz",
        )?;
        std::fs::write(&marker, "")?;
    }
    let written = seed(root, document)?;
    eprintln!("xtask: wrote {written} seeds under fuzz/corpus/");
    let path = crate::python::path_first(&tools.join("bin"))?;
    // cargo-fuzz needs nightly features; the pinned stable toolchain allows them with
    // RUSTC_BOOTSTRAP. No sanitizer: the engine has no unsafe code, and the run is faster.
    // Sixteen codegen units, not cargo-fuzz's one: the targets' library then builds in 3.5 min
    // rather than 8.7 (both cores at work), for about a fifth fewer runs per second.
    let fuzz = |action: &str| {
        let mut command = Command::new(&cargo);
        command
            .current_dir(root.join("fuzz"))
            .env("PATH", &path)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", action])
            .args(FLAGS);
        command
    };
    // Every target in one build, so their crates compile side by side; each run then finds
    // its target built.
    eprintln!("xtask: building the fuzz targets");
    status(&mut fuzz("build"), "cargo fuzz build")?;
    for target in TARGETS {
        eprintln!("xtask: fuzzing {target} for {seconds} s");
        status(
            fuzz("run")
                .args([target, "--"])
                .arg(format!("-max_total_time={seconds}")),
            &format!("fuzzing {target}"),
        )?;
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
