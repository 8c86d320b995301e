//! Messages sent with `messages/persist` (D-44), as an export carries them: by `tid`, stored
//! once and never changed (a second load keeps the stored one).

use std::collections::BTreeMap;

use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, fits, given, invalid};
use crate::storage::import::{self, MessageRow};

/// A message.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Message {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// Its identifier (absent only for messages stored before tids were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<String>,
    /// When it was sent (UTC text).
    pub created_at: String,
    /// `INFO`, `WARNING` or `ERROR`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// The subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// The body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The recipient user, when not a role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_user: Option<String>,
    /// The recipient role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_role: Option<String>,
    /// The sending application.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_application: Option<String>,
    /// The sending plugin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_plugin: Option<String>,
    /// The user of the token that sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_user: Option<String>,
    /// Free key/value pairs, in the order they were sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    pub parameters: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Checks each message: its tid is declared once and fits a tid, its times are UTC text.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, message) in document.messages.iter().enumerate() {
        let tid = message.tid.as_deref().unwrap_or_default();
        let record = format!("messages[{index}] ({tid})");
        given(
            &record,
            message.id,
            &[("createdAt", Some(&message.created_at))],
        )?;
        if let Some(severity) = &message.severity {
            fits(&record, "severity", severity, &tables::MESSAGE, "severity")?;
        }
        if message.tid.is_some() {
            checks.unique("messages", tid, record)?;
        } else if message.id.is_none() {
            return Err(invalid(record, "tid", "give a tid, or the id of an export"));
        }
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Stores the messages whose tids are not stored.
    pub(super) async fn messages(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for message in &document.messages {
            let parameters = match &message.parameters {
                Some(parameters) => Some(
                    serde_json::to_string(parameters)
                        .map_err(|error| sqlx::Error::Encode(Box::new(error)))?,
                ),
                None => None,
            };
            let row = MessageRow {
                id: message.id,
                tid: message.tid.as_deref(),
                subject: message.subject.as_deref(),
                body: message.body.as_deref(),
                severity: message.severity.as_deref(),
                recipient_user: message.recipient_user.as_deref(),
                recipient_role: message.recipient_role.as_deref(),
                sender_application: message.sender_application.as_deref(),
                sender_plugin: message.sender_plugin.as_deref(),
                parameters,
                created_at: &message.created_at,
                sender_user: message.sender_user.as_deref(),
            };
            import::insert_message(self.transaction, &row).await?;
            self.loaded.records += 1;
            self.progress.advance(1);
        }
        Ok(())
    }
}
