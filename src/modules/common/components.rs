//! Components: `components/retrieve` (D-35), the components loaded by the operator.

use core_api::types::Components;
use sqlx::Row;

use crate::{error::ApiError, storage::Database};

/// The map of component name to status; 404 when no component is configured.
pub(crate) async fn retrieve(database: &Database) -> Result<Components, ApiError> {
    let rows = sqlx::query("SELECT name, status FROM components ORDER BY name")
        .fetch_all(database.pool())
        .await?;
    if rows.is_empty() {
        return Err(ApiError::NotFound("no component is configured".to_string()));
    }
    let mut components = std::collections::BTreeMap::new();
    for row in rows {
        components.insert(row.try_get("name")?, row.try_get("status")?);
    }
    Ok(Components(components))
}
