//! The SQL of messages: storing one, and listing them for operators.

use sqlx::AnyConnection;

use super::{Database, read};

/// A message to store.
#[derive(Debug)]
pub(crate) struct NewMessage<'a> {
    /// Its tid (given or generated).
    pub(crate) tid: &'a str,
    /// The subject.
    pub(crate) subject: Option<&'a str>,
    /// The body.
    pub(crate) body: Option<&'a str>,
    /// `INFO`, `WARNING` or `ERROR`.
    pub(crate) severity: &'a str,
    /// The recipient user, when not a role.
    pub(crate) recipient_user: Option<&'a str>,
    /// The recipient role.
    pub(crate) recipient_role: Option<&'a str>,
    /// The sending application.
    pub(crate) sender_application: Option<&'a str>,
    /// The sending plugin.
    pub(crate) sender_plugin: Option<&'a str>,
    /// Free key/value pairs, as a JSON object.
    pub(crate) parameters: Option<String>,
    /// The user of the token that sent it.
    pub(crate) sender_user: &'a str,
}

/// A stored message, as the list reads it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Stored {
    /// Its tid.
    pub(crate) tid: Option<String>,
    /// When it was stored.
    pub(crate) created_at: String,
    /// Its severity.
    pub(crate) severity: Option<String>,
    /// The recipient user.
    pub(crate) recipient_user: Option<String>,
    /// The recipient role.
    pub(crate) recipient_role: Option<String>,
    /// The subject.
    pub(crate) subject: Option<String>,
    /// The body.
    pub(crate) body: Option<String>,
    /// The sending application.
    pub(crate) sender_application: Option<String>,
    /// The sending plugin.
    pub(crate) sender_plugin: Option<String>,
    /// Free key/value pairs, as a JSON object.
    pub(crate) parameters: Option<String>,
    /// The user of the token that sent it (none for messages stored before it was recorded).
    pub(crate) sender_user: Option<String>,
}

/// Stores a message; a tid stored already is a uniqueness violation.
pub(crate) async fn insert(
    connection: &mut AnyConnection,
    message: &NewMessage<'_>,
    now: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO messages (tid, subject, body, severity, recipient_user, recipient_role, \
         sender_application, sender_plugin, parameters, created_at, sender_user) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    ))
    .bind(message.tid)
    .bind(message.subject)
    .bind(message.body)
    .bind(message.severity)
    .bind(message.recipient_user)
    .bind(message.recipient_role)
    .bind(message.sender_application)
    .bind(message.sender_plugin)
    .bind(message.parameters.as_deref())
    .bind(now)
    .bind(message.sender_user)
    .execute(connection)
    .await?;
    Ok(())
}

/// The stored messages, oldest first, optionally only those for one user or one role.
pub(crate) async fn list(
    database: &Database,
    user: Option<&str>,
    role: Option<&str>,
) -> Result<Vec<Stored>, sqlx::Error> {
    read::all(database, || {
        sqlx::query_as(sql!(
            "SELECT tid, created_at, severity, recipient_user, recipient_role, subject, body, \
             sender_application, sender_plugin, parameters, sender_user FROM messages \
             WHERE (CAST($1 AS TEXT) IS NULL OR recipient_user = $1) \
             AND (CAST($2 AS TEXT) IS NULL OR recipient_role = $2) \
             ORDER BY id"
        ))
        .bind(user)
        .bind(role)
    })
    .await
}
