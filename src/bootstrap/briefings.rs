//! Briefing layouts of channels, by channel, module configuration and locale, with their boxes
//! and images.

use std::collections::BTreeMap;

use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, fits, given, invalid};
use crate::storage::{
    briefings::{BOX, IMAGE, LAYOUT, PERCENT},
    import::{self, BoxRow, ImageRow, LayoutRow, Lookup, Owned},
};

/// The briefing layout of a channel for a module configuration and a locale.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Briefing {
    /// The id the layout keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The channel, by `tid`.
    pub channel: String,
    /// The briefing module configuration (`briefingModuleCfgTid`).
    pub module_cfg: String,
    /// The locale (`briefingInfo.locale`).
    pub locale: String,
    /// The layout's `id` (a number).
    pub layout: i64,
    /// The layout's `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Layout attributes by identifier (`width`, `height`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
    /// The boxes, in order (replaced on a second load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boxes: Vec<BriefingBox>,
}

/// A box of a briefing layout.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefingBox {
    /// The id the stored box keeps (an export gives it; `id` is the box's key); absent: the
    /// next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub record_id: Option<i64>,
    /// The box's `id` (a number).
    pub id: i64,
    /// The box's `layer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// The box's `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The box's `type`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Box attributes by identifier (`width`, `xpos`, `content_width`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
    /// Its images, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<BriefingImage>,
}

/// An image of a briefing box.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefingImage {
    /// The id it keeps (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// The image's `type` (seen `origin`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Image attributes by identifier (`image_path`, `image_width`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
}

/// Checks each briefing: attribute identifiers are those the briefing answer lists (D-20), the
/// four percentages end in `%`, and texts fit the answer's limits.
pub(super) fn check(document: &Bootstrap, _checks: &mut Checks<'_>) -> Result<(), BootstrapError> {
    for (index, briefing) in document.briefings.iter().enumerate() {
        let record = format!("briefings[{index}] ({})", briefing.channel);
        given(&record, briefing.id, &[])?;
        check_attributes(&record, "attributes", &briefing.attributes, &LAYOUT)?;
        for (box_index, item) in briefing.boxes.iter().enumerate() {
            given(&record, item.record_id, &[])?;
            let field = format!("boxes[{box_index}].attributes");
            check_attributes(&record, &field, &item.attributes, &BOX)?;
            for identifier in PERCENT {
                if let Some(value) = item.attributes.get(identifier)
                    && !value.ends_with('%')
                {
                    return Err(invalid(
                        record,
                        &format!("{field}.{identifier}"),
                        format!("'{value}' is not a percentage ending in %"),
                    ));
                }
            }
            for (image_index, image) in item.images.iter().enumerate() {
                given(&record, image.id, &[])?;
                let field = format!("boxes[{box_index}].images[{image_index}].attributes");
                check_attributes(&record, &field, &image.attributes, &IMAGE)?;
            }
        }
    }
    Ok(())
}

/// Checks attributes: each identifier one of `known`, each text within the answer's limits.
fn check_attributes(
    record: &str,
    field: &str,
    attributes: &BTreeMap<String, String>,
    known: &[&str],
) -> Result<(), BootstrapError> {
    for (identifier, value) in attributes {
        if !known.contains(&identifier.as_str()) {
            return Err(invalid(
                record.to_string(),
                &format!("{field}.{identifier}"),
                format!(
                    "not an attribute identifier here; those are {}",
                    known.join(", ")
                ),
            ));
        }
        fits(record, field, value, &tables::BRIEFING_ATTRIBUTE, "value")?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the briefing layouts; a layout's boxes and images are replaced.
    pub(super) async fn briefings(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for (index, briefing) in document.briefings.iter().enumerate() {
            self.progress.advance(1);
            let record = format!("briefings[{index}] ({})", briefing.channel);
            self.briefing(briefing, &record)
                .await
                .map_err(|error| error.within(|| record.clone()))?;
        }
        Ok(())
    }

    async fn briefing(&mut self, briefing: &Briefing, record: &str) -> Result<(), BootstrapError> {
        let channel = self
            .find(
                Lookup::Channel,
                &briefing.channel,
                record,
                "channel",
                "a channel",
            )
            .await?;
        let json = |map: &BTreeMap<String, String>| {
            serde_json::to_string(map).unwrap_or_else(|_| "{}".to_string())
        };
        let layout_key = briefing.layout.to_string();
        let attributes = json(&briefing.attributes);
        let row = LayoutRow {
            id: briefing.id,
            channel_id: channel,
            module_cfg: &briefing.module_cfg,
            locale: &briefing.locale,
            layout_key: &layout_key,
            name: briefing.name.as_deref(),
            attributes: &attributes,
        };
        let layout = import::upsert_layout(self.transaction, &row).await?;
        self.loaded.records += 1;
        import::clear(self.transaction, Owned::BriefingBoxes, layout).await?;
        for (position, item) in briefing.boxes.iter().enumerate() {
            let box_key = item.id.to_string();
            let attributes = json(&item.attributes);
            let row = BoxRow {
                id: item.record_id,
                layout_id: layout,
                box_key: &box_key,
                layer: item.layer.as_deref(),
                name: item.name.as_deref(),
                type_: item.type_.as_deref(),
                position: position as i64,
                attributes: &attributes,
            };
            let box_id = import::insert_box(self.transaction, &row).await?;
            for (index, image) in item.images.iter().enumerate() {
                let attributes = json(&image.attributes);
                let row = ImageRow {
                    id: image.id,
                    box_id,
                    type_: image.type_.as_deref(),
                    position: index as i64,
                    attributes: &attributes,
                };
                import::insert_image(self.transaction, &row).await?;
            }
        }
        Ok(())
    }
}
