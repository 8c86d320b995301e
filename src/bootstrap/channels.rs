//! Channels (`project`): a tree by parent, with their type, values and asset links. Channels also
//! have operations that write them; declaring them here serves test setups and the demo.

use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, counted, fits, given, invalid, non_empty};
use crate::storage::import::{self, ChannelRow, Lookup, Owned, ValueRow};

/// A channel (`project`).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Channel {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The identifier.
    pub tid: String,
    /// Its channel type (declared in `channelTypes` or stored).
    #[serde(rename = "type")]
    pub type_: String,
    /// The parent channel, by `tid` (declared in the document, or stored); none for a root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The order among siblings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_sequence: Option<i64>,
    /// `meta` `htmlIcon`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html_icon: Option<String>,
    /// `meta` `icon` (a path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// `meta` `allowedFunctions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_functions: Vec<String>,
    /// When it was created (UTC text), kept when new; absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// When it was last changed (UTC text); absent: the time of the import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_at: Option<String>,
    /// Attribute values (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<AttributeValue>,
    /// Linked assets, by `tid` (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assets: Vec<String>,
}

/// The value of one attribute (a `val`) of a channel or a PEO.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttributeValue {
    /// The attribute definition, by `tid`.
    pub attr: String,
    /// `multiple` or `localized`; none for a single value.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Where the value comes from (seen `PRODUCT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// A node path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The data type (seen `text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_type: Option<String>,
    /// The values: one, several with positions (`multiple`) or one per locale (`localized`).
    pub items: Vec<ValueItem>,
}

/// One item of a value.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueItem {
    /// The id it keeps (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The text.
    pub value: String,
    /// The position (`multiple`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pos: Option<i64>,
    /// The locale (`localized`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
        given(
            &record,
            channel.id,
            &[
                ("createdAt", channel.created_at.as_deref()),
                ("modifiedAt", channel.modified_at.as_deref()),
            ],
        )?;
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
    /// Upserts the channels, parents first (whatever their place in the document); a channel's
    /// values and asset links are replaced.
    pub(super) async fn channels(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for index in parents_first(&document.channels) {
            let channel = &document.channels[index];
            self.progress.advance(1);
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
                Lookup::ChannelType,
                &channel.type_,
                record,
                "type",
                "a channel type",
            )
            .await?;
        let parent_id = match &channel.parent {
            Some(parent) => Some(
                self.find(Lookup::Channel, parent, record, "parent", "a channel")
                    .await?,
            ),
            None => None,
        };
        let functions =
            (!channel.allowed_functions.is_empty()).then(|| channel.allowed_functions.join(","));
        let row = ChannelRow {
            id: channel.id,
            created_at: channel.created_at.as_deref().unwrap_or(&self.now),
            modified_at: channel.modified_at.as_deref().unwrap_or(&self.now),
            tid: &channel.tid,
            parent_id,
            type_id,
            order_sequence: channel.order_sequence,
            name: channel.name.as_deref(),
            html_icon: channel.html_icon.as_deref(),
            icon: channel.icon.as_deref(),
            allowed_functions: functions.as_deref(),
        };
        import::upsert_channel(self.transaction, &row).await?;
        self.loaded.records += 1;
        let id = self.id(Lookup::Channel, &channel.tid).await?;
        import::clear(self.transaction, Owned::ChannelValues, id).await?;
        self.values(Owner::Channel(id), &channel.values, record)
            .await?;
        import::clear(self.transaction, Owned::ChannelAssets, id).await?;
        for asset in &channel.assets {
            let asset_id = self
                .find(Lookup::Asset, asset, record, "assets", "an asset")
                .await?;
            import::insert_channel_asset(self.transaction, id, asset_id).await?;
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
                    Lookup::AttributeDefinition,
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
                let row = ValueRow {
                    id: item.id,
                    channel_id: channel,
                    peo_id: peo,
                    definition_id: definition,
                    type_: value.type_.as_deref(),
                    origin: value.origin.as_deref(),
                    node: value.node.as_deref(),
                    data_type: value.data_type.as_deref(),
                    pos: item.pos,
                    loc: item.loc.as_deref(),
                    value: &item.value,
                };
                import::insert_value(self.transaction, &row).await?;
            }
        }
        Ok(())
    }
}

/// The indexes of the channels, each after its parent when the document declares it.
fn parents_first(channels: &[Channel]) -> Vec<usize> {
    let declared: std::collections::HashMap<&str, usize> = channels
        .iter()
        .enumerate()
        .map(|(index, channel)| (channel.tid.as_str(), index))
        .collect();
    super::fields::parents_first(channels.len(), |index| {
        let parent = channels[index].parent.as_deref()?;
        declared.get(parent).copied()
    })
}

/// Who owns attribute values.
#[derive(Clone, Copy)]
pub(super) enum Owner {
    Channel(i64),
    Peo(i64),
}
