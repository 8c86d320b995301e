//! Runs the project's generator (`xtask::codegen::generate`, as `cargo xtask codegen` does) on
//! the document with the fixture's fields added to PimType, and writes the generated types and
//! tables into `OUT_DIR`. The committed document and `generated/` never see the fields.

use std::{
    env, fs,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, bail};

/// The fields added to PimType: an XML attribute and a child element, in the document's form.
const ADDED: &str = concat!(
    "        fixtureNote:\n",
    "          type: string\n",
    "          maxLength: 255\n",
    "          pattern: '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\uFFFE\\uFFFF]*$'\n",
    "          description: Added by the field fixture; an attribute of `pim`.\n",
    "          xml:\n",
    "            attribute: true\n",
    "        fixtureCount:\n",
    "          type: integer\n",
    "          format: int32\n",
    "          description: Added by the field fixture; a child element of `pim`.\n",
);

/// The generated files the fixture compiles, and the names they get in `OUT_DIR`.
const TAKEN: [(&str, &str); 2] = [
    ("generated/core-api/src/types.rs", "types.rs"),
    ("generated/core-tables/src/tables.rs", "tables.rs"),
];

fn main() -> Result<()> {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?).join("../..");
    let document = root.join("openapi/core-v1.yaml");
    println!("cargo:rerun-if-changed={}", document.display());
    let original =
        fs::read_to_string(&document).with_context(|| format!("reading {}", document.display()))?;
    let files = xtask::codegen::generate(&with_fields(&original)?)?;
    let out = PathBuf::from(env::var("OUT_DIR")?);
    for (generated, name) in TAKEN {
        let file = files
            .iter()
            .find(|file| file.path == Path::new(generated))
            .with_context(|| format!("the generator wrote no {generated}"))?;
        // `include!` takes items only: the module's own doc (`//!`) stays behind.
        let items: Vec<&str> = file
            .contents
            .lines()
            .filter(|line| !line.starts_with("//!"))
            .collect();
        fs::write(out.join(name), items.join("\n") + "\n")?;
    }
    Ok(())
}

/// The document with `ADDED` at the start of PimType's properties.
fn with_fields(document: &str) -> Result<String> {
    let schema = document
        .find("\n    PimType:\n")
        .context("PimType is not in the document")?;
    let Some(properties) = document[schema..].find("\n      properties:\n") else {
        bail!("PimType has no properties");
    };
    let at = schema + properties + "\n      properties:\n".len();
    Ok(format!("{}{ADDED}{}", &document[..at], &document[at..]))
}
