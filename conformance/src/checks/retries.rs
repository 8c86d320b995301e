//! Safe retries and the deployment's bounds: for each batch operation, an `Idempotency-Key`
//! replay and the key reused for another request (D-14); and 429 with `Retry-After` beyond the
//! caller's rate limit (D-37), when the deployment sets one.

use std::{sync::Arc, time::Duration};

use core_api::operations::LOCALES_RETRIEVE;
use core_api_support::Operation;
use serde_json::{Value, json};

use super::{
    error_body, preferred,
    requests::{self, Request, good},
};
use crate::{Answer, Check, Checked, Fail, Kind, Target, judge};

/// The request header.
const KEY: &str = "Idempotency-Key";

/// The checks of a batch operation's `Idempotency-Key` (none for other operations).
pub fn idempotency(operation: &'static Operation) -> Vec<Check> {
    if operation.batch.is_none() {
        return Vec::new();
    }
    vec![
        Check::new(
            operation,
            Kind::Retries,
            "an Idempotency-Key retry answers the first answer byte for byte, with Idempotent-Replayed",
            move |target| Box::pin(replay(target, operation)),
        ),
        Check::new(
            operation,
            Kind::Retries,
            "an Idempotency-Key sent again for another request is 422 (code 1018)",
            move |target| Box::pin(reused(target, operation)),
        ),
    ]
}

/// Sends the request with a key, in the operation's preferred representation.
async fn keyed(
    target: &Target,
    operation: &'static Operation,
    body: &Value,
    key: &str,
) -> Result<Answer, Fail> {
    target
        .call(operation)
        .json(body)
        .accept(preferred(operation))
        .header(KEY, key)
        .send()
        .await
}

fn body(request: &Request) -> Result<&Value, Fail> {
    request
        .body
        .as_ref()
        .ok_or_else(|| Fail::because("a batch operation's request has a body"))
}

fn replayed(answer: &Answer) -> bool {
    answer
        .headers
        .get("idempotent-replayed")
        .is_some_and(|value| value == "true")
}

async fn replay(target: Arc<Target>, operation: &'static Operation) -> Checked {
    let request = good(&target, operation).await?;
    let key = target.unique();
    let outcome = async {
        let first = keyed(&target, operation, body(&request)?, &key).await?;
        first.status(200)?;
        if replayed(&first) {
            return Err(Fail::because("the first answer says Idempotent-Replayed"));
        }
        let again = keyed(&target, operation, body(&request)?, &key).await?;
        again.status(200)?;
        if !replayed(&again) {
            return Err(Fail::because(
                "the retry does not say Idempotent-Replayed: true",
            ));
        }
        if again.bytes != first.bytes {
            return Err(Fail::because(format!(
                "the retry's answer differs from the first: {} against {}",
                again.excerpt(),
                first.excerpt()
            )));
        }
        Ok(())
    }
    .await;
    requests::clean(&target, &request).await;
    outcome
}

/// The key of one batch, sent again with the well-formed request of another batch operation:
/// 422 with code 1018, and that request is not applied.
async fn reused(target: Arc<Target>, operation: &'static Operation) -> Checked {
    let another = core_api::operations::ALL
        .iter()
        .copied()
        .find(|other| other.batch.is_some() && other.id != operation.id)
        .ok_or_else(|| Fail::because("the document has one batch operation only"))?;
    let request = good(&target, operation).await?;
    let other = good(&target, another).await?;
    let key = target.unique();
    let outcome = async {
        keyed(&target, operation, body(&request)?, &key)
            .await?
            .status(200)?;
        let answer = keyed(&target, another, body(&other)?, &key).await?;
        let refused = error_body(another, &answer, 422)?;
        match judge::issue_item(&refused, "code") {
            Some("1018") => Ok(()),
            code => Err(Fail::because(format!(
                "the issue code is {code:?}, not 1018"
            ))),
        }
    }
    .await;
    requests::clean(&target, &other).await;
    requests::clean(&target, &request).await;
    outcome
}

/// 429 with `Retry-After` and the documented body once a caller goes beyond the rate limit.
pub fn rate_limit() -> Check {
    Check::new(
        &LOCALES_RETRIEVE,
        Kind::Limits,
        "429 with Retry-After beyond the caller's rate limit, then answered again",
        |target| Box::pin(limited(target)),
    )
}

/// The most requests the check sends to reach the limit.
const FLOOD: usize = 20_000;

/// Requests sent at once while flooding.
const WAVE: usize = 64;

async fn limited(target: Arc<Target>) -> Checked {
    target.rate_limited()?;
    let body = json!({"mode": "ALL"});
    let mut sent = 0;
    let refused = loop {
        if sent >= FLOOD {
            return Err(Fail::because(format!("no 429 after {FLOOD} requests")));
        }
        let wave = (0..WAVE).map(|_| async {
            target
                .call(&LOCALES_RETRIEVE)
                .json(&body)
                .accept_raw("application/json")
                .send_once()
                .await
        });
        sent += WAVE;
        let answers = futures_util::future::join_all(wave).await;
        if let Some(answer) = answers
            .into_iter()
            .filter_map(Result::ok)
            .find(|answer| answer.status == 429)
        {
            break answer;
        }
    };
    let retry = refused
        .headers
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok())
        .filter(|seconds| *seconds >= 1)
        .ok_or_else(|| Fail::because("the 429 has no Retry-After of whole seconds"))?;
    error_body(&LOCALES_RETRIEVE, &refused, 429)?;
    // Waited out, the caller is answered again (and the checks after this one are not held up).
    tokio::time::sleep(Duration::from_secs(retry.min(10))).await;
    target
        .call(&LOCALES_RETRIEVE)
        .json(&body)
        .send()
        .await?
        .status(200)?;
    Ok(())
}
