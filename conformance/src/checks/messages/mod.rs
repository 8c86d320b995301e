//! The rules and item messages the operations' descriptions state, as scenarios: optional setup
//! requests, then one request whose result records (or error answer) must say exactly what the
//! document says. `{u}` in a body or an expected text stands for a name unique to the scenario
//! run, `{id}` for the `id` of the first record of the last setup request.
//!
//! Records the interface can delete (glossary entries, classifications and what hangs on them)
//! are deleted by the scenarios that create them; keywords, channels, messages and links cannot
//! be deleted through the interface and are written under the fixture's `/core-conformance` and
//! `CF-Root`, named by the run.

use std::sync::Arc;

use core_api_support::{Operation, Representation};
use serde_json::Value;

use crate::{Check, Checked, Fail, Kind, Target, judge};

use super::{error_body, requests, requests::persist};

/// A body made from the scenario's unique name.
type Make = fn(&str) -> Value;

/// One scenario of an operation.
struct Scenario {
    operation: &'static Operation,
    what: &'static str,
    says: &'static [&'static str],
    setup: Vec<(&'static Operation, Make)>,
    limited: bool,
    glossary: bool,
    hint: Option<&'static str>,
    query: Option<fn(&str) -> String>,
    body: Option<Make>,
    expect: Expect,
    cleanup: Vec<(&'static Operation, Make)>,
}

/// What the scenario's answer must say.
enum Expect {
    /// This status (200, or 400 for a request refused whole) with these records, in order:
    /// status and description.
    Records(u16, &'static [(&'static str, &'static str)]),
    /// This error status, with an `errorMessage` equal to the text.
    Refused(u16, &'static str),
}

fn scenario(
    operation: &'static Operation,
    what: &'static str,
    says: &'static [&'static str],
) -> Scenario {
    Scenario {
        operation,
        what,
        says,
        setup: Vec::new(),
        limited: false,
        glossary: false,
        hint: None,
        query: None,
        body: None,
        expect: Expect::Records(200, &[]),
        cleanup: Vec::new(),
    }
}

impl Scenario {
    fn after(mut self, operation: &'static Operation, body: Make) -> Self {
        self.setup.push((operation, body));
        self
    }

    fn limited(mut self) -> Self {
        self.limited = true;
        self
    }

    /// What to tell the operator when the scenario fails.
    fn hint(mut self, hint: &'static str) -> Self {
        self.hint = Some(hint);
        self
    }

    /// Needs the id of `CF-GL-2` (`{glossary}`).
    fn glossary(mut self) -> Self {
        self.glossary = true;
        self
    }

    fn query(mut self, query: fn(&str) -> String) -> Self {
        self.query = Some(query);
        self
    }

    fn send(mut self, body: Make) -> Self {
        self.body = Some(body);
        self
    }

    fn records(mut self, records: &'static [(&'static str, &'static str)]) -> Self {
        self.expect = Expect::Records(200, records);
        self
    }

    fn refused_records(
        mut self,
        status: u16,
        records: &'static [(&'static str, &'static str)],
    ) -> Self {
        self.expect = Expect::Records(status, records);
        self
    }

    fn refused(mut self, status: u16, message: &'static str) -> Self {
        self.expect = Expect::Refused(status, message);
        self
    }

    fn then(mut self, operation: &'static Operation, body: Make) -> Self {
        self.cleanup.push((operation, body));
        self
    }

    fn check(self) -> Check {
        let (operation, what, says) = (self.operation, self.what, self.says);
        let scenario = Arc::new(self);
        Check::new(operation, Kind::Messages, what, move |target| {
            let scenario = scenario.clone();
            Box::pin(async move { scenario.run(target).await })
        })
        .says(says)
    }

    async fn run(&self, target: Arc<Target>) -> Checked {
        let glossary = match self.glossary {
            true => target.glossary_id()?.to_string(),
            false => String::new(),
        };
        let u = target.unique();
        let mut id = String::new();
        for (operation, make) in &self.setup {
            let records = persist(&target, operation, fill(make(&u), &u, &id, &glossary)).await?;
            if let Some(first) = records.first() {
                if first["status"] == "ERROR" {
                    return Err(Fail::because(format!(
                        "setup {} refused: {first}",
                        operation.id
                    )));
                }
                id = match &first["id"] {
                    Value::Number(number) => number.to_string(),
                    Value::String(text) => text.clone(),
                    _ => id,
                };
            }
        }
        let mut call = target
            .call(self.operation)
            .accept(super::preferred(self.operation));
        if self.limited {
            call = call.token(target.limited()?);
        }
        if let Some(query) = self.query {
            call = call.query(&query(&u));
        }
        if let Some(make) = self.body {
            call = call.json(&fill(make(&u), &u, &id, &glossary));
        }
        let answer = call.send().await?;
        let outcome = match &self.expect {
            Expect::Records(status, expected) => {
                answer.status(*status).map(|_| ()).and_then(|()| {
                    let schema = self.operation.body_schema(*status).ok_or_else(|| {
                        Fail::because(format!("the document lists no body for {status}"))
                    })?;
                    let tree = judge::tree(&answer, Representation::Json, schema)?;
                    let got: Vec<(String, String)> = judge::records(&tree)
                        .iter()
                        .map(|record| {
                            (
                                record["status"].as_str().unwrap_or_default().to_string(),
                                record["description"]
                                    .as_str()
                                    .unwrap_or_default()
                                    .to_string(),
                            )
                        })
                        .collect();
                    let want: Vec<(String, String)> = expected
                        .iter()
                        .map(|(status, text)| {
                            (
                                status.to_string(),
                                text.replace("{u}", &u).replace("{id}", &id),
                            )
                        })
                        .collect();
                    if got == want {
                        Ok(())
                    } else {
                        Err(Fail::because(format!("records {got:?}, expected {want:?}")))
                    }
                })
            }
            Expect::Refused(status, message) => answer.status(*status).map(|_| ()).and_then(|()| {
                let body = error_body(self.operation, &answer, *status)?;
                let said = judge::issue_item(&body, "errorMessage")
                    .unwrap_or_default()
                    .to_string();
                let want = message.replace("{u}", &u).replace("{id}", &id);
                if said == want {
                    Ok(())
                } else {
                    Err(Fail::because(format!(
                        "errorMessage {said:?}, expected {want:?}"
                    )))
                }
            }),
        };
        let outcome = match (outcome, self.hint) {
            (Err(Fail::Failed(reason)), Some(hint)) => {
                Err(Fail::Failed(format!("{reason} ({hint})")))
            }
            (outcome, _) => outcome,
        };
        for (operation, make) in &self.cleanup {
            let _ = persist(&target, operation, fill(make(&u), &u, &id, &glossary)).await;
        }
        outcome
    }
}

/// A body with `{u}`, `{id}` and `{glossary}` replaced in every string (a string that is exactly
/// `{id}` becomes the number).
fn fill(value: Value, u: &str, id: &str, glossary: &str) -> Value {
    match value {
        Value::String(text) if text == "{id}" => id
            .parse::<i64>()
            .map_or_else(|_| Value::String(id.to_string()), Value::from),
        Value::String(text) => Value::String(
            text.replace("{u}", u)
                .replace("{id}", id)
                .replace("{glossary}", glossary),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| fill(item, u, id, glossary))
                .collect(),
        ),
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, item)| (key, fill(item, u, id, glossary)))
                .collect(),
        ),
        other => other,
    }
}

macro_rules! body {
    ($($json:tt)+) => {
        |_: &str| serde_json::json!($($json)+)
    };
}

mod cm;
mod common;
mod dam;
mod peo;
mod pim;

/// Every scenario, by operation in document order.
pub fn all() -> Vec<Check> {
    let mut scenarios = Vec::new();
    scenarios.extend(common::common());
    scenarios.extend(cm::cm());
    scenarios.extend(pim::pim());
    scenarios.extend(peo::peo());
    scenarios.extend(dam::dam());
    scenarios.into_iter().map(Scenario::check).collect()
}

/// A chain of keywords under `/core-conformance/<u>` whose last would have a path of 1,025
/// characters (names are at most 255).
fn long_paths(u: &str) -> Value {
    let mut parent = format!("/core-conformance/{u}");
    let mut items = vec![
        serde_json::json!({"parentPath": "/core-conformance", "name": {"itm": [{"value": u}]}}),
    ];
    for letter in ['a', 'b', 'c'] {
        let name = letter.to_string().repeat(255);
        items.push(serde_json::json!({"parentPath": parent, "name": {"itm": [{"value": name}]}}));
        parent = format!("{parent}/{name}");
    }
    let last = "d".repeat(1025 - parent.chars().count() - 1);
    items.push(serde_json::json!({"parentPath": parent, "name": {"itm": [{"value": last}]}}));
    serde_json::json!({"kwds": {"kwd": items}})
}

fn delete_glossary_entry(_: &str) -> Value {
    serde_json::json!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "delete", "id": "{id}"}]}})
}
