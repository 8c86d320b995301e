//! Safe retries (D-14): the client sends an `Idempotency-Key` with every batch call that has none
//! (a new UUID, kept for that call's retries), and sends a call again, the same key included,
//! when the connection is lost before an answer, or when the server answers 429 or 503 with
//! `Retry-After` (waiting that long, at most [`LONGEST_WAIT`]), up to [`TRIES`] times. A batch
//! that was stored before its answer was lost is answered again from the server's record of the
//! key, never applied twice; every other operation reads.

use std::time::Duration;

use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};

use crate::Client;

/// The batch operations (progenitor's names): the ones that get a key.
const BATCH_OPERATIONS: &[&str] = &[{batch_operations}];

/// How many times a call is sent at most.
pub const TRIES: u32 = 4;

/// The longest wait between two tries.
pub const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// The wait after a lost connection, doubled on each try.
const FIRST_WAIT: Duration = Duration::from_millis(200);

impl ClientHooks<()> for Client {
    async fn exec(
        &self,
        mut request: reqwest::Request,
        info: &OperationInfo,
    ) -> reqwest::Result<reqwest::Response> {
        if BATCH_OPERATIONS.contains(&info.operation_id)
            && !request.headers().contains_key("idempotency-key")
            && let Ok(key) =
                reqwest::header::HeaderValue::from_str(&uuid::Uuid::new_v4().to_string())
        {
            request.headers_mut().insert("idempotency-key", key);
        }
        let mut wait = FIRST_WAIT;
        for _ in 1..TRIES {
            // A body that cannot be sent twice (a stream) is sent once.
            let Some(copy) = request.try_clone() else {
                break;
            };
            match self.client().execute(copy).await {
                Ok(response) => match retry_after(&response) {
                    Some(after) => tokio::time::sleep(after.min(LONGEST_WAIT)).await,
                    None => return Ok(response),
                },
                Err(error) if lost(&error) => {
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(LONGEST_WAIT);
                }
                Err(error) => return Err(error),
            }
        }
        self.client().execute(request).await
    }
}

/// The wait a 429 or 503 asks for with `Retry-After` (whole seconds); none for other answers.
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    if !matches!(response.status().as_u16(), 429 | 503) {
        return None;
    }
    let seconds = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// Whether the call failed for want of an answer (no connection, a connection lost, no answer in
/// time) rather than for what it sent.
fn lost(error: &reqwest::Error) -> bool {
    error.is_connect() || error.is_timeout() || error.is_request()
}
