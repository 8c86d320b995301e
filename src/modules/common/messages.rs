//! Messages: `messages/persist` (D-34) stores them; operators read them back with
//! `core-server messages list` (D-44, beyond the specification).

use core_api::types::{Message, ResponseType, ResponseTypeStatus};
use serde::Serialize;
use sqlx::Row;

use super::super::batch::{self, ItemError, Tx};
use crate::{error::ApiError, storage::Database};

/// The `dataType` of message records.
const DATA_TYPE: &str = "message";

/// Refuses the request when a message names neither recipient: one ERROR record per such message,
/// whose `path` names it in the request (`messages[2]`), and nothing is stored.
pub(crate) fn check(messages: &[Message]) -> Result<(), ApiError> {
    let given =
        |value: &Option<String>| value.as_deref().is_some_and(|text| !text.trim().is_empty());
    let refused: Vec<ResponseType> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| !given(&message.recipient_user) && !given(&message.recipient_role))
        .map(|(index, message)| {
            let mut record = echo(message);
            record.description =
                Some("Either recipientUser or recipientRole must be given".to_string());
            record.path = Some(format!("messages[{}]", index + 1));
            record
        })
        .collect();
    if refused.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Items(refused))
    }
}

/// The record that echoes a message: its `tid`, when given.
pub(crate) fn echo(message: &Message) -> ResponseType {
    let mut record = batch::record(DATA_TYPE, "create", ResponseTypeStatus::Error, "");
    record.tid = message.tid.clone();
    record
}

/// Stores one message in its transaction. When both recipients are given the role takes
/// precedence: the message is stored for the role alone.
pub(crate) async fn persist(
    transaction: &mut Tx,
    message: &Message,
    now: &str,
) -> Result<ResponseType, ItemError> {
    let tid = message
        .tid
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let role = message
        .recipient_role
        .as_deref()
        .filter(|role| !role.trim().is_empty());
    let user = if role.is_some() {
        None
    } else {
        message.recipient_user.as_deref()
    };
    let taken = || batch::refuse(&echo(message), format!("Message '{tid}' already exists"));
    let parameters = message
        .parameters
        .as_ref()
        .and_then(|parameters| serde_json::to_string(&parameters.0).ok());
    let inserted = sqlx::query(
        "INSERT INTO messages (tid, subject, body, severity, recipient_user, recipient_role, \
         sender_application, sender_plugin, parameters, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&tid)
    .bind(message.subject.as_deref())
    .bind(message.body.as_deref())
    .bind(message.severity.to_string())
    .bind(user)
    .bind(role)
    .bind(message.sender_application.as_deref())
    .bind(message.sender_plugin.as_deref())
    .bind(parameters)
    .bind(now)
    .execute(&mut **transaction)
    .await;
    // The unique tid decides, also between racing requests.
    batch::unless_taken(inserted, taken)?;
    let mut record = batch::record(
        DATA_TYPE,
        "create",
        ResponseTypeStatus::Success,
        "The message has been sent successfully",
    );
    record.tid = Some(tid);
    Ok(record)
}

/// A stored message, as `core-server messages list` prints it (one JSON object per line).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredMessage {
    /// The message's identifier.
    pub tid: Option<String>,
    /// When it was stored (ISO 8601 UTC).
    pub created: String,
    /// `INFO`, `WARNING` or `ERROR`.
    pub severity: Option<String>,
    /// The recipient user, when the message is for a user.
    pub recipient_user: Option<String>,
    /// The recipient role, when the message is for a role.
    pub recipient_role: Option<String>,
    /// The subject.
    pub subject: Option<String>,
    /// The body.
    pub body: Option<String>,
    /// The sending application.
    pub sender_application: Option<String>,
    /// The sending plugin.
    pub sender_plugin: Option<String>,
    /// Free key/value pairs.
    pub parameters: Option<serde_json::Value>,
}

/// The stored messages, oldest first, optionally only those for one user or one role.
pub async fn list(
    database: &Database,
    user: Option<&str>,
    role: Option<&str>,
) -> Result<Vec<StoredMessage>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT tid, created_at, severity, recipient_user, recipient_role, subject, body, \
         sender_application, sender_plugin, parameters FROM messages \
         WHERE (CAST($1 AS TEXT) IS NULL OR recipient_user = $1) \
         AND (CAST($2 AS TEXT) IS NULL OR recipient_role = $2) \
         ORDER BY id",
    )
    .bind(user)
    .bind(role)
    .fetch_all(database.pool())
    .await?;
    let mut messages = Vec::with_capacity(rows.len());
    for row in rows {
        let parameters: Option<String> = row.try_get("parameters")?;
        messages.push(StoredMessage {
            tid: row.try_get("tid")?,
            created: row.try_get("created_at")?,
            severity: row.try_get("severity")?,
            recipient_user: row.try_get("recipient_user")?,
            recipient_role: row.try_get("recipient_role")?,
            subject: row.try_get("subject")?,
            body: row.try_get("body")?,
            sender_application: row.try_get("sender_application")?,
            sender_plugin: row.try_get("sender_plugin")?,
            parameters: parameters.and_then(|text| serde_json::from_str(&text).ok()),
        });
    }
    Ok(messages)
}
