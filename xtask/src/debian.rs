//! Tools from Debian's packages that chores run (Chromium, wrk, xmllint): found where Debian puts
//! them, or installed with apt-get when missing and possible.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Result, bail};

/// A program of a Debian package.
pub struct Tool {
    /// Where Debian puts the program (`/usr/bin/xmllint`).
    pub path: &'static str,
    /// The package that holds it (`libxml2-utils`).
    pub package: &'static str,
}

/// The XML Schema validator.
pub const XMLLINT: Tool = Tool {
    path: "/usr/bin/xmllint",
    package: "libxml2-utils",
};

impl Tool {
    /// The program, installed now when it is missing; an error saying why when it cannot be.
    pub fn installed(&self, chore: &str) -> Result<PathBuf> {
        let found = Path::new(self.path);
        if found.exists() {
            return Ok(found.to_path_buf());
        }
        let package = self.package;
        eprintln!(
            "{chore}: installing {} (apt-get install {package})",
            self.path
        );
        let installed = Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends", package])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status();
        match installed {
            Ok(status) if status.success() && found.exists() => Ok(found.to_path_buf()),
            _ => bail!(
                "{} is missing and could not be installed (apt-get install {package}, as root, with Debian's package registry reachable)",
                self.path
            ),
        }
    }

    /// As [`installed`](Self::installed), but outside CI (`CI=true`) a missing program is
    /// `None`, after saying why the chore skips what needs it.
    pub fn installed_or_skip(&self, chore: &str) -> Result<Option<PathBuf>> {
        match self.installed(chore) {
            Ok(path) => Ok(Some(path)),
            Err(error) if std::env::var("CI").is_ok_and(|value| value == "true") => Err(error),
            Err(error) => {
                eprintln!("{chore}: skipped: {error}");
                Ok(None)
            }
        }
    }
}
