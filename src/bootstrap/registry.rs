//! The registries the operations consult: components and their statuses, attribute definitions
//! (also the link types of products), channel types, and the attributes registered for channels.

use core_api::tables;
use core_api_support::Kind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Bootstrap, BootstrapError, Checks, Loader, fits, given, identifier, invalid, non_empty,
};
use crate::storage::import::{self, DefinitionRow};

/// An attribute definition.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttributeDefinition {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier (a node attribute's `key`, a product link type).
    pub tid: String,
    /// One of `text`, `date`, `number`, `boolean`, `ref`, `table`.
    #[serde(rename = "type")]
    pub type_: String,
    /// As a product link type: how many assets a product may link with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cardinality: Option<i64>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}
/// The attribute definition types, as the document lists them (`AttributeDefinitionsQuery.types`).
fn attribute_types() -> &'static [&'static str] {
    match tables::ATTRIBUTE_DEFINITIONS_QUERY.kind {
        Kind::Object(fields) => fields
            .iter()
            .find(|field| field.name == "types")
            .map_or(&[], |field| field.allowed),
        _ => &[],
    }
}

/// The statuses a component may have, as the document lists them (`Components`).
fn component_statuses() -> &'static [&'static str] {
    match &tables::COMPONENTS.kind {
        Kind::Map(field) => field.allowed,
        _ => &[],
    }
}

/// Checks the components, attribute definitions, channel types and channel attributes.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (name, status) in &document.components {
        let record = format!("components ({name})");
        identifier(&record, "name", name)?;
        if !component_statuses().contains(&status.as_str()) {
            return Err(invalid(
                record,
                "status",
                format!("must be one of {}", component_statuses().join(", ")),
            ));
        }
    }
    for (index, definition) in document.attribute_definitions.iter().enumerate() {
        let record = format!("attributeDefinitions[{index}] ({})", definition.tid);
        if !attribute_types().contains(&definition.type_.as_str()) {
            return Err(invalid(
                record,
                "type",
                format!("must be one of {}", attribute_types().join(", ")),
            ));
        }
        if definition
            .cardinality
            .is_some_and(|cardinality| cardinality < 1)
        {
            return Err(invalid(record, "cardinality", "must be at least 1"));
        }
        given(
            &record,
            definition.id,
            &[("createdAt", definition.created_at.as_deref())],
        )?;
        non_empty(&record, "tid", &definition.tid)?;
        fits(&record, "tid", &definition.tid, &tables::ATTR, "key")?;
        checks.unique("attributeDefinitions", &definition.tid, record)?;
    }
    for (index, channel_type) in document.channel_types.iter().enumerate() {
        let record = format!("channelTypes[{index}]");
        given(&record, channel_type.id(), &[])?;
        fits(
            &record,
            "name",
            channel_type.name(),
            &tables::PROJECT,
            "type",
        )?;
    }
    for (index, name) in document.channel_attributes.iter().enumerate() {
        if !checks.definitions.contains(name.as_str()) {
            return Err(invalid(
                format!("channelAttributes[{index}]"),
                "tid",
                format!("'{name}' is not an attribute definition of the document"),
            ));
        }
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the components, attribute definitions, channel types and channel attributes.
    pub(super) async fn registry(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (name, status) in &document.components {
            import::upsert_component(self.transaction, name, status).await?;
            self.loaded.records += 1;
        }
        for definition in &document.attribute_definitions {
            let row = DefinitionRow {
                id: definition.id,
                tid: &definition.tid,
                type_: &definition.type_,
                cardinality: definition.cardinality,
                created_at: definition.created_at.as_deref().unwrap_or(&self.now),
            };
            import::upsert_definition(self.transaction, &row).await?;
            self.loaded.records += 1;
        }
        for channel_type in &document.channel_types {
            import::insert_channel_type(self.transaction, channel_type.id(), channel_type.name())
                .await?;
            self.loaded.records += 1;
        }
        for tid in &document.channel_attributes {
            import::insert_channel_attribute(self.transaction, tid).await?;
            self.loaded.records += 1;
        }
        Ok(())
    }
}
