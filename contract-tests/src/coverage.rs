//! What the contract tests prove, recorded as they run: which operations were sent, which
//! answered other than 501 (implemented), and which item messages a test asserted an operation
//! said. The report lists every operation of the document; an implemented operation must have
//! been sent and have each item message its description states asserted.
//!
//! Evidence is recorded only by the helpers that send ([`crate::exchange`]) and assert
//! ([`said`], [`contains`]): a message counts when a comparison that includes it held.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::{self, Debug},
    sync::{Mutex, MutexGuard},
};

use core_api_support::Operation;
use core_conformance::said::{matches, stated};
use serde_json::Value;

/// The evidence of one run.
#[derive(Debug, Default)]
struct Evidence {
    /// Operations sent, by id.
    sent: BTreeSet<&'static str>,
    /// Whether an operation answered its documented request other than 501, by id.
    implemented: BTreeMap<&'static str, bool>,
    /// Item messages asserted, by operation id.
    said: BTreeMap<&'static str, BTreeSet<String>>,
}

static EVIDENCE: Mutex<Evidence> = Mutex::new(Evidence {
    sent: BTreeSet::new(),
    implemented: BTreeMap::new(),
    said: BTreeMap::new(),
});

fn evidence() -> MutexGuard<'static, Evidence> {
    EVIDENCE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Records that a test sent the operation.
pub fn sent(operation: &'static Operation) {
    evidence().sent.insert(operation.id);
}

/// Records whether the operation answered its documented request other than 501.
pub fn implemented(operation: &'static Operation, implemented: bool) {
    evidence().implemented.insert(operation.id, implemented);
}

/// Records item messages asserted for an operation. A WARNING's description is its success
/// text and its reasons joined by `|` (specification, "Result record"): each part is said too.
fn asserted<'a>(operation: &'static Operation, messages: impl IntoIterator<Item = &'a str>) {
    let mut evidence = evidence();
    let said = evidence.said.entry(operation.id).or_default();
    for message in messages {
        said.insert(message.to_string());
        if message.contains('|') {
            said.extend(message.split('|').map(str::to_string));
        }
    }
}

/// Records the checks of the conformance runner that passed: each sent its operation and
/// asserted the item messages it declares.
pub fn conformance(outcomes: &[core_conformance::Outcome]) {
    for outcome in outcomes.iter().filter(|outcome| outcome.result.is_ok()) {
        sent(outcome.operation);
        asserted(outcome.operation, outcome.says.iter().copied());
    }
}

/// The records of an answer as a test compares them: `projection` of each record. Comparing it
/// with `assert_eq!` records, when it holds, each record's `description` that the projection
/// holds as said by the operation (a projection without descriptions proves none).
pub fn said<'r, T>(
    operation: &'static Operation,
    records: &'r [Value],
    projection: impl Fn(&'r Value) -> T,
) -> Said<Vec<T>> {
    Said {
        operation,
        value: records.iter().map(&projection).collect(),
        descriptions: records
            .iter()
            .filter_map(|record| record["description"].as_str())
            .map(str::to_string)
            .collect(),
    }
}

/// A record's status and description, the usual projection of [`said`].
pub fn status_and_description(record: &Value) -> (&str, &str) {
    (
        record["status"].as_str().unwrap_or_default(),
        record["description"].as_str().unwrap_or_default(),
    )
}

/// Whether an answer's text contains a message; records it as said by the operation when it
/// does (for `assert!`).
pub fn contains(operation: &'static Operation, text: &str, message: &str) -> bool {
    let found = text.contains(message);
    if found {
        asserted(operation, [message]);
    }
    found
}

/// Records the descriptions of every record in an answer a snapshot has just matched.
pub fn snapshotted(operation: &'static Operation, answer: &Value) {
    fn walk<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(object) => {
                if let Some(Value::String(description)) = object.get("description") {
                    out.push(description);
                }
                object.values().for_each(|value| walk(value, out));
            }
            Value::Array(items) => items.iter().for_each(|value| walk(value, out)),
            _ => {}
        }
    }
    let mut descriptions = Vec::new();
    walk(answer, &mut descriptions);
    asserted(operation, descriptions);
}

/// A compared value that records its messages when the comparison holds.
pub struct Said<T> {
    operation: &'static Operation,
    value: T,
    descriptions: Vec<String>,
}

impl<T: PartialEq<U> + Debug, U> PartialEq<U> for Said<T> {
    fn eq(&self, other: &U) -> bool {
        let equal = self.value == *other;
        if equal {
            let compared = format!("{:?}", self.value);
            asserted(
                self.operation,
                self.descriptions
                    .iter()
                    .filter(|description| compared.contains(description.as_str()))
                    .map(String::as_str),
            );
        }
        equal
    }
}

impl<T: Debug> Debug for Said<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

/// The coverage of every operation of the document, from the evidence of the run and the
/// messages each operation's description states; `Err` holds the report when an implemented
/// operation is not fully covered.
pub fn report(document: &Value) -> Result<String, String> {
    let evidence = evidence();
    let mut lines = Vec::new();
    let mut gaps = 0;
    let (mut covered, mut messages_total, mut messages_said) = (0, 0, 0);
    // Per specification module: operations, covered ones, messages stated and asserted.
    let mut modules: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for operation in core_api::operations::ALL {
        let stated = stated(document, operation);
        let said = evidence.said.get(operation.id);
        let missing: Vec<&String> = stated
            .iter()
            .filter(|template| {
                !said.is_some_and(|said| said.iter().any(|text| matches(template, text)))
            })
            .collect();
        let label = format!("{:<6} {}", operation.module, operation.id);
        let module = modules.entry(operation.module).or_default();
        module[0] += 1;
        module[2] += stated.len();
        module[3] += stated.len() - missing.len();
        match evidence.implemented.get(operation.id) {
            None => {
                gaps += 1;
                lines.push(format!("{label}: never asked whether it is implemented"));
            }
            Some(false) => lines.push(format!("{label}: not covered (answers 501)")),
            Some(true) => {
                let sent = evidence.sent.contains(operation.id);
                messages_total += stated.len();
                messages_said += stated.len() - missing.len();
                if sent && missing.is_empty() {
                    covered += 1;
                    module[1] += 1;
                    lines.push(format!(
                        "{label}: covered ({n}/{n} item messages)",
                        n = stated.len()
                    ));
                } else {
                    gaps += 1;
                    let mut line = format!(
                        "{label}: NOT COVERED ({}/{} item messages{})",
                        stated.len() - missing.len(),
                        stated.len(),
                        if sent { "" } else { "; never sent" }
                    );
                    for template in missing {
                        line.push_str(&format!("\n    no test asserts \"{template}\""));
                    }
                    lines.push(line);
                }
            }
        }
    }
    let per_module: Vec<String> = modules
        .iter()
        .map(|(module, [operations, covered, stated, said])| {
            format!(
                "coverage of {module}: {covered}/{operations} operations, {said}/{stated} item \
                 messages ({}%)",
                if *stated == 0 {
                    100
                } else {
                    said * 100 / stated
                }
            )
        })
        .collect();
    let report = format!(
        "coverage of the contract tests: {covered} of {} operations covered, {messages_said} of \
         {messages_total} item messages of the implemented ones asserted\n{}\n  {}",
        core_api::operations::ALL.len(),
        per_module.join("\n"),
        lines.join("\n  ")
    );
    if gaps == 0 { Ok(report) } else { Err(report) }
}
