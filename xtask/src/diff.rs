//! `cargo xtask diff OLD NEW`: what a change of the document breaks for clients, per operation and
//! per representation. OLD and NEW are document files, or git revisions of `openapi/core-v1.yaml`
//! (`HEAD~1`, a tag), or `REV:PATH`.
//!
//! JSON-schema tools see a message as JSON only. Here each operation's request and answers are
//! walked once per representation the operation offers for them, so that what only XML clients
//! read (an element name, attribute or element, wrapping, namespace, the text property) and what
//! only compact-JSON clients read (`x-compact`) is reported for that representation, beside the
//! changes every representation shares (removed operations, media types, statuses and
//! properties; new required request properties; narrowed types, enums, patterns and lengths).
//!
//! Breaking means: a client written against OLD can fail against a server of NEW. What a client
//! sends is narrowed when the server accepts less; what it reads changes when the server answers
//! something the old client does not expect (a missing property, an unknown enum value, or a new
//! property where OLD stated `additionalProperties: false`, which generated clients enforce).

mod walk;

use std::{collections::BTreeSet, fmt, path::Path, process::Command};

use anyhow::{Context, Result, bail};
use serde_json::Value;
use walk::Walk;

/// One change the report lists.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// The operation id (`METHOD path` when it has none).
    pub operation: String,
    /// Whether a client of the old document can fail against the new one.
    pub breaking: bool,
    /// `all`, or the one representation the change is about: `json`, `xml`, `compact`, or a
    /// media type.
    pub representation: String,
    /// What changed, and where.
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{} {} [{}] {}",
            if self.breaking {
                "BREAKING"
            } else {
                "ok      "
            },
            self.operation,
            self.representation,
            self.what
        )
    }
}

/// Reads a document from a file or a git revision.
pub fn read(root: &Path, given: &str) -> Result<Value> {
    let file = Path::new(given);
    let text = if file.is_file() {
        std::fs::read_to_string(file).with_context(|| format!("reading {given}"))?
    } else {
        let object = if given.contains(':') {
            given.to_string()
        } else {
            format!("{given}:{}", crate::DOCUMENT_PATH)
        };
        let output = Command::new("git")
            .current_dir(root)
            .args(["show", &object])
            .output()
            .context("running git")?;
        if !output.status.success() {
            bail!(
                "{given} is neither a file nor a git revision of the document: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        String::from_utf8(output.stdout).context("the document is not UTF-8")?
    };
    serde_yaml::from_str(&text).with_context(|| format!("{given} is not YAML"))
}

/// The changes from `old` to `new`, sorted by operation, then breaking first.
pub fn changes(old: &Value, new: &Value) -> Vec<Change> {
    let mut found = BTreeSet::new();
    let (old_operations, new_operations) = (operations(old), operations(new));
    for (key, old_operation) in &old_operations {
        let name = operation_name(key, old_operation);
        match new_operations.iter().find(|(other, _)| other == key) {
            None => {
                found.insert(change(
                    &name,
                    true,
                    "all",
                    format!("operation {key} removed"),
                ));
            }
            Some((_, new_operation)) => {
                let mut walk = Walk {
                    old,
                    new,
                    operation: name,
                    found: &mut found,
                };
                walk.operation(old_operation, new_operation);
            }
        }
    }
    for (key, new_operation) in &new_operations {
        if !old_operations.iter().any(|(other, _)| other == key) {
            let name = operation_name(key, new_operation);
            found.insert(change(
                &name,
                false,
                "all",
                format!("operation {key} added"),
            ));
        }
    }
    let mut sorted: Vec<Change> = found.into_iter().collect();
    sorted.sort_by(|a, b| {
        (&a.operation, !a.breaking, &a.representation, &a.what).cmp(&(
            &b.operation,
            !b.breaking,
            &b.representation,
            &b.what,
        ))
    });
    sorted
}

/// The report: one line per change, then the counts.
pub fn report(changes: &[Change]) -> String {
    let mut text = String::new();
    for change in changes {
        text.push_str(&change.to_string());
        text.push('\n');
    }
    let breaking = changes.iter().filter(|change| change.breaking).count();
    text.push_str(&format!(
        "{breaking} breaking, {} not breaking\n",
        changes.len() - breaking
    ));
    text
}

/// The clients `cargo xtask clients` builds, each with what it reads of a change: the
/// representations it speaks (`all` is every one; a media type of its own, such as a binary
/// download, is read by the JSON clients, which call every operation).
const CLIENTS: [(&str, &[&str]); 2] = [
    (
        "JSON clients (Python core_interface_client, npm core-interface-client, Rust core-client)",
        &["all", "json", "other"],
    ),
    (
        "XML bindings (Python core_interface_client.xml_bindings)",
        &["all", "xml"],
    ),
];

/// What each generated client loses from `changes`: how many breaking changes it reads, in which
/// operations; compact JSON, which no generated client reads, is named apart.
pub fn clients(changes: &[Change]) -> String {
    let read_by = |change: &Change, kinds: &[&str]| {
        let kind = match change.representation.as_str() {
            "all" | "json" | "xml" | "compact" => change.representation.as_str(),
            _ => "other",
        };
        change.breaking && kinds.contains(&kind)
    };
    let mut text = String::from("what the generated clients lose:\n");
    for (client, kinds) in CLIENTS.iter().copied().chain([(
        "compact JSON (no generated client reads it)",
        &["compact"][..],
    )]) {
        let lost: Vec<&Change> = changes
            .iter()
            .filter(|change| read_by(change, kinds))
            .collect();
        let operations: BTreeSet<&str> = lost
            .iter()
            .map(|change| change.operation.as_str())
            .collect();
        text.push_str(&match lost.len() {
            0 => format!("  {client}: nothing\n"),
            count => format!(
                "  {client}: {count} breaking change{} in {}\n",
                if count == 1 { "" } else { "s" },
                operations.into_iter().collect::<Vec<_>>().join(", ")
            ),
        });
    }
    text
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Every operation as (`METHOD path`, operation object), in document order.
pub fn operations(document: &Value) -> Vec<(String, &Value)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().into_iter().flatten() {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                found.push((format!("{} {path}", method.to_uppercase()), operation));
            }
        }
    }
    found
}

fn operation_name(key: &str, operation: &Value) -> String {
    operation["operationId"]
        .as_str()
        .map_or_else(|| key.to_string(), str::to_string)
}

fn change(operation: &str, breaking: bool, representation: &str, what: String) -> Change {
    Change {
        operation: operation.to_string(),
        breaking,
        representation: representation.to_string(),
        what,
    }
}

/// The representation a media type carries.
fn representation(media_type: &str) -> &str {
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    match essence {
        "application/xml" | "text/xml" => "xml",
        "application/json+compact" => "compact",
        "application/json" => "json",
        _ => media_type,
    }
}
