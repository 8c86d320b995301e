//! The catalogue part of a bootstrap document: channels with their values and asset links, PEOs,
//! classifications with nodes and node attributes, and briefing layouts. Channels, PEO links and
//! classifications also have operations that write them; declaring them here serves test setups
//! and the demo. Each is matched by its identity (`tid`; a node by its path, a briefing by channel,
//! module configuration and locale), so a second load updates it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use sqlx::Row;

use super::{BootstrapError, Loader, invalid};

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

/// A classification with its nodes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Classification {
    /// The identifier, which is also its name and its root node's identifier (D-23).
    pub tid: String,
    /// Localized names, by locale tid; the key `""` is the default name (replaced on a second load).
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Its nodes, parents before children: the root is `/<tid>` (replaced names, upserted nodes).
    #[serde(default)]
    pub nodes: Vec<ClassificationNode>,
}

/// A classification node.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClassificationNode {
    /// `/`-separated, starting with `/<classification tid>`; the parent is the path without its
    /// last segment, and the last segment is the node's identifier.
    pub path: String,
    /// Localized names, by locale tid; the key `""` is the default name.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// Its attributes, by attribute definition.
    #[serde(default)]
    pub attributes: Vec<NodeAttribute>,
}

/// An attribute of a node.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeAttribute {
    /// The attribute definition, by `tid`.
    pub key: String,
    /// Seen `p`.
    #[serde(default)]
    pub level: Option<String>,
    /// `visible` or `not_visible`.
    #[serde(default)]
    pub inheritance: Option<String>,
    /// Seen `optional`.
    #[serde(default)]
    pub restriction: Option<String>,
    /// Whether values are per locale.
    #[serde(default)]
    pub localized: bool,
    /// `domainVals@allowNewValue`.
    #[serde(default)]
    pub allow_new_value: Option<bool>,
    /// `domainVals@sortDirection` (seen `MANUAL`).
    #[serde(default)]
    pub sort_direction: Option<String>,
    /// `domainVals@mode` (seen `FULL`).
    #[serde(default)]
    pub mode: Option<String>,
    /// The default domain value, by its `tid`.
    #[serde(default)]
    pub default_value: Option<String>,
    /// Domain values, in order (replaced on a second load).
    #[serde(default)]
    pub domain_values: Vec<DomainValue>,
}

/// A domain value of a node attribute.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DomainValue {
    /// The identifier.
    pub tid: String,
    /// Its texts, by locale tid.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
}

/// The briefing layout of a channel for a module configuration and a locale.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Briefing {
    /// The channel, by `tid`.
    pub channel: String,
    /// The briefing module configuration (`briefingModuleCfgTid`).
    pub module_cfg: String,
    /// The locale (`briefingInfo.locale`).
    pub locale: String,
    /// The layout's `id`.
    pub layout: String,
    /// The layout's `name`.
    #[serde(default)]
    pub name: Option<String>,
    /// Layout attributes by identifier (`width`, `height`).
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    /// The boxes, in order (replaced on a second load).
    #[serde(default)]
    pub boxes: Vec<BriefingBox>,
}

/// A box of a briefing layout.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefingBox {
    /// The box's `id`.
    pub id: String,
    /// The box's `layer`.
    #[serde(default)]
    pub layer: Option<String>,
    /// The box's `name`.
    #[serde(default)]
    pub name: Option<String>,
    /// The box's `type`.
    #[serde(rename = "type", default)]
    pub type_: Option<String>,
    /// Box attributes by identifier (`width`, `xpos`, `content_width`, …).
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    /// Its images, in order.
    #[serde(default)]
    pub images: Vec<BriefingImage>,
}

/// An image of a briefing box.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefingImage {
    /// The image's `type` (seen `origin`).
    #[serde(rename = "type", default)]
    pub type_: Option<String>,
    /// Image attributes by identifier (`image_path`, `image_width`, …).
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
}

impl Loader<'_, '_> {
    /// The id of a record by its identity, or an error naming the record and the field.
    async fn find(
        &mut self,
        query: &'static str,
        key: &str,
        record: &str,
        field: &str,
        what: &str,
    ) -> Result<i64, BootstrapError> {
        match sqlx::query(query)
            .bind(key)
            .fetch_optional(&mut **self.transaction)
            .await?
        {
            Some(row) => Ok(row.try_get("id")?),
            None => Err(invalid(
                record.to_string(),
                field,
                format!("'{key}' is not {what} declared before it or stored"),
            )),
        }
    }

    pub(super) async fn channel(
        &mut self,
        channel: &Channel,
        record: &str,
    ) -> Result<(), BootstrapError> {
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

    async fn values(
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

    pub(super) async fn peo(&mut self, peo: &Peo, record: &str) -> Result<(), BootstrapError> {
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
        for table in ["peo_nodes", "peo_channels", "attribute_values"] {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DELETE FROM {table} WHERE peo_id = $1"
            )))
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

    pub(super) async fn classification(
        &mut self,
        classification: &Classification,
        record: &str,
    ) -> Result<(), BootstrapError> {
        sqlx::query(
            "INSERT INTO classifications (tid, created_at, modified_at) VALUES ($1, $2, $2) \
             ON CONFLICT (tid) DO UPDATE SET modified_at = excluded.modified_at",
        )
        .bind(&classification.tid)
        .bind(&self.now)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let id = self
            .id(
                "SELECT id FROM classifications WHERE tid = $1",
                &classification.tid,
            )
            .await?;
        sqlx::query("DELETE FROM classification_names WHERE classification_id = $1")
            .bind(id)
            .execute(&mut **self.transaction)
            .await?;
        for (loc, name) in &classification.names {
            sqlx::query("INSERT INTO classification_names (classification_id, loc, name) VALUES ($1, $2, $3)")
                .bind(id)
                .bind(loc)
                .bind(name)
                .execute(&mut **self.transaction)
                .await?;
        }
        let root = format!("/{}", classification.tid);
        for (position, node) in classification.nodes.iter().enumerate() {
            let record = format!("{record}.nodes[{position}] ({})", node.path);
            let (parent_path, identifier) = node.path.rsplit_once('/').unwrap_or_default();
            let inside = node.path == root || node.path.starts_with(&format!("{root}/"));
            if !inside || identifier.is_empty() {
                return Err(invalid(
                    record,
                    "path",
                    format!("must be {root} or start with {root}/"),
                ));
            }
            let parent = if node.path == root {
                None
            } else {
                match sqlx::query("SELECT id FROM classification_nodes WHERE classification_id = $1 AND path = $2")
                    .bind(id)
                    .bind(parent_path)
                    .fetch_optional(&mut **self.transaction)
                    .await?
                {
                    Some(row) => Some(row.try_get::<i64, _>("id")?),
                    None => {
                        return Err(invalid(record, "path", format!("the parent node '{parent_path}' is neither declared before it nor stored")));
                    }
                }
            };
            sqlx::query(
                "INSERT INTO classification_nodes (classification_id, parent_id, identifier, path, position) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (classification_id, path) DO UPDATE SET \
                 position = excluded.position",
            )
            .bind(id)
            .bind(parent)
            .bind(identifier)
            .bind(&node.path)
            .bind(position as i64)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
            let node_id: i64 = sqlx::query(
                "SELECT id FROM classification_nodes WHERE classification_id = $1 AND path = $2",
            )
            .bind(id)
            .bind(&node.path)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
            sqlx::query("DELETE FROM node_names WHERE node_id = $1")
                .bind(node_id)
                .execute(&mut **self.transaction)
                .await?;
            for (loc, name) in &node.names {
                sqlx::query("INSERT INTO node_names (node_id, loc, name) VALUES ($1, $2, $3)")
                    .bind(node_id)
                    .bind(loc)
                    .bind(name)
                    .execute(&mut **self.transaction)
                    .await?;
            }
            for (index, attribute) in node.attributes.iter().enumerate() {
                let record = format!("{record}.attributes[{index}] ({})", attribute.key);
                self.node_attribute(node_id, attribute, &record).await?;
            }
        }
        Ok(())
    }

    async fn node_attribute(
        &mut self,
        node_id: i64,
        attribute: &NodeAttribute,
        record: &str,
    ) -> Result<(), BootstrapError> {
        if let Some(default) = &attribute.default_value
            && !attribute
                .domain_values
                .iter()
                .any(|value| &value.tid == default)
        {
            return Err(invalid(
                record.to_string(),
                "defaultValue",
                format!("'{default}' is not one of its domain values"),
            ));
        }
        let definition = self
            .find(
                "SELECT id FROM attribute_definitions WHERE tid = $1",
                &attribute.key,
                record,
                "key",
                "an attribute definition",
            )
            .await?;
        sqlx::query(
            "INSERT INTO node_attributes (node_id, attribute_definition_id, level, inheritance, restriction, \
             localized, allow_new_value, sort_direction, mode, default_value_tid) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (node_id, attribute_definition_id) DO UPDATE SET level = excluded.level, \
             inheritance = excluded.inheritance, restriction = excluded.restriction, \
             localized = excluded.localized, allow_new_value = excluded.allow_new_value, \
             sort_direction = excluded.sort_direction, mode = excluded.mode, \
             default_value_tid = excluded.default_value_tid",
        )
        .bind(node_id)
        .bind(definition)
        .bind(&attribute.level)
        .bind(&attribute.inheritance)
        .bind(&attribute.restriction)
        .bind(attribute.localized)
        .bind(attribute.allow_new_value)
        .bind(&attribute.sort_direction)
        .bind(&attribute.mode)
        .bind(&attribute.default_value)
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let attribute_id: i64 = sqlx::query(
            "SELECT id FROM node_attributes WHERE node_id = $1 AND attribute_definition_id = $2",
        )
        .bind(node_id)
        .bind(definition)
        .fetch_one(&mut **self.transaction)
        .await?
        .try_get("id")?;
        sqlx::query("DELETE FROM domain_values WHERE node_attribute_id = $1")
            .bind(attribute_id)
            .execute(&mut **self.transaction)
            .await?;
        for (position, value) in attribute.domain_values.iter().enumerate() {
            let value_id: i64 = sqlx::query(
                "INSERT INTO domain_values (node_attribute_id, tid, position) VALUES ($1, $2, $3) RETURNING id",
            )
            .bind(attribute_id)
            .bind(&value.tid)
            .bind(position as i64)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
            for (loc, text) in &value.names {
                sqlx::query("INSERT INTO domain_value_names (domain_value_id, loc, value) VALUES ($1, $2, $3)")
                    .bind(value_id)
                    .bind(loc)
                    .bind(text)
                    .execute(&mut **self.transaction)
                    .await?;
            }
        }
        Ok(())
    }

    pub(super) async fn briefing(
        &mut self,
        briefing: &Briefing,
        record: &str,
    ) -> Result<(), BootstrapError> {
        let channel = self
            .find(
                "SELECT id FROM channels WHERE tid = $1",
                &briefing.channel,
                record,
                "channel",
                "a channel",
            )
            .await?;
        let json = |map: &BTreeMap<String, String>| {
            serde_json::to_string(map).unwrap_or_else(|_| "{}".to_string())
        };
        sqlx::query(
            "INSERT INTO briefing_layouts (channel_id, module_cfg_tid, locale, layout_key, name, attributes) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (channel_id, module_cfg_tid, locale) DO UPDATE SET \
             layout_key = excluded.layout_key, name = excluded.name, attributes = excluded.attributes",
        )
        .bind(channel)
        .bind(&briefing.module_cfg)
        .bind(&briefing.locale)
        .bind(&briefing.layout)
        .bind(&briefing.name)
        .bind(json(&briefing.attributes))
        .execute(&mut **self.transaction)
        .await?;
        self.loaded.records += 1;
        let layout: i64 = sqlx::query("SELECT id FROM briefing_layouts WHERE channel_id = $1 AND module_cfg_tid = $2 AND locale = $3")
            .bind(channel)
            .bind(&briefing.module_cfg)
            .bind(&briefing.locale)
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
        sqlx::query("DELETE FROM briefing_boxes WHERE layout_id = $1")
            .bind(layout)
            .execute(&mut **self.transaction)
            .await?;
        for (position, item) in briefing.boxes.iter().enumerate() {
            let box_id: i64 = sqlx::query(
                "INSERT INTO briefing_boxes (layout_id, box_key, layer, name, type, position, attributes) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
            )
            .bind(layout)
            .bind(&item.id)
            .bind(&item.layer)
            .bind(&item.name)
            .bind(&item.type_)
            .bind(position as i64)
            .bind(json(&item.attributes))
            .fetch_one(&mut **self.transaction)
            .await?
            .try_get("id")?;
            for (index, image) in item.images.iter().enumerate() {
                sqlx::query("INSERT INTO briefing_images (box_id, type, position, attributes) VALUES ($1, $2, $3, $4)")
                    .bind(box_id)
                    .bind(&image.type_)
                    .bind(index as i64)
                    .bind(json(&image.attributes))
                    .execute(&mut **self.transaction)
                    .await?;
            }
        }
        Ok(())
    }
}

/// Who owns attribute values.
#[derive(Clone, Copy)]
enum Owner {
    Channel(i64),
    Peo(i64),
}
