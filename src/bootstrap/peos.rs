//! PEOs (product export options): product, template, nodes, channel links, values and access
//! restrictions. PEO links also have an operation that writes them; declaring them here serves
//! test setups and the demo.

use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Bootstrap, BootstrapError, Checks, Loader,
    channels::{AttributeValue, Owner, check_values},
    counted, fits, given, is_false, non_empty,
};
use crate::storage::import::{self, Lookup, Owned, PeoRow};

/// A product export option.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Peo {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// The product, by `tid` (declared or stored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
    /// The template name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// The default PEO flag.
    #[serde(default, skip_serializing_if = "is_false")]
    pub default: bool,
    /// The name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When it was last changed (UTC text); absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_at: Option<String>,
    /// Node identifiers (`nodes/node`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// Channels it is linked to, by `tid` (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<String>,
    /// Attribute values (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<AttributeValue>,
    /// Roles it is restricted to (none: everybody).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restricted_to: Vec<String>,
}

/// Checks each PEO: identity, name, nodes, values and restrictions.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, peo) in document.peos.iter().enumerate() {
        let record = format!("peos[{index}] ({})", peo.tid);
        non_empty(&record, "tid", &peo.tid)?;
        fits(&record, "tid", &peo.tid, &tables::PEO, "tid")?;
        for (field, value) in [("name", &peo.name), ("template", &peo.template)] {
            if let Some(value) = value {
                fits(&record, field, value, &tables::PEO, field)?;
            }
        }
        for node in &peo.nodes {
            fits(&record, "nodes", node, &tables::PEO_NODES, "node")?;
        }
        counted(
            &record,
            "nodes",
            peo.nodes.len(),
            (&tables::PEO_NODES, "node"),
            0,
        )?;
        check_values(&record, &peo.values)?;
        given(
            &record,
            peo.id,
            &[
                ("createdAt", peo.created_at.as_deref()),
                ("modifiedAt", peo.modified_at.as_deref()),
            ],
        )?;
        checks.unique("peos", &peo.tid, record.clone())?;
        checks.known_roles(&record, &peo.restricted_to)?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the PEOs; a PEO's nodes, channel links and values are replaced.
    pub(super) async fn peos(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, peo) in document.peos.iter().enumerate() {
            self.progress.advance(1);
            let record = format!("peos[{index}] ({})", peo.tid);
            self.peo(peo, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        Ok(())
    }

    async fn peo(&mut self, peo: &Peo, record: &str) -> Result<(), BootstrapError> {
        let product = match &peo.product {
            Some(product) => Some(
                self.find(Lookup::Product, product, record, "product", "a product")
                    .await?,
            ),
            None => None,
        };
        let row = PeoRow {
            id: peo.id,
            tid: &peo.tid,
            product_id: product,
            template: peo.template.as_deref(),
            is_default: peo.default,
            name: peo.name.as_deref(),
            created_at: peo.created_at.as_deref().unwrap_or(&self.now),
            modified_at: peo.modified_at.as_deref().unwrap_or(&self.now),
        };
        let id = import::upsert_peo(self.transaction, &row).await?;
        self.loaded.records += 1;
        for owned in [Owned::PeoNodes, Owned::PeoChannels, Owned::PeoValues] {
            import::clear(self.transaction, owned, id).await?;
        }
        for (position, node) in peo.nodes.iter().enumerate() {
            import::insert_peo_node(self.transaction, id, position as i64, node).await?;
        }
        for channel in &peo.channels {
            let channel_id = self
                .find(Lookup::Channel, channel, record, "channels", "a channel")
                .await?;
            import::insert_peo_channel(self.transaction, id, channel_id).await?;
        }
        self.values(Owner::Peo(id), &peo.values, record).await?;
        self.restrict("peo", id, &peo.restricted_to).await
    }
}
