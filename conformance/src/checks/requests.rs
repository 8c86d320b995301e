//! A well-formed request of every operation against the fixture, and the small steps checks
//! build scenarios from (create a keyword, a classification, …; delete what can be deleted).
//! Every record a request writes is named with the run's unique prefix.

use core_api::operations::{self as op, OperationId};
use core_api_support::{Operation, Representation};
use serde_json::{Value, json};

use crate::{Fail, Target, judge};

/// A request: its query string and JSON body.
pub struct Request {
    /// The query string (`a=1&b=2`), empty when none.
    pub query: String,
    /// The body as default JSON, when the operation takes one.
    pub body: Option<Value>,
    /// What deletes the records it (or its setup) creates, sent after the check ([`clean`]).
    pub cleanup: Vec<(&'static Operation, Value)>,
}

impl Request {
    /// A request with this body and no query.
    pub fn body(body: Value) -> Request {
        Request {
            query: String::new(),
            body: Some(body),
            cleanup: Vec::new(),
        }
    }

    /// A request with this query and no body.
    fn query(query: &str) -> Request {
        Request {
            query: query.to_string(),
            body: None,
            cleanup: Vec::new(),
        }
    }

    /// Deletes classification `CF-<name>` (with its nodes and attributes) after the check.
    fn then_delete_classification(mut self, name: &str) -> Request {
        self.cleanup
            .push((&op::CLASSES_PERFORM, delete_classification(name)));
        self
    }
}

/// Whether an operation writes: its request is a batch, or it answers result records.
pub fn writes(operation: &Operation) -> bool {
    operation.batch.is_some() || OperationId::of(operation) == Some(OperationId::MessagesPersist)
}

/// A request of `operation` the fixture answers with 200. A write creates its records under
/// unique names (and, for a perform, first creates what it then deletes).
pub async fn good(target: &Target, operation: &'static Operation) -> Result<Request, Fail> {
    let u = target.unique();
    let Some(id) = OperationId::of(operation) else {
        return Err(Fail::because(format!(
            "{} is not an operation of the document this runner was built from; update core-conformance",
            operation.id
        )));
    };
    Ok(match id {
        OperationId::Transform => Request::body(json!({"schemaVersion": "5.6.0",
            "meta": {"itm": [{"key": "messageType", "value": "request"}]},
            "kwds": {"kwd": [{"path": "/a", "name": {"itm": [{"value": "a"}, {"value": "A", "loc": "de_DE"}]}}]}})),
        OperationId::LocalesRetrieve => {
            Request::body(json!({"mode": "TID", "tids": ["de_DE", "en_GB"], "exportConfig": true}))
        }
        OperationId::KeywordsRetrieve => Request::body(
            json!({"path": "/core-conformance/Season", "level": -1, "retrieveLinks": true}),
        ),
        OperationId::KeywordsPersist => Request::body(keyword(&u)),
        OperationId::GlossaryEntriesPersist => Request::body(glossary_entry_create(&u)),
        OperationId::GlossaryEntriesPerform => {
            let id = glossary_entry(target, &u).await?;
            Request::body(
                json!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "delete", "id": id}]}}),
            )
        }
        OperationId::ComponentsRetrieve => Request::body(json!({})),
        OperationId::MessagesPersist => Request::body(
            json!({"messages": [{"tid": format!("CF-{u}"), "subject": "core-conformance",
            "body": "A message of a conformance run.", "severity": "ERROR", "recipientRole": "core-conformance-insiders"}]}),
        ),
        OperationId::LinksPersist => {
            persist(target, &op::KEYWORDS_PERSIST, keyword(&u)).await?;
            Request::body(
                json!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": format!("/core-conformance/{u}")}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}),
            )
        }
        OperationId::ChannelsQuery => Request::body(json!({"tid": "CF-Page"})),
        OperationId::ChannelsRetrieve => Request::body(json!({"tids": ["CF-Page"]})),
        OperationId::ChannelsPersist => Request::body(channel(&u)),
        OperationId::RetrieveChannelBriefings => Request::body(json!({"tids": ["CF-Page"],
            "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}})),
        OperationId::GetClasses => Request::query(""),
        OperationId::ClassesRetrieve => {
            Request::body(json!({"tids": ["CF-Apparel"], "withNodes": true}))
        }
        OperationId::ClassesPersist => {
            Request::body(classification(&u)).then_delete_classification(&u)
        }
        OperationId::ClassesPerform => {
            persist(target, &op::CLASSES_PERSIST, classification(&u)).await?;
            Request::body(delete_classification(&u))
        }
        OperationId::AttributesRetrieve => Request::body(
            json!({"nodePaths": ["/CF-Apparel"], "withDomainValues": true, "withDefaultValues": true}),
        ),
        OperationId::AttributesQuery => Request::body(
            json!({"nodePath": ["/CF-Apparel/Shirts"], "includeParentAttributes": true}),
        ),
        OperationId::AttributesPersist => {
            persist(target, &op::CLASSES_PERSIST, classification(&u)).await?;
            Request::body(attribute(&u)).then_delete_classification(&u)
        }
        OperationId::AttributesPerform => {
            persist(target, &op::CLASSES_PERSIST, classification(&u)).await?;
            let records = persist(target, &op::ATTRIBUTES_PERSIST, attribute(&u)).await?;
            let id = records
                .first()
                .and_then(|record| record["id"].as_i64())
                .ok_or_else(|| {
                    Fail::because(format!(
                        "attributes persist answered no id for a new attribute: {records:?}"
                    ))
                })?;
            Request::body(
                json!({"actions": {"action": [{"dataType": "attribute", "type": "delete", "id": id}]}}),
            )
            .then_delete_classification(&u)
        }
        OperationId::AttributeDefinitionsQuery => Request::body(json!({"types": ["ref"]})),
        // Refused (the definition is in use), so that the fixture stays whole.
        OperationId::AttributeDefinitionsPerform => Request::body(json!({"actions": {"action": [
            {"dataType": "attrDefinition", "type": "delete", "tid": "CF-InUse"}]}})),
        OperationId::PeosRetrieve => {
            Request::body(json!({"tids": ["CF-PEO-1"], "withMetadata": true}))
        }
        OperationId::PeosQuery => Request::body(json!({"tidProduct": "CF-PR-1"})),
        OperationId::PeosLinksPersist => Request::body(
            json!({"links": {"itms": [{"type": "peoToProject", "itms": [{"itm": [
            {"key": "peoTid", "value": "CF-PEO-2"}, {"key": "projectTid", "value": "CF-Web"}]}]}]}}),
        ),
        OperationId::AssetsVersionsBin => Request::query("assetTid=CF-A-1&versionNumber=1"),
    })
}

/// Sends a request's cleanup; a cleanup that fails leaves a record behind, not a failed check.
pub async fn clean(target: &Target, request: &Request) {
    for (operation, body) in &request.cleanup {
        let _ = persist(target, operation, body.clone()).await;
    }
}

/// A keyword create under `/core-conformance`, named `name`.
pub fn keyword(name: &str) -> Value {
    json!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": name}, {"value": name, "loc": "de_DE"}]}}]}})
}

/// A channel create under `CF-Root`, tid `CF-<name>`.
pub fn channel(name: &str) -> Value {
    json!({"projects": {"project": [{"tid": format!("CF-{name}"), "parentTid": "CF-Root", "type": "CF-Catalog",
        "name": format!("Conformance {name}"), "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "created"}]}]}}]}})
}

/// A classification create, tid `CF-<name>`, with its root node `/CF-<name>`.
pub fn classification(name: &str) -> Value {
    let tid = format!("CF-{name}");
    json!({"classes": {"class": [{"tid": tid, "name": {"itm": [{"value": tid}, {"value": tid, "loc": "de_DE"}]}}]},
           "nodes": {"node": [{"class": tid, "path": format!("/{tid}"), "name": {"itm": [{"value": tid}]}}]}})
}

/// The delete of classification `CF-<name>`.
pub fn delete_classification(name: &str) -> Value {
    json!({"actions": {"action": [{"dataType": "classification", "type": "delete", "tid": format!("CF-{name}")}]}})
}

/// An attribute create (definition `CF-Spare`) on the root node of classification `CF-<name>`.
pub fn attribute(name: &str) -> Value {
    json!({"attrs": {"attr": [{"nodePath": format!("/CF-{name}"), "key": "CF-Spare", "level": "p",
        "inheritance": "visible", "restriction": "optional", "localized": false}]}})
}

/// A glossary entry create in `CF-GL-1` (a term in `de_DE`) with the value `value`.
pub fn glossary_entry_create(value: &str) -> Value {
    json!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "term",
        "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": value}]}}]}})
}

/// Creates a glossary entry in `CF-GL-1` with the value `value`; answers its id.
pub async fn glossary_entry(target: &Target, value: &str) -> Result<i64, Fail> {
    let records = persist(
        target,
        &op::GLOSSARY_ENTRIES_PERSIST,
        glossary_entry_create(value),
    )
    .await?;
    records
        .first()
        .and_then(|record| record["id"].as_i64())
        .ok_or_else(|| {
            Fail::because(format!(
                "glossary entries persist answered no id for a new entry: {records:?}"
            ))
        })
}

/// Sends a JSON body, asking for JSON; fails unless 200; answers the result records.
pub async fn persist(
    target: &Target,
    operation: &'static Operation,
    body: Value,
) -> Result<Vec<Value>, Fail> {
    let answer = target
        .call(operation)
        .json(&body)
        .accept(Representation::Json)
        .send()
        .await?;
    answer.status(200)?;
    Ok(judge::records(&answer.json()?))
}
