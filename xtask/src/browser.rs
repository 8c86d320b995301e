//! `cargo xtask browser`: the docs pages in a real browser. It finds headless Chromium (Debian's
//! `chromium`, installed with apt-get when missing and possible), installs a pinned puppeteer-core
//! from npm under `target/`, starts core-server on the demo catalogue, and runs
//! `xtask/browser/docs.cjs`: `/docs` lists every operation of the document, authorizes with the
//! demo token and runs "Try it out" on keywords retrieve (200, the demo's keywords, in JSON),
//! `/redoc` shows every operation; screenshots go to `target/xtask-browser/`.
//!
//! Where no browser can be found or installed it prints why and skips, except under `CI=true`,
//! where the check must run.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result};

use crate::{debian::Tool, lint, python, server};

/// The pinned puppeteer-core (the latest on npm when this chore was written).
const PUPPETEER: &str = "puppeteer-core@25.16.0";

/// Debian's browser.
const CHROMIUM: Tool = Tool {
    path: "/usr/bin/chromium",
    package: "chromium",
};

/// What the check runs: the browser and the `node_modules` that holds puppeteer-core.
pub struct Browser {
    /// Headless Chromium.
    chromium: PathBuf,
    /// The folder of puppeteer-core, for `NODE_PATH`.
    modules: PathBuf,
}

/// Installs Chromium (when missing and possible) and puppeteer-core; `None` where no browser can
/// be had outside CI, after saying why.
pub fn install(root: &Path) -> Result<Option<Browser>> {
    let Some(chromium) = chromium()? else {
        return Ok(None);
    };
    let bin = lint::install(root, &[PUPPETEER])?;
    let modules = bin.parent().context("node_modules")?.to_path_buf();
    Ok(Some(Browser { chromium, modules }))
}

/// Builds and starts the server on the demo, checks both pages in the browser, stops the server.
pub fn run(root: &Path) -> Result<()> {
    let Some(Browser { chromium, modules }) = install(root)? else {
        return Ok(());
    };
    let (server, token, folder) = server::built_demo(root, "xtask-browser")?;
    let operations = operations(root)?;
    python::status(
        Command::new("node")
            .arg(root.join("xtask/browser/docs.cjs"))
            .arg(format!("http://{}", server.address))
            .arg(&token)
            .arg(operations.to_string())
            .arg(&folder)
            .env("NODE_PATH", &modules)
            .env("PUPPETEER_EXECUTABLE_PATH", &chromium),
        "the browser check of /docs and /redoc",
    )?;
    eprintln!(
        "browser: /docs and /redoc checked in {}; screenshots {} and {}",
        chromium.display(),
        folder.join("docs.png").display(),
        folder.join("redoc.png").display()
    );
    Ok(())
}

/// The operations of the published document: one per method of each path.
fn operations(root: &Path) -> Result<usize> {
    let text = std::fs::read_to_string(root.join(crate::codegen::PUBLISHED_PATH))?;
    Ok(crate::diff::operations(&serde_yaml::from_str(&text)?).len())
}

/// Headless Chromium: `CHROMIUM` when set, Debian's, or Debian's installed now; `None` (after
/// saying why) where none can be had outside CI.
fn chromium() -> Result<Option<PathBuf>> {
    if let Some(given) = std::env::var_os("CHROMIUM") {
        return Ok(Some(PathBuf::from(given)));
    }
    CHROMIUM.installed_or_skip("browser")
}
