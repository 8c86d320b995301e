//! The SQL of components.

use super::{Database, read};

/// The components loaded by the operator, name and status, by name.
pub(crate) async fn all(database: &Database) -> Result<Vec<(String, String)>, sqlx::Error> {
    read::all(database, || {
        sqlx::query_as(sql!("SELECT name, status FROM components ORDER BY name"))
    })
    .await
}
