//! What each operation is sent, declared once per specification module (`common.rs`, `cm.rs`,
//! `pim.rs`, `peo.rs`, `dam.rs`), beside the operation's other declarations: its well-formed
//! request ([`request`]), which the access, representation and envelope checks send, and a
//! scenario per rule and item message its description states ([`scenario`]): optional setup
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

use super::{error_body, requests::Request, requests::persist};

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
    /// Nothing of its own: the operation's well-formed request, which the other checks send and
    /// judge.
    Answered,
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

/// The well-formed request of `operation`: the fixture answers it with 200, and a write creates
/// its records under unique names (and, for a perform, first creates what it then deletes).
fn request(operation: &'static Operation) -> Scenario {
    Scenario {
        expect: Expect::Answered,
        ..scenario(operation, "a well-formed request", &[])
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

    /// Sends the setup requests and fills the scenario's query, body and cleanup with the run's
    /// names and the id the setup answered.
    async fn prepare(&self, target: &Target) -> Result<Prepared, Fail> {
        let glossary = match self.glossary {
            true => target.glossary_id()?.to_string(),
            false => String::new(),
        };
        let u = target.unique();
        let mut id = String::new();
        for (operation, make) in &self.setup {
            let records = persist(target, operation, fill(make(&u), &u, &id, &glossary)).await?;
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
        let request = Request {
            query: self.query.map(|query| query(&u)).unwrap_or_default(),
            body: self.body.map(|make| fill(make(&u), &u, &id, &glossary)),
            cleanup: self
                .cleanup
                .iter()
                .map(|(operation, make)| (*operation, fill(make(&u), &u, &id, &glossary)))
                .collect(),
        };
        Ok(Prepared { request, u, id })
    }

    async fn run(&self, target: Arc<Target>) -> Checked {
        let Prepared { request, u, id } = self.prepare(&target).await?;
        let mut call = target
            .call(self.operation)
            .accept(super::preferred(self.operation));
        if self.limited {
            call = call.token(target.limited()?);
        }
        if self.query.is_some() {
            call = call.query(&request.query);
        }
        if let Some(body) = &request.body {
            call = call.json(body);
        }
        let answer = call.send().await?;
        let outcome = match &self.expect {
            Expect::Answered => answer.status(200).map(|_| ()),
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
        super::requests::clean(&target, &request).await;
        outcome
    }
}

/// A scenario ready to send: its request, the run's unique name and the id the setup answered.
struct Prepared {
    request: Request,
    u: String,
    id: String,
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

/// A body that does not depend on the run's unique name (`{u}` and `{id}` are filled later).
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

/// Everything declared, by module in document order.
fn declared() -> Vec<Scenario> {
    [
        common::common(),
        cm::cm(),
        pim::pim(),
        peo::peo(),
        dam::dam(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The scenario of every rule and item message, by operation in document order.
pub fn all() -> Vec<Check> {
    declared()
        .into_iter()
        .filter(|scenario| !matches!(scenario.expect, Expect::Answered))
        .map(Scenario::check)
        .collect()
}

/// Sends the setup of the well-formed request of `operation`, and answers the request; `None`
/// when none is declared.
pub async fn well_formed(
    target: &Target,
    operation: &'static Operation,
) -> Option<Result<Request, Fail>> {
    let declared = declared().into_iter().find(|scenario| {
        matches!(scenario.expect, Expect::Answered) && std::ptr::eq(scenario.operation, operation)
    })?;
    Some(
        declared
            .prepare(target)
            .await
            .map(|prepared| prepared.request),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_one_well_formed_request() {
        let declared = declared();
        for operation in core_api::operations::ALL {
            let requests = declared
                .iter()
                .filter(|scenario| {
                    matches!(scenario.expect, Expect::Answered)
                        && std::ptr::eq(scenario.operation, *operation)
                })
                .count();
            assert_eq!(requests, 1, "{}", operation.id);
        }
    }
}
