//! Components: `components/retrieve` (D-35), the components loaded by the operator.

use core_api::types::{Components, ComponentsValue};

use crate::{
    error::ApiError,
    storage::{Database, components},
};

/// The map of component name to status; 404 when no component is configured.
pub(crate) async fn retrieve(database: &Database) -> Result<Components, ApiError> {
    let rows = components::all(database).await?;
    if rows.is_empty() {
        return Err(ApiError::NotFound("no component is configured".to_string()));
    }
    let mut map = std::collections::BTreeMap::new();
    for (name, status) in rows {
        let status: ComponentsValue = status.parse().map_err(|_| {
            ApiError::Internal(format!(
                "the stored status '{status}' of component '{name}'"
            ))
        })?;
        map.insert(name, status);
    }
    Ok(Components(map))
}
