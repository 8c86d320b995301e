//! The SQL of components.

use sqlx::AnyPool;

/// The components loaded by the operator, name and status, by name.
pub(crate) async fn all(pool: &AnyPool) -> Result<Vec<(String, String)>, sqlx::Error> {
    sqlx::query_as(sql!("SELECT name, status FROM components ORDER BY name"))
        .fetch_all(pool)
        .await
}
