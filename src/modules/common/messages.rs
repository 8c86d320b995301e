//! Messages: `messages/persist` (D-34) stores them; operators read them back with
//! `core-server messages list` (D-44, beyond the specification). The recipient rule is the
//! document's (`Message`), checked for every message before any is stored.

use core_api::types::{Message, ResponseType, ResponseTypeStatus};
use core_api_support::fill;
use serde::Serialize;

use super::super::batch::{self, Apply, ItemError, Scope, Tx};
use crate::storage::{
    Database,
    messages::{self as stored, NewMessage},
};

/// The `dataType` of message records.
const DATA_TYPE: &str = "message";

/// `messages/persist`: each message stored in its transaction.
pub(crate) struct Persist;

impl Apply for Persist {
    type Item = Message;

    /// A message's record: its `tid`, when given.
    fn echo(message: &Message) -> ResponseType {
        let mut record = batch::record(DATA_TYPE, "create", ResponseTypeStatus::Error, "");
        record.tid = message.tid.clone();
        record
    }

    /// Stores one message. When both recipients are given the role takes precedence: the
    /// message is stored for the role alone.
    async fn apply<'a>(
        transaction: &'a mut Tx,
        message: &'a Message,
        scope: &'a Scope<'a>,
    ) -> Result<ResponseType, ItemError> {
        let tid = message
            .tid
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        // Given as the document's rule reads it: holding more than spaces and line breaks.
        let role = message
            .recipient_role
            .as_deref()
            .filter(|role| role.contains(|ch| !matches!(ch, ' ' | '\t' | '\n' | '\r')));
        let severity = message.severity.to_string();
        let new = NewMessage {
            tid: &tid,
            subject: message.subject.as_deref(),
            body: message.body.as_deref(),
            severity: &severity,
            recipient_user: if role.is_some() {
                None
            } else {
                message.recipient_user.as_deref()
            },
            recipient_role: role,
            sender_application: message.sender_application.as_deref(),
            sender_plugin: message.sender_plugin.as_deref(),
            parameters: message
                .parameters
                .as_ref()
                .and_then(|parameters| serde_json::to_string(&parameters.0).ok()),
            sender_user: &scope.caller.user,
        };
        let taken = || {
            batch::refuse(
                &Persist::echo(message),
                fill(core_api::messages::MESSAGE_TID_ALREADY_EXISTS, &[&tid]),
            )
        };
        // The unique tid decides, also between racing requests.
        batch::unless_taken(stored::insert(transaction, &new, scope.now).await, taken)?;
        let mut record = batch::record(
            DATA_TYPE,
            "create",
            ResponseTypeStatus::Success,
            core_api::messages::THE_MESSAGE_HAS_BEEN_SENT_SUCCESSFULLY,
        );
        record.tid = Some(tid);
        Ok(record)
    }
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
    /// The user of the token that sent it (recorded by the server, not taken from the message;
    /// none for messages stored before it was recorded).
    pub sender_user: Option<String>,
    /// The sending application (as the message says).
    pub sender_application: Option<String>,
    /// The sending plugin (as the message says).
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
    let rows = stored::list(database, user, role).await?;
    Ok(rows
        .into_iter()
        .map(|row| StoredMessage {
            tid: row.tid,
            created: row.created_at,
            severity: row.severity,
            recipient_user: row.recipient_user,
            recipient_role: row.recipient_role,
            subject: row.subject,
            body: row.body,
            sender_user: row.sender_user,
            sender_application: row.sender_application,
            sender_plugin: row.sender_plugin,
            parameters: row
                .parameters
                .and_then(|text| serde_json::from_str(&text).ok()),
        })
        .collect())
}
