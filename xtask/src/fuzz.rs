//! `cargo xtask fuzz-seeds`: seeds the fuzz corpora with the document's examples, each in the
//! corpus of the decoder of its representation (`fuzz/corpus/decode_{xml,json,compact}/`).

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::document::{Document, Representation};

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
