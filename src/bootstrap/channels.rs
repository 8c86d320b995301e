//! Channels (`project`): a tree by parent, with their type, values and asset links. Channels also
//! have operations that write them; declaring them here serves test setups and the demo.

use core_api::tables;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bootstrap, BootstrapError, Checks, Loader, counted, fits, invalid, non_empty};

/// A channel (`project`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Channel {
    /// The identifier.
    pub tid: String,
    /// Its channel type (declared in `channelTypes` or stored).
    #[serde(rename = "type")]
    pub type_: String,
    /// The parent channel, by `tid` (declared before it, or stored); none for a root.
    #[serde(default)]
    pub parent: Option<String>,
    /// The name.
    #[serde(default)]
    pub name: Option<String>,
    /// The order among siblings.
    #[serde(default)]
    pub order_sequence: Option<i64>,
    /// `meta` `htmlIcon`.
    #[serde(default)]
    pub html_icon: Option<String>,
    /// `meta` `icon` (a path).
    #[serde(default)]
    pub icon: Option<String>,
    /// `meta` `allowedFunctions`.
    #[serde(default)]
    pub allowed_functions: Vec<String>,
    /// Attribute values (replaced on a second load).
    #[serde(default)]
    pub values: Vec<AttributeValue>,
    /// Linked assets, by `tid` (replaced on a second load).
    #[serde(default)]
    pub assets: Vec<String>,
}

/// The value of one attribute (a `val`) of a channel or a PEO.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttributeValue {
    /// The attribute definition, by `tid`.
    pub attr: String,
    /// `multiple` or `localized`; none for a single value.
    #[serde(rename = "type", default)]
    pub type_: Option<String>,
    /// Where the value comes from (seen `PRODUCT`).
    #[serde(default)]
    pub origin: Option<String>,
    /// A node path.
    #[serde(default)]
    pub node: Option<String>,
    /// The data type (seen `text`).
    #[serde(default)]
    pub data_type: Option<String>,
    /// The values: one, several with positions (`multiple`) or one per locale (`localized`).
    pub items: Vec<ValueItem>,
}

/// One item of a value.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueItem {
    /// The text.
    pub value: String,
    /// The position (`multiple`).
    #[serde(default)]
    pub pos: Option<i64>,
    /// The locale (`localized`).
    #[serde(default)]
    pub loc: Option<String>,
}

/// Checks each channel: identity, name, and the lengths of its values.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, channel) in document.channels.iter().enumerate() {
        let record = format!("channels[{index}] ({})", channel.tid);
        non_empty(&record, "tid", &channel.tid)?;
        fits(&record, "tid", &channel.tid, &tables::PROJECT, "tid")?;
        if let Some(name) = &channel.name {
            fits(&record, "name", name, &tables::PROJECT, "name")?;
        }
        check_values(&record, &channel.values)?;
        counted(
            &record,
            "assets",
            channel.assets.len(),
            (&tables::PROJECT_LINKS, "itm"),
            0,
        )?;
        checks.unique("channels", &channel.tid, record)?;
    }
    Ok(())
}

/// Checks the values of a channel or a PEO: their texts are `itm` texts of a `val`.
pub(super) fn check_values(record: &str, values: &[AttributeValue]) -> Result<(), BootstrapError> {
    counted(record, "values", values.len(), (&tables::VALS, "val"), 0)?;
    for (index, value) in values.iter().enumerate() {
        let record = format!("{record}.values[{index}]");
        fits(&record, "attr", &value.attr, &tables::VAL, "attr")?;
        counted(
            &record,
            "items",
            value.items.len(),
            (&tables::VAL, "itm"),
            0,
        )?;
        for item in &value.items {
            fits(&record, "items", &item.value, &tables::ITM, "value")?;
        }
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the channels, parents first; a channel's values and asset links are replaced.
    pub(super) async fn channels(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, channel) in document.channels.iter().enumerate() {
            self.progress.advance();
            let record = format!("channels[{index}] ({})", channel.tid);
            self.channel(channel, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        Ok(())
    }

    async fn channel(&mut self, channel: &Channel, record: &str) -> Result<(), BootstrapError> {
        let type_id = self
            .find(
                "SELECT id FROM channel_types WHERE name = $1",
                &channel.type_,
                record,
                "type",
                "a channel type",
            )
            .await?;
        let parent_id = match &channel.parent {
            Some(parent) => Some(
                self.find(
                    "SELECT id FROM channels WHERE tid = $1",
                    parent,
                    record,
                    "parent",
                    "a channel",
                )
                .await?,
            ),
            None => None,
        };
        let functions =
            (!channel.allowed_functions.is_empty()).then(|| channel.allowed_functions.join(","));
        sqlx::query(
            "INSERT INTO channels (tid, parent_id, type_id, order_sequence, name, html_icon, icon, \
             allowed_functions, created_at, modified_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) \
             ON CONFLICT (tid) DO UPDATE SET parent_id = excluded.parent_id, type_id = excluded.type_id, \
             order_sequence = excluded.order_sequence, name = excluded.name, html_icon = excluded.html_icon, \
             icon = excluded.icon, allowed_functions = excluded.allowed_functions, modified_at = excluded.modified_at",
        )
        .bind(&channel.tid)
        .bind(parent_id)
        .bind(type_id)
        .bind(channel.order_sequence)
        .bind(&channel.name)
        .bind(&channel.html_icon)
        .bind(&channel.icon)
        .bind(functions)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let id = self
            .id("SELECT id FROM channels WHERE tid = $1", &channel.tid)
            .await?;
        sqlx::query("DELETE FROM attribute_values WHERE channel_id = $1")
            .bind(id)
            .execute(&mut **self.transaction)
            .await?;
        self.values(Owner::Channel(id), &channel.values, record)
            .await?;
        sqlx::query("DELETE FROM channel_assets WHERE channel_id = $1")
            .bind(id)
            .execute(&mut **self.transaction)
            .await?;
        for asset in &channel.assets {
            let asset_id = self
                .find(
                    "SELECT id FROM assets WHERE tid = $1",
                    asset,
                    record,
                    "assets",
                    "an asset",
                )
                .await?;
            sqlx::query("INSERT INTO channel_assets (channel_id, asset_id) VALUES ($1, $2)")
                .bind(id)
                .bind(asset_id)
                .execute(&mut **self.transaction)
                .await?;
        }
        Ok(())
    }

    pub(super) async fn values(
        &mut self,
        owner: Owner,
        values: &[AttributeValue],
        record: &str,
    ) -> Result<(), BootstrapError> {
        for (index, value) in values.iter().enumerate() {
            let record = format!("{record}.values[{index}]");
            if !matches!(
                value.type_.as_deref(),
                None | Some("multiple" | "localized")
            ) {
                return Err(invalid(record, "type", "must be multiple or localized"));
            }
            let definition = self
                .find(
                    "SELECT id FROM attribute_definitions WHERE tid = $1",
                    &value.attr,
                    &record,
                    "attr",
                    "an attribute definition",
                )
                .await?;
            let (channel, peo) = match owner {
                Owner::Channel(id) => (Some(id), None),
                Owner::Peo(id) => (None, Some(id)),
            };
            for item in &value.items {
                sqlx::query(
                    "INSERT INTO attribute_values (channel_id, peo_id, attribute_definition_id, type, \
                     origin, node, data_type, pos, loc, value) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(channel)
                .bind(peo)
                .bind(definition)
                .bind(&value.type_)
                .bind(&value.origin)
                .bind(&value.node)
                .bind(&value.data_type)
                .bind(item.pos)
                .bind(&item.loc)
                .bind(&item.value)
                .execute(&mut **self.transaction)
                .await?;
            }
        }
        Ok(())
    }
}

/// Who owns attribute values.
#[derive(Clone, Copy)]
pub(super) enum Owner {
    Channel(i64),
    Peo(i64),
}
