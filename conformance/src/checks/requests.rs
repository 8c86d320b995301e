//! The request a check sends: the well-formed one of an operation (declared in
//! [`super::scenarios`]), what cleans up after it, and the setup step scenarios are made of.
//! Every record a request writes is named with the run's unique prefix.

use core_api::operations::OperationId;
use core_api_support::{Operation, Representation};
use serde_json::Value;

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
}

/// Whether an operation writes: its request is a batch, or it answers result records.
pub fn writes(operation: &Operation) -> bool {
    operation.batch.is_some() || OperationId::of(operation) == Some(OperationId::MessagesPersist)
}

/// The well-formed request of `operation`, declared beside its scenarios
/// ([`super::scenarios`]), with its setup sent.
pub async fn good(target: &Target, operation: &'static Operation) -> Result<Request, Fail> {
    super::scenarios::well_formed(target, operation)
        .await
        .unwrap_or_else(|| {
            Err(Fail::because(format!(
                "core-conformance declares no well-formed request of {}: it was built from another document; update it",
                operation.id
            )))
        })
}

/// Sends a request's cleanup; a cleanup that fails leaves a record behind, not a failed check.
pub async fn clean(target: &Target, request: &Request) {
    for (operation, body) in &request.cleanup {
        let _ = persist(target, operation, body.clone()).await;
    }
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
