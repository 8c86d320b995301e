//! The XML Schema in the suite: every XML body its tests exchange over HTTP (each request the
//! server took, each answer) is kept as it passes ([`keep`]) and held to `core-v1.xsd` with
//! xmllint when the whole suite has passed ([`check_kept`], from `harness::main`); tests that
//! check bodies of their own take the schema from [`schema`].
//!
//! Without xmllint the checks are skipped with a notice, except under `CI=true`, where they must
//! run (`.ci/run` installs Debian's `libxml2-utils`).

use std::{
    collections::BTreeMap,
    sync::{LazyLock, Mutex},
};

use core_api::document::XML_NAMESPACE_DEFAULT;
use core_conformance::xml_schema::SchemaError;
pub use core_conformance::xml_schema::{Invalid, XmlBody, XmlFile, XmlSchema};

/// The kept bodies: per namespace, the schema they are held to and the files written so far.
struct Kept {
    schema: XmlSchema,
    files: Vec<XmlFile>,
}

/// `None` once xmllint was found missing (and that was said).
static KEPT: LazyLock<Mutex<BTreeMap<String, Option<Kept>>>> =
    LazyLock::new(|| Mutex::new(BTreeMap::new()));

/// The XML Schema in the messages' namespace, or `None` (after saying why) where xmllint is
/// missing outside CI.
pub fn schema(namespace: &str) -> Option<XmlSchema> {
    match XmlSchema::new(namespace) {
        Ok(schema) => Some(schema),
        Err(error @ SchemaError::NoXmllint)
            if !std::env::var("CI").is_ok_and(|value| value == "true") =>
        {
            eprintln!("XML Schema checks skipped: {error}");
            None
        }
        Err(error) => panic!("the XML Schema checks cannot run: {error}"),
    }
}

/// The XML Schema in the document's default namespace (see [`schema`]).
pub fn default_schema() -> Option<XmlSchema> {
    schema(XML_NAMESPACE_DEFAULT)
}

/// Keeps a body exchanged with a server whose messages are in `namespace`, written to a file.
pub fn keep(namespace: &str, body: XmlBody) {
    let Ok(mut kept) = KEPT.lock() else {
        return;
    };
    let entry = kept.entry(namespace.to_string()).or_insert_with(|| {
        schema(namespace).map(|schema| Kept {
            schema,
            files: Vec::new(),
        })
    });
    if let Some(Kept { schema, files }) = entry {
        let path = schema.file();
        if std::fs::write(&path, &body.bytes).is_ok() {
            files.push(XmlFile {
                what: body.what,
                path,
            });
        }
    }
}

/// Checks every kept body: a line saying how many were valid, or the report of those that are
/// not.
pub fn check_kept() -> Result<String, String> {
    let kept = std::mem::take(&mut *KEPT.lock().map_err(|_| "the kept bodies are lost")?);
    let mut checked = 0;
    let mut invalid: Vec<Invalid> = Vec::new();
    for entry in kept.into_values().flatten() {
        checked += entry.files.len();
        invalid.extend(
            entry
                .schema
                .check_files(&entry.files)
                .map_err(|error| format!("xmllint did not run: {error}"))?,
        );
    }
    if invalid.is_empty() {
        return Ok(format!(
            "xmllint: {checked} XML bodies exchanged (requests taken, answers) valid against {}",
            core_api::document::XSD_NAME
        ));
    }
    let mut report = format!(
        "xmllint: {} of {checked} XML bodies exchanged are not valid against {}:\n",
        invalid.len(),
        core_api::document::XSD_NAME
    );
    for body in invalid.iter().take(20) {
        report.push_str(&format!("- {}:{}\n", body.what, body.errors));
    }
    Err(report)
}
