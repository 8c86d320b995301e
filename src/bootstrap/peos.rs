//! PEOs (product export options): product, template, nodes, channel links, values and access
//! restrictions. PEO links also have an operation that writes them; declaring them here serves
//! test setups and the demo.

use core_api::tables;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    Bootstrap, BootstrapError, Checks, Loader,
    channels::{AttributeValue, Owner, check_values},
    counted, fits, non_empty,
};

/// A product export option.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Peo {
    /// The identifier.
    pub tid: String,
    /// The product, by `tid` (declared or stored).
    #[serde(default)]
    pub product: Option<String>,
    /// The template name.
    #[serde(default)]
    pub template: Option<String>,
    /// The default PEO flag.
    #[serde(default)]
    pub default: bool,
    /// The name.
    #[serde(default)]
    pub name: Option<String>,
    /// Node identifiers (`nodes/node`), in order.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Channels it is linked to, by `tid` (replaced on a second load).
    #[serde(default)]
    pub channels: Vec<String>,
    /// Attribute values (replaced on a second load).
    #[serde(default)]
    pub values: Vec<AttributeValue>,
    /// Roles it is restricted to (none: everybody).
    #[serde(default)]
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
        checks.unique("peos", &peo.tid, record.clone())?;
        checks.known_roles(&record, &peo.restricted_to)?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the PEOs; a PEO's nodes, channel links and values are replaced.
    pub(super) async fn peos(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, peo) in document.peos.iter().enumerate() {
            self.progress.advance();
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
                self.find(
                    "SELECT id FROM products WHERE tid = $1",
                    product,
                    record,
                    "product",
                    "a product",
                )
                .await?,
            ),
            None => None,
        };
        sqlx::query(
            "INSERT INTO peos (tid, product_id, template, is_default, name, created_at, modified_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (tid) DO UPDATE SET \
             product_id = excluded.product_id, template = excluded.template, \
             is_default = excluded.is_default, name = excluded.name, modified_at = excluded.modified_at",
        )
        .bind(&peo.tid)
        .bind(product)
        .bind(&peo.template)
        .bind(peo.default)
        .bind(&peo.name)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let id = self
            .id("SELECT id FROM peos WHERE tid = $1", &peo.tid)
            .await?;
        for statement in [
            "DELETE FROM peo_nodes WHERE peo_id = $1",
            "DELETE FROM peo_channels WHERE peo_id = $1",
            "DELETE FROM attribute_values WHERE peo_id = $1",
        ] {
            sqlx::query(statement)
                .bind(id)
                .execute(&mut **self.transaction)
                .await?;
        }
        for (position, node) in peo.nodes.iter().enumerate() {
            sqlx::query("INSERT INTO peo_nodes (peo_id, position, node) VALUES ($1, $2, $3)")
                .bind(id)
                .bind(position as i64)
                .bind(node)
                .execute(&mut **self.transaction)
                .await?;
        }
        for channel in &peo.channels {
            let channel_id = self
                .find(
                    "SELECT id FROM channels WHERE tid = $1",
                    channel,
                    record,
                    "channels",
                    "a channel",
                )
                .await?;
            sqlx::query("INSERT INTO peo_channels (peo_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING")
                .bind(id)
                .bind(channel_id)
                .execute(&mut **self.transaction)
                .await?;
        }
        self.values(Owner::Peo(id), &peo.values, record).await?;
        self.restrict("peo", id, &peo.restricted_to).await
    }
}
