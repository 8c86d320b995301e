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

use core_api::operations as op;
use core_api_support::{Operation, Representation};
use serde_json::Value;

use crate::{Check, Checked, Fail, Kind, Target, judge};

use super::{
    error_body, requests,
    requests::{attribute, channel, classification, delete_classification, keyword, persist},
};

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

/// Every scenario, by operation in document order.
pub fn all() -> Vec<Check> {
    let mut scenarios = Vec::new();
    scenarios.extend(common());
    scenarios.extend(cm());
    scenarios.extend(pim());
    scenarios.extend(peo());
    scenarios.extend(dam());
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

fn common() -> Vec<Scenario> {
    vec![
        scenario(&op::KEYWORDS_RETRIEVE, "404 for an unknown path", &["Keyword with path '<path>' not found"])
            .send(body!({"path": "/core-conformance/{u}"}))
            .refused(404, "Keyword with path '/core-conformance/{u}' not found"),
        scenario(&op::KEYWORDS_PERSIST, "creates a keyword", &["The keyword has been created successfully"])
            .send(keyword)
            .records(&[("SUCCESS", "The keyword has been created successfully")]),
        scenario(&op::KEYWORDS_PERSIST, "updates a keyword by path", &["The keyword has been updated successfully"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"kwds": {"kwd": [{"path": "/core-conformance/{u}", "name": {"itm": [{"value": "{u}"}, {"value": "{u}", "loc": "en_GB"}]}}]}}))
            .records(&[("SUCCESS", "The keyword has been updated successfully")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an unknown parent path", &["Parent keyword with path '<path>' not found"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance/{u}", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Parent keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an update of an unknown path", &["Keyword with path '<path>' not found"])
            .send(body!({"kwds": {"kwd": [{"path": "/core-conformance/{u}", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a keyword that exists", &["Keyword '<path>' already exists"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(keyword)
            .records(&[("ERROR", "Keyword '/core-conformance/{u}' already exists")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a create without a name", &["Missing required value 'name'"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance"}]}}))
            .records(&[("ERROR", "Missing required value 'name'")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a name with '/'", &["Invalid keyword name '<name>': a name must not contain '/'"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}/x"}]}}]}}))
            .records(&[("ERROR", "Invalid keyword name '{u}/x': a name must not contain '/'")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses two names for one locale", &["The name for locale '<loc>' is given more than once"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}"}, {"value": "a", "loc": "de_DE"}, {"value": "b", "loc": "de_DE"}]}}]}}))
            .records(&[("ERROR", "The name for locale 'de_DE' is given more than once")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses two default names", &["The default name is given more than once"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}"}, {"value": "{u}b"}]}}]}}))
            .records(&[("ERROR", "The default name is given more than once")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "creates an entry", &["The glossary entry has been created successfully"])
            .send(requests::glossary_entry_create)
            .records(&[("SUCCESS", "The glossary entry has been created successfully")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "updates an entry", &["The glossary entry has been updated successfully"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"id": "{id}", "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}b"}]}}]}}))
            .records(&[("SUCCESS", "The glossary entry has been updated successfully")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown entry type", &["Unknown translation entry type '<type>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "phrase",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Unknown translation entry type 'phrase'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an entry without a glossary", &["Glossary entry does not contain a link to a glossary"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Glossary entry does not contain a link to a glossary")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown glossary", &["There is no glossary with the given identity"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-{u}", "loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "There is no glossary with the given identity")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown entry", &["Sentence with identity '<id>' not found."])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"tid": "CF-{u}", "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "x"}]}}]}}))
            .records(&[("ERROR", "Sentence with identity 'CF-{u}' not found.")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown locale", &["Unknown locale '<loc>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "xx_XX", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "xx_XX", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Unknown locale 'xx_XX'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "deletes an entry", &["The glossary entry has been deleted successfully"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(delete_glossary_entry)
            .records(&[("SUCCESS", "The glossary entry has been deleted successfully")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "copies an entry", &["The glossary entry has been copied successfully"])
            .glossary()
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "{glossary}"}]}}]}}))
            .records(&[("SUCCESS", "The glossary entry has been copied successfully")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "moves an entry", &["The glossary entry has been moved successfully"])
            .glossary()
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "moveToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "{glossary}"}]}}]}}))
            .records(&[("SUCCESS", "The glossary entry has been moved successfully")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unknown target glossary", &["There is no glossary with the given identity"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "2000000000"}]}}]}}))
            .records(&[("ERROR", "There is no glossary with the given identity")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unknown entry", &["There is no glossary entry with the given tid/identity"])
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[("ERROR", "There is no glossary entry with the given tid/identity")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses a copy without glossaryId", &["Missing required value 'glossaryId'"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}"}]}}))
            .records(&[("ERROR", "Missing required value 'glossaryId'")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unsupported action type", &["Unsupported action type '<type>'"])
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "archive", "tid": "CF-GE-1"}]}}))
            .records(&[("ERROR", "Unsupported action type 'archive'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unsupported data type", &["Unsupported data type '<type>'"])
            .send(body!({"actions": {"action": [{"dataType": "keyword", "type": "delete", "tid": "CF-GE-1"}]}}))
            .records(&[("ERROR", "Unsupported data type 'keyword'")]),
        scenario(&op::MESSAGES_PERSIST, "sends a message", &["The message has been sent successfully"])
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "severity": "ERROR", "recipientRole": "core-conformance-insiders"}]}))
            .records(&[("SUCCESS", "The message has been sent successfully")]),
        scenario(&op::MESSAGES_PERSIST, "refuses a message that exists", &["Message '<tid>' already exists"])
            .after(&op::MESSAGES_PERSIST, body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "recipientUser": "core-conformance"}]}))
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "recipientUser": "core-conformance"}]}))
            .records(&[("ERROR", "Message 'CF-{u}' already exists")]),
        scenario(&op::LINKS_PERSIST, "links an asset to a keyword", &["The link has been saved successfully"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("SUCCESS", "The link has been saved successfully")]),
        scenario(&op::LINKS_PERSIST, "refuses a second link of an asset to a keyword", &["Asset has been already linked to the keyword"])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Asset has been already linked to the keyword")]),
        scenario(&op::LINKS_PERSIST, "refuses a second link of an asset to a product", &["Asset has been already linked to the product"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Image", "itm": [
                {"key": "productTid", "value": "CF-PR-1"}, {"key": "assetTid", "value": "CF-A-2"}]}]}]}}))
            .records(&[("ERROR", "Asset has been already linked to the product")]),
        scenario(&op::LINKS_PERSIST, "refuses a link beyond the attribute's cardinality", &["Product attribute cardinality has been exceeded"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Image", "itm": [
                {"key": "productTid", "value": "CF-PR-1"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", "Product attribute cardinality has been exceeded")]),
        scenario(&op::LINKS_PERSIST, "refuses unknown assets, products and attributes", &["Asset not found", "Product not found", "Attribute not found"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-{u}"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-{u}"}, {"key": "assetTid", "value": "CF-A-3"}]},
                {"type": "CF-{u}", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", "Asset not found"), ("ERROR", "Product not found"), ("ERROR", "Attribute not found")]),
        scenario(&op::LINKS_PERSIST, "refuses an asset the caller may not see", &["Asset is not available by access rights"])
            .limited()
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Gallery", "itm": [
                {"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-A-Hidden"}]}]}]}}))
            .records(&[("ERROR", "Asset is not available by access rights")]),
        scenario(&op::LINKS_PERSIST, "refuses a product the caller may not see", &["Product is not available by access rights"])
            .limited()
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Gallery", "itm": [
                {"key": "productTid", "value": "CF-PR-Hidden"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", "Product is not available by access rights")]),
        scenario(&op::LINKS_PERSIST, "refuses an unknown keyword path", &["Keyword with path '<path>' not found"])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an unknown parent id", &["Parent keyword with identity '<id>' not found"])
            .send(body!({"kwds": {"kwd": [{"parentId": 2_000_000_000, "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Parent keyword with identity '2000000000' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an update of an unknown id", &["Keyword with identity '<id>' not found"])
            .send(body!({"kwds": {"kwd": [{"id": 2_000_000_000, "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Keyword with identity '2000000000' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses moving a keyword", &["Keyword '<path>' cannot be moved to another parent"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"kwds": {"kwd": [{"id": "{id}", "parentPath": "/core-conformance/Season", "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Keyword '/core-conformance/{u}' cannot be moved to another parent")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a path longer than 1024 characters", &["A keyword path has at most 1024 characters; this one would have <length>"])
            .send(long_paths)
            .records(&[
                ("SUCCESS", "The keyword has been created successfully"),
                ("SUCCESS", "The keyword has been created successfully"),
                ("SUCCESS", "The keyword has been created successfully"),
                ("SUCCESS", "The keyword has been created successfully"),
                ("ERROR", "A keyword path has at most 1024 characters; this one would have 1025"),
            ]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses a create without a locale", &["Missing required value '<field>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "type": "term",
                "meta": {"itm": [{"key": "value", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Missing required value 'loc'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an invalid flag", &["Invalid value '<value>' for '<key>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}, {"key": "forbidden", "value": "maybe"}]}}]}}))
            .records(&[("ERROR", "Invalid value 'maybe' for 'forbidden'")]),
        scenario(&op::MESSAGES_PERSIST, "refuses a message without a recipient", &["Either recipientUser or recipientRole must be given"])
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x"}]}))
            .refused_records(400, &[("ERROR", "Either recipientUser or recipientRole must be given")]),
        scenario(&op::LINKS_PERSIST, "refuses an unknown keyword id", &["Keyword with identity '<id>' not found"])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordId", "value": "2000000000"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Keyword with identity '2000000000' not found")]),
        scenario(&op::LINKS_PERSIST, "refuses malformed link items", &["Invalid value '<value>' for '<key>'", "Missing required value '<key>'", "Give one '<tidKey>' or one '<idKey>'"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "CF-Gallery", "itm": [{"key": "productId", "value": "x"}, {"key": "assetTid", "value": "CF-A-3"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "productId", "value": "1"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[
                ("ERROR", "Invalid value 'x' for 'productId'"),
                ("ERROR", "Missing required value 'assetTid'"),
                ("ERROR", "Give one 'productTid' or one 'productId'"),
            ]),
        scenario(&op::LINKS_PERSIST, "refuses an unsupported link type", &["Unsupported link type '<type>'"])
            .send(body!({"links": {"itms": [{"type": "assetToCF", "itms": [{"itm": [{"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Unsupported link type 'assetToCF'")]),
    ]
}

fn cm() -> Vec<Scenario> {
    vec![
        scenario(&op::CHANNELS_PERSIST, "creates a channel", &["The project has been created successfully"])
            .send(channel)
            .records(&[("SUCCESS", "The project has been created successfully")]),
        scenario(&op::CHANNELS_PERSIST, "saves a channel's name and values", &["The project has been saved successfully"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "name": "Renamed {u}",
                "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "changed"}]}]}}]}}))
            .records(&[("SUCCESS", "The project has been saved successfully")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown type", &["Project type '<type>' not found"])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-Root", "type": "CF-{u}", "name": "x"}]}}))
            .records(&[("ERROR", "Project type 'CF-{u}' not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown parent", &["Parent project not found"])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-{u}-parent", "type": "CF-Catalog", "name": "x"}]}}))
            .records(&[("ERROR", "Parent project not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses a create without a type", &["Project type '' not found"])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-Root", "name": "x"}]}}))
            .records(&[("ERROR", "Project type '' not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an attribute not registered", &["Attribute '<attr>' is not registered"])
            .send(body!({"projects": {"project": [{"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Spare", "itm": [{"value": "x"}]}]}}]}}))
            .records(&[("WARNING", "The project has been saved successfully|Attribute 'CF-Spare' is not registered")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown id", &["Project with id <id> not found"])
            .send(body!({"projects": {"project": [{"id": 2_000_000_000, "name": "x"}]}}))
            .records(&[("ERROR", "Project with id 2000000000 not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses another tid for an id", &["The tid of project <id> is '<tid>'"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [{"id": "{id}", "tid": "CF-{u}-other", "name": "x"}]}}))
            .records(&[("ERROR", "The tid of project {id} is 'CF-{u}'")]),
        scenario(&op::CHANNELS_PERSIST, "refuses creates missing what a create needs", &["Missing required value 'tid'", "Missing required value 'parentTid' or 'parentId'", "Missing required value 'name'"])
            .send(body!({"projects": {"project": [
                {"parentTid": "CF-Root", "type": "CF-Catalog", "name": "x"},
                {"tid": "CF-{u}", "type": "CF-Catalog", "name": "x"},
                {"tid": "CF-{u}", "parentTid": "CF-Root", "type": "CF-Catalog"}]}}))
            .records(&[
                ("ERROR", "Missing required value 'tid'"),
                ("ERROR", "Missing required value 'parentTid' or 'parentId'"),
                ("ERROR", "Missing required value 'name'"),
            ]),
        scenario(&op::CHANNELS_PERSIST, "refuses malformed values", &["Attribute '<attr>' holds one value, not <n>", "Position <pos> of attribute '<attr>' is given twice", "Localized value of attribute '<attr>' needs 'loc'"])
            .send(body!({"projects": {"project": [
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Sizes", "type": "multiple", "itm": [{"value": "a", "pos": 0}, {"value": "b", "pos": 0}]}]}},
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Claim", "type": "localized", "itm": [{"value": "x"}]}]}}]}}))
            .records(&[
                ("ERROR", "Attribute 'CF-Comment' holds one value, not 2"),
                ("ERROR", "Position 0 of attribute 'CF-Sizes' is given twice"),
                ("ERROR", "Localized value of attribute 'CF-Claim' needs 'loc'"),
            ]),
        scenario(&op::CHANNELS_PERSIST, "warns about an unknown language and a new parent", &["Cannot find language id with code '<code>'.", "Changing the parent is not supported"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [
                {"tid": "CF-{u}", "vals": {"val": [{"attr": "CF-Claim", "type": "localized", "itm": [{"value": "x", "loc": "xx_XX"}]}]}},
                {"tid": "CF-{u}", "parentTid": "CF-Web", "name": "Moved {u}"}]}}))
            .records(&[
                ("WARNING", "The project has been saved successfully|Cannot find language id with code 'xx_XX'."),
                ("WARNING", "The project has been saved successfully|Changing the parent is not supported"),
            ]),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown channel id", &["Project with id <id> not found"])
            .send(body!({"ids": [2_000_000_000], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project with id 2000000000 not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown channel", &["Project with tid '<tid>' not found"])
            .send(body!({"tids": ["CF-{u}"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project with tid 'CF-{u}' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown locale", &["Locale '<locale>' not found"])
            .send(body!({"tids": ["CF-Page"], "briefingInfo": {"locale": "xx_XX", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Locale 'xx_XX' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown module configuration", &["Briefing module configuration '<tid>' not found"])
            .send(body!({"tids": ["CF-Page"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF-{u}"}}))
            .refused(404, "Briefing module configuration 'CF-{u}' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for a channel without a layout", &["Project '<tid>' has no briefing layout for '<cfg>' in locale '<locale>'"])
            .send(body!({"tids": ["CF-Web"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project 'CF-Web' has no briefing layout for 'CF.BriefingModule' in locale 'de_DE'"),
    ]
}

fn pim() -> Vec<Scenario> {
    vec![
        scenario(&op::CLASSES_PERSIST, "creates a classification", &["The classification has been created successfully"])
            .send(classification)
            .records(&[("SUCCESS", "The classification has been created successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "saves a classification", &["The classification has been saved successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}, {"value": "Neu", "loc": "de_DE"}]}}]}}))
            .records(&[("SUCCESS", "The classification has been saved successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "warns about an unknown language", &["Cannot find language id with code '<code>'."])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "x", "loc": "xx_XX"}]}}]}}))
            .records(&[("WARNING", "The classification has been saved successfully|Cannot find language id with code 'xx_XX'.")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses a root node other than the classification", &["Unable to create the root node '<path>' of classification '<tid>'"])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]},
                "nodes": {"node": [{"class": "CF-{u}", "path": "/CF-{u}-other", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Unable to create the root node '/CF-{u}-other' of classification 'CF-{u}'")]),
        scenario(&op::CLASSES_PERFORM, "deletes a classification", &["The classification has been deleted successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(delete_classification)
            .records(&[("SUCCESS", "The classification has been deleted successfully")]),
        scenario(&op::CLASSES_PERFORM, "refuses an unknown classification", &["There is no classification with the given identity '<tid-or-id>'"])
            .send(delete_classification)
            .records(&[("ERROR", "There is no classification with the given identity 'CF-{u}'")]),
        scenario(&op::ATTRIBUTES_PERSIST, "creates an attribute", &["The attribute has been created successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(attribute)
            .records(&[("SUCCESS", "The attribute has been created successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses an unknown node path", &["Node with path <path> not found"])
            .send(attribute)
            .records(&[("ERROR", "Node with path /CF-{u} not found")]),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses an unknown definition", &["Attribute definition: '<key>' cannot be found"])
            .send(body!({"attrs": {"attr": [{"nodePath": "/CF-Apparel", "key": "CF-{u}", "level": "p",
                "inheritance": "visible", "restriction": "optional", "localized": false}]}}))
            .records(&[("ERROR", "Attribute definition: 'CF-{u}' cannot be found")]),
        scenario(&op::ATTRIBUTES_PERFORM, "deletes an attribute", &["The attribute has been deleted successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"actions": {"action": [{"dataType": "attribute", "type": "delete", "id": "{id}"}]}}))
            .records(&[("SUCCESS", "The attribute has been deleted successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses an unknown id", &["There is no classification with the given identity '<id>'"])
            .send(body!({"classes": {"class": [{"id": 2_000_000_000, "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "There is no classification with the given identity '2000000000'")]),
        scenario(&op::CLASSES_PERSIST, "refuses another tid for an id", &["The tid of classification <id> is '<tid>' and cannot be changed"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"id": "{id}", "tid": "CF-{u}-other", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "The tid of classification {id} is 'CF-{u}' and cannot be changed")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses a classification without a tid", &["Missing required value 'tid'"])
            .send(body!({"classes": {"class": [{"name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Missing required value 'tid'")]),
        scenario(&op::CLASSES_PERSIST, "warns about a localized name that exists", &["Unable to create new classification name '<name>' for language '<code>', because it already exist."])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}, {"value": "Bekleidung", "loc": "de_DE"}]}}]},
                "nodes": {"node": [{"class": "CF-{u}", "path": "/CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]}}))
            .records(&[("WARNING", "The classification has been created successfully|Unable to create new classification name 'Bekleidung' for language 'de_DE', because it already exist.")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "warns about nodes it cannot write", &["Missing required value 'path'", "Node with id <id> not found", "Node path '<path>' is not inside classification '<tid>'", "Parent node with path '<path>' not found for node '<path>'", "Node '<path>' is deeper than 16 levels"])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]},
                "nodes": {"node": [
                    {"class": "CF-{u}", "path": "/CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}},
                    {"class": "CF-{u}", "name": {"itm": [{"value": "x"}]}},
                    {"class": "CF-{u}", "id": 2_000_000_000, "path": "/CF-{u}/x"},
                    {"class": "CF-{u}", "path": "/CF-Apparel/{u}"},
                    {"class": "CF-{u}", "path": "/CF-{u}/a/b"},
                    {"class": "CF-{u}", "path": "/CF-{u}/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16"}]}}))
            .records(&[("WARNING", "The classification has been created successfully|Missing required value 'path'|Node with id 2000000000 not found|Node path '/CF-Apparel/{u}' is not inside classification 'CF-{u}'|Parent node with path '/CF-{u}/a' not found for node '/CF-{u}/a/b'|Node '/CF-{u}/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16' is deeper than 16 levels")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERFORM, "refuses malformed actions", &["Missing required value 'tid'", "Unsupported action type '<type>'", "Unsupported data type '<dataType>'"])
            .send(body!({"actions": {"action": [
                {"dataType": "classification", "type": "delete"},
                {"dataType": "classification", "type": "archive", "tid": "CF-{u}"},
                {"dataType": "keyword", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[
                ("ERROR", "Missing required value 'tid'"),
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'keyword'"),
            ]),
        scenario(&op::ATTRIBUTES_PERSIST, "saves an attribute", &["The attribute has been saved successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"attrs": {"attr": [{"id": "{id}", "inheritance": "not_visible"}]}}))
            .records(&[("SUCCESS", "The attribute has been saved successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses unknown ids and malformed attributes", &["Attribute with id <id> was not found.", "Node with id <id> not found", "Missing required value '<field>'", "Invalid value '<v>' for '<field>'"])
            .send(body!({"attrs": {"attr": [
                {"id": 2_000_000_000, "inheritance": "not_visible"},
                {"nodeId": 2_000_000_000, "key": "CF-Spare", "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false},
                {"nodePath": "/CF-Apparel", "key": "CF-Spare", "inheritance": "visible", "restriction": "optional", "localized": false},
                {"nodePath": "/CF-Apparel", "key": "CF-Spare", "level": "p", "inheritance": "sideways", "restriction": "optional", "localized": false}]}}))
            .records(&[
                ("ERROR", "Attribute with id 2000000000 was not found."),
                ("ERROR", "Node with id 2000000000 not found"),
                ("ERROR", "Missing required value 'level'"),
                ("ERROR", "Invalid value 'sideways' for 'inheritance'"),
            ]),
        scenario(&op::ATTRIBUTES_PERFORM, "refuses what it cannot delete", &["Attribute with id <id> was not found.", "Node with id <id> not found", "Node with path <path> not found", "Attribute '<key>' was not found on node <path>", "Missing required value 'id'", "Unsupported action type '<type>'", "Unsupported data type '<dataType>'"])
            .send(body!({"actions": {"action": [
                {"dataType": "attribute", "type": "delete", "id": 2_000_000_000},
                {"dataType": "attribute", "type": "delete", "nodeId": 2_000_000_000, "key": "CF-Weight"},
                {"dataType": "attribute", "type": "delete", "nodePath": "/CF-{u}", "key": "CF-Weight"},
                {"dataType": "attribute", "type": "delete", "nodePath": "/CF-Apparel", "key": "CF-Spare"},
                {"dataType": "attribute", "type": "delete"},
                {"dataType": "attribute", "type": "archive", "id": 2_000_000_000},
                {"dataType": "keyword", "type": "delete", "id": 2_000_000_000}]}}))
            .records(&[
                ("ERROR", "Attribute with id 2000000000 was not found."),
                ("ERROR", "Node with id 2000000000 not found"),
                ("ERROR", "Node with path /CF-{u} not found"),
                ("ERROR", "Attribute 'CF-Spare' was not found on node /CF-Apparel"),
                ("ERROR", "Missing required value 'id'"),
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'keyword'"),
            ]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "deletes an unused definition", &["The attribute definition has been deleted successfully"])
            .hint("this check deletes the fixture's CF-Doomed: load the fixture again before each run")
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-Doomed"}]}}))
            .records(&[("SUCCESS", "The attribute definition has been deleted successfully")]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses mixed kinds of identifier", &["All actions of one request must use the same kind of identifier"])
            .send(body!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "delete", "tid": "CF-{u}"},
                {"dataType": "attrDefinition", "type": "delete", "id": 2_000_000_000}]}}))
            .refused(400, "All actions of one request must use the same kind of identifier"),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses malformed actions", &["Unsupported action type '<type>'", "Unsupported data type '<dataType>'"])
            .send(body!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "archive", "tid": "CF-{u}"},
                {"dataType": "attribute", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'attribute'"),
            ]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses a definition in use", &["The attribute definition could not be deleted. Reason: <reason>"])
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-InUse"}]}}))
            .records(&[("ERROR", "The attribute definition could not be deleted. Reason: it is used by 1 node attribute")]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses an unknown definition", &["There is no attribute definition with the given tid or id"])
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[("ERROR", "There is no attribute definition with the given tid or id")]),
    ]
}

fn peo() -> Vec<Scenario> {
    vec![
        scenario(&op::PEOS_RETRIEVE, "404 when no PEO is found", &["None of the requested PEOs was found"])
            .send(body!({"tids": ["CF-{u}"]}))
            .refused(404, "None of the requested PEOs was found"),
        scenario(&op::PEOS_QUERY, "404 for an unknown project", &["Project '<tid>' not found"])
            .send(body!({"tidProject": "CF-{u}"}))
            .refused(404, "Project 'CF-{u}' not found"),
        scenario(&op::PEOS_QUERY, "404 for an unknown product", &["Product '<tid>' not found"])
            .send(body!({"tidProduct": "CF-{u}"}))
            .refused(404, "Product 'CF-{u}' not found"),
        scenario(&op::PEOS_LINKS_PERSIST, "links a PEO to a project", &["The link has been saved successfully"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-{u}"}]}]}]}}))
            .records(&[("SUCCESS", "The link has been saved successfully")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses unknown PEOs and projects", &["PEO not found", "Project not found"])
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": [{"key": "peoTid", "value": "CF-{u}"}, {"key": "projectTid", "value": "CF-Web"}]},
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-{u}"}]}]}]}}))
            .records(&[("ERROR", "PEO not found"), ("ERROR", "Project not found")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses a PEO the caller may not see", &["PEO is not available by access rights"])
            .limited()
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-Hidden"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}))
            .records(&[("ERROR", "PEO is not available by access rights")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses incomplete link items", &["Invalid link definition"])
            .send(body!({"links": {"itms": [{"type": "peoToProject", "itms": [
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}]},
                {"itm": [{"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectId", "value": "x"}]}]}]}}))
            .records(&[("ERROR", "Invalid link definition"), ("ERROR", "Invalid link definition")]),
        scenario(&op::PEOS_LINKS_PERSIST, "refuses an unsupported link type", &["Unsupported link type '<type>'"])
            .send(body!({"links": {"itms": [{"type": "peoToCF", "itms": [{"itm": [
                {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}))
            .records(&[("ERROR", "Unsupported link type 'peoToCF'")]),
    ]
}

fn dam() -> Vec<Scenario> {
    vec![
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown asset",
            &["Asset not found"],
        )
        .query(|_| "assetTid=CF-unknown-asset&versionNumber=1".into())
        .refused(404, "Asset not found"),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown version",
            &["Asset version not found"],
        )
        .query(|_| "assetTid=CF-A-1&versionNumber=99".into())
        .refused(404, "Asset version not found"),
        scenario(
            &op::ASSETS_VERSIONS_BIN,
            "404 for an unknown preview",
            &["Preview '<format>' not found"],
        )
        .query(|_| "versionTid=CF-V-1-1&format=poster".into())
        .refused(404, "Preview 'poster' not found"),
    ]
}
