//! Every check of the runner, in the order they run: for each operation of the document its
//! access, representation, envelope and error checks (made from the operation's metadata), then
//! the rules and item messages of each module ([`scenarios`], which also declares the
//! well-formed request of each operation these checks send).

pub mod requests;
mod retries;
pub mod scenarios;

use std::sync::Arc;

use core_api_support::{Operation, Representation, Schema};
use serde_json::Value;

use crate::{Answer, Check, Checked, Fail, Kind, Target, judge};

use requests::{Request, good, writes};

/// Every check, in running order.
pub fn all() -> Vec<Check> {
    let mut checks = Vec::new();
    for operation in core_api::operations::ALL.iter().copied() {
        checks.extend(access(operation));
        checks.extend(representations(operation));
        if envelope_of(operation) {
            checks.push(Check::new(operation, Kind::Envelope, "the answer's envelope: schemaVersion 5.6.0 and meta (messageType, messageTime, sourceEnv)", move |target| {
                Box::pin(envelope(target, operation))
            }));
        }
        checks.extend(errors(operation));
        checks.push(Check::new(
            operation,
            Kind::Headers,
            "X-Content-Type-Options: nosniff on its answer and on its 401",
            move |target| Box::pin(nosniff(target, operation)),
        ));
        checks.extend(retries::idempotency(operation));
    }
    checks.extend(scenarios::all());
    // Last: it spends the caller's rate, which the checks after it would wait for.
    checks.push(retries::rate_limit());
    checks
}

/// 401 without a token and with an unknown one; 403 to the limited caller on the operations of
/// the modules its role does not grant (CM, PIM).
fn access(operation: &'static Operation) -> Vec<Check> {
    let mut checks = vec![
        Check::new(
            operation,
            Kind::Access,
            "401 without a token",
            move |target| {
                Box::pin(async move {
                    let answer = target
                        .call(operation)
                        .anonymous()
                        .accept_raw("application/json")
                        .send()
                        .await?;
                    unauthorized(operation, &answer)
                })
            },
        ),
        Check::new(
            operation,
            Kind::Access,
            "401 with an unknown token",
            move |target| {
                Box::pin(async move {
                    let answer = target
                        .call(operation)
                        .token("0123456789abcdef.00000000000000000000000000000000")
                        .accept_raw("application/json")
                        .send()
                        .await?;
                    unauthorized(operation, &answer)
                })
            },
        ),
    ];
    if matches!(operation.module, "CM" | "PIM") {
        checks.push(Check::new(
            operation,
            Kind::Access,
            "403 to a caller whose role does not grant the operation",
            move |target| {
                Box::pin(async move {
                    let limited = target.limited()?.to_string();
                    let request = good_read(&target, operation).await?;
                    let answer = send(
                        &target,
                        operation,
                        &request,
                        Some(&limited),
                        preferred(operation),
                    )
                    .await?;
                    refused(operation, &answer, 403)
                })
            },
        ));
    }
    checks
}

/// The operation's answer to a well-formed request and its 401 both say
/// `X-Content-Type-Options: nosniff`, so no browser reads a body as another media type.
async fn nosniff(target: Arc<Target>, operation: &'static Operation) -> Checked {
    let request = good(&target, operation).await?;
    let answer = send(&target, operation, &request, None, preferred(operation)).await?;
    requests::clean(&target, &request).await;
    answer.status(200)?;
    let refused = target
        .call(operation)
        .anonymous()
        .accept_raw("application/json")
        .send()
        .await?;
    refused.status(401)?;
    for (answer, what) in [(&answer, "200"), (&refused, "401")] {
        let said = answer
            .headers
            .get("x-content-type-options")
            .and_then(|value| value.to_str().ok());
        if said != Some("nosniff") {
            return Err(Fail::because(format!(
                "the {what} answer's X-Content-Type-Options is {said:?}, not \"nosniff\""
            )));
        }
    }
    Ok(())
}

/// A request of an operation for the 403 check: a write's request without its setup (the check
/// expects nothing to be done).
async fn good_read(target: &Target, operation: &'static Operation) -> Result<Request, Fail> {
    if writes(operation) {
        Ok(Request::body(serde_json::json!({})))
    } else {
        good(target, operation).await
    }
}

fn unauthorized(operation: &'static Operation, answer: &Answer) -> Checked {
    answer.status(401)?;
    let challenge = answer
        .headers
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if !challenge.starts_with("Bearer") {
        return Err(Fail::because(format!(
            "WWW-Authenticate is {challenge:?}, not Bearer"
        )));
    }
    let body = error_body(operation, answer, 401)?;
    if body["description"] != "Not authorized" {
        return Err(Fail::because(format!(
            "the description is {}, not \"Not authorized\"",
            body["description"]
        )));
    }
    Ok(())
}

/// An error answer with this status and the body the document lists for it.
fn refused(operation: &'static Operation, answer: &Answer, status: u16) -> Checked {
    answer.status(status)?;
    error_body(operation, answer, status).map(|_| ())
}

/// An error answer's body as a tree, in the representation its `Content-Type` names, valid for
/// the schema the document lists for the status, with `status` `ERROR` where it is a record.
pub fn error_body(
    operation: &'static Operation,
    answer: &Answer,
    status: u16,
) -> Result<Value, Fail> {
    let schema = operation.body_schema(status).ok_or_else(|| {
        Fail::because(format!(
            "the document lists no body for {status} of {}",
            operation.id
        ))
    })?;
    let media = core_api::document::ERROR_MEDIA
        .iter()
        .find(|media| answer.content_type == media.name)
        .ok_or_else(|| {
            Fail::because(format!(
                "the error answer's Content-Type {:?} is none of the document's",
                answer.content_type
            ))
        })?;
    let body = judge::tree(answer, media.representation, schema)?;
    if schema.name == "ResponseType" && body["status"] != "ERROR" {
        return Err(Fail::because(format!(
            "the error record's status is {}, not ERROR",
            body["status"]
        )));
    }
    Ok(body)
}

/// The representation checks ask answers in: JSON where the operation lists it, else its first.
pub fn preferred(operation: &Operation) -> Representation {
    let listed = operation.response.media;
    if listed
        .iter()
        .any(|media| media.representation == Representation::Json)
    {
        Representation::Json
    } else {
        listed
            .first()
            .map_or(Representation::Json, |media| media.representation)
    }
}

/// Sends a request with a token (the target's when `None`), asking for a representation.
async fn send(
    target: &Target,
    operation: &'static Operation,
    request: &Request,
    token: Option<&str>,
    accept: Representation,
) -> Result<Answer, Fail> {
    let mut call = target.call(operation).query(&request.query).accept(accept);
    if let Some(token) = token {
        call = call.token(token);
    }
    if let Some(body) = &request.body {
        call = call.json(body);
    }
    call.send().await
}

/// For each answer representation the operation lists, its answer (status 200, the media type
/// exactly as the document names it, a body that reads as the documented schema and, for a read,
/// says what the JSON answer says); for each request representation, a request in it.
fn representations(operation: &'static Operation) -> Vec<Check> {
    let mut checks = Vec::new();
    for media in operation.response.media {
        checks.push(Check::new(
            operation,
            Kind::Representations,
            format!("answers in {}", media.name),
            move |target| {
                Box::pin(async move {
                    let request = good(&target, operation).await?;
                    let answer =
                        send(&target, operation, &request, None, media.representation).await?;
                    requests::clean(&target, &request).await;
                    answer.status(200)?;
                    if answer.content_type != media.name {
                        return Err(Fail::because(format!(
                            "Content-Type is {:?}, not {:?}",
                            answer.content_type, media.name
                        )));
                    }
                    let Some(schema) = operation.response.schema else {
                        return binary(operation, &answer);
                    };
                    let tree = judge::tree(&answer, media.representation, schema)?;
                    if writes(operation) {
                        return one_record_per_item(&request, &tree);
                    }
                    if media.representation != Representation::Json
                        && preferred(operation) == Representation::Json
                    {
                        let json =
                            send(&target, operation, &request, None, Representation::Json).await?;
                        json.status(200)?;
                        same(
                            judge::tree(&json, Representation::Json, schema)?,
                            tree,
                            schema,
                            "the JSON answer",
                        )?;
                    }
                    Ok(())
                })
            },
        ));
    }
    let Some(body) = &operation.request else {
        return checks;
    };
    for media in body
        .media
        .iter()
        .filter(|media| media.representation != Representation::Json)
    {
        checks.push(Check::new(
            operation,
            Kind::Representations,
            format!("reads {} requests", media.name),
            move |target| {
                Box::pin(async move {
                    let request = good(&target, operation).await?;
                    let value = request.body.clone().unwrap_or_default();
                    let bytes = judge::encode(media.representation, &value, body.schema)?;
                    let answer = target
                        .call(operation)
                        .query(&request.query)
                        .body(media.representation, bytes)
                        .accept(Representation::Json)
                        .send()
                        .await?;
                    requests::clean(&target, &request).await;
                    answer.status(200)?;
                    let Some(schema) = operation.response.schema else {
                        return Ok(());
                    };
                    let tree = judge::tree(&answer, Representation::Json, schema)?;
                    if writes(operation) {
                        return one_record_per_item(&request, &tree);
                    }
                    let json =
                        send(&target, operation, &request, None, Representation::Json).await?;
                    json.status(200)?;
                    same(
                        judge::tree(&json, Representation::Json, schema)?,
                        tree,
                        schema,
                        "the answer to the JSON request",
                    )
                })
            },
        ));
    }
    checks
}

/// The fixture's first version of CF-A-1, whole.
fn binary(operation: &'static Operation, answer: &Answer) -> Checked {
    let expected = b"core-conformance version 1";
    if answer.bytes != expected {
        return Err(Fail::because(format!(
            "{} answered {} bytes, not the fixture's {} ({:?})",
            operation.id,
            answer.bytes.len(),
            expected.len(),
            answer.excerpt()
        )));
    }
    Ok(())
}

/// A batch answer holds one record per item of the request.
fn one_record_per_item(request: &Request, tree: &Value) -> Checked {
    let records = judge::records(tree);
    let items = request.body.as_ref().map_or(0, count_items);
    if records.len() != items {
        return Err(Fail::because(format!(
            "{} records for {items} items: {records:?}",
            records.len()
        )));
    }
    Ok(())
}

/// The items of a batch request: the entries of its one collection.
fn count_items(body: &Value) -> usize {
    let Some(object) = body.as_object() else {
        return 0;
    };
    object
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), "schemaVersion" | "meta"))
        .map(|(key, value)| match (key.as_str(), value) {
            ("links", value) => value["itms"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|group| group["itms"].as_array().map_or(0, Vec::len))
                .sum(),
            ("messages", Value::Array(items)) => items.len(),
            ("nodes", _) => 0,
            (_, Value::Object(collection)) => collection
                .values()
                .filter_map(Value::as_array)
                .map(Vec::len)
                .sum(),
            _ => 0,
        })
        .sum()
}

/// Two answers say the same, up to the values the server generates and an empty collection
/// written or left out (the document's trees are compared in their normal form).
fn same(mut expected: Value, mut got: Value, schema: &'static Schema, what: &str) -> Checked {
    core_repr::tree::normalize(&mut expected, schema);
    core_repr::tree::normalize(&mut got, schema);
    judge::redact_json(&mut expected);
    judge::redact_json(&mut got);
    if expected == got {
        Ok(())
    } else {
        Err(Fail::because(format!(
            "it says other than {what}:\n  {got}\n  {expected}"
        )))
    }
}

/// Whether the operation's answer is a message with the envelope (`transform` answers the
/// message it was given).
fn envelope_of(operation: &Operation) -> bool {
    operation.id != "transform"
        && operation.response.schema.is_some_and(|schema| {
            matches!(schema.name, "PimType" | "ServiceType" | "ResponsesType")
        })
}

async fn envelope(target: Arc<Target>, operation: &'static Operation) -> Checked {
    let request = good(&target, operation).await?;
    let answer = send(&target, operation, &request, None, Representation::Json).await?;
    requests::clean(&target, &request).await;
    answer.status(200)?;
    let body = answer.json()?;
    if body["schemaVersion"] != core_api::document::SCHEMA_VERSION {
        return Err(Fail::because(format!(
            "schemaVersion is {}, not {}",
            body["schemaVersion"],
            core_api::document::SCHEMA_VERSION
        )));
    }
    let items = body["meta"]["itm"].as_array().cloned().unwrap_or_default();
    let value = |key: &str| {
        items
            .iter()
            .find(|item| item["key"] == key)
            .and_then(|item| item["value"].as_str())
            .map(str::to_string)
    };
    if value("messageType").as_deref() != Some("request") {
        return Err(Fail::because(format!(
            "meta has no messageType \"request\": {}",
            body["meta"]
        )));
    }
    let time = value("messageTime").unwrap_or_default();
    if !utc_millis(&time) {
        return Err(Fail::because(format!(
            "meta's messageTime {time:?} is not ISO 8601 UTC with milliseconds"
        )));
    }
    if value("sourceEnv").is_none_or(|text| text.is_empty()) {
        return Err(Fail::because(format!(
            "meta has no sourceEnv: {}",
            body["meta"]
        )));
    }
    Ok(())
}

/// `YYYY-MM-DDThh:mm:ss.SSSZ`.
pub fn utc_millis(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 24
        && bytes.iter().enumerate().all(|(at, byte)| match at {
            4 | 7 => *byte == b'-',
            10 => *byte == b'T',
            13 | 16 => *byte == b':',
            19 => *byte == b'.',
            23 => *byte == b'Z',
            _ => byte.is_ascii_digit(),
        })
}

/// 400 on a body that is not JSON, 415 on a media type the operation does not list, 406 on an
/// `Accept` it cannot answer; each with the documented error body.
fn errors(operation: &'static Operation) -> Vec<Check> {
    let mut checks = Vec::new();
    if operation.request.is_some() {
        checks.push(Check::new(
            operation,
            Kind::Errors,
            "400 on a body that is not JSON",
            move |target| {
                Box::pin(async move {
                    let answer = target
                        .call(operation)
                        .raw("application/json", "{\"")
                        .accept(preferred(operation))
                        .send()
                        .await?;
                    refused(operation, &answer, 400)
                })
            },
        ));
        checks.push(Check::new(
            operation,
            Kind::Errors,
            "415 on a Content-Type it does not list",
            move |target| {
                Box::pin(async move {
                    let answer = target
                        .call(operation)
                        .raw("text/plain", "x")
                        .accept_raw("application/json")
                        .send()
                        .await?;
                    refused(operation, &answer, 415)
                })
            },
        ));
    }
    checks.push(Check::new(
        operation,
        Kind::Errors,
        "406 on an Accept it cannot answer",
        move |target| {
            Box::pin(async move {
                let request = good_read(&target, operation).await?;
                let mut call = target
                    .call(operation)
                    .query(&request.query)
                    .accept_raw("image/png");
                if let Some(body) = &request.body {
                    call = call.json(body);
                }
                let answer = call.send().await?;
                refused(operation, &answer, 406)
            })
        },
    ));
    checks
}
