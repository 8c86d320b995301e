//! Briefing layouts with their boxes and images; keys and attributes read back from the text
//! they are stored as.

use std::collections::{BTreeMap, HashMap};

use super::{ExportError, Kinds, by, span};
use crate::{
    bootstrap::{Briefing, BriefingBox, BriefingImage},
    storage::export::{self, BoxRow, Chunked, ImageRow, LayoutRow},
};

impl Kinds<'_, '_> {
    pub(super) async fn briefings(&mut self) -> Result<(), ExportError> {
        self.open("briefings", "briefing_layouts").await?;
        let mut after = 0;
        loop {
            let layouts: Vec<LayoutRow> =
                export::chunk(self.connection, Chunked::Briefings, after).await?;
            let Some(last) = layouts.last().map(|layout| layout.id) else {
                break;
            };
            let boxes = export::boxes(self.connection, after, last).await?;
            let (low, high) = span(boxes.iter().map(|item| item.id));
            let images = export::images(self.connection, low, high).await?;
            let mut images = by(images, |image| image.box_id);
            let mut boxes_of = by(boxes, |item| item.layout_id);
            self.progress
                .advance(u64::try_from(layouts.len()).unwrap_or(u64::MAX));
            for layout in layouts {
                let boxes = boxes_of.remove(&layout.id).unwrap_or_default();
                let briefing = briefing_of(layout, boxes, &mut images)?;
                self.document.record(&briefing)?;
            }
            after = last;
        }
        self.close()
    }
}

/// A layout as the document states it.
fn briefing_of(
    layout: LayoutRow,
    boxes: Vec<BoxRow>,
    images: &mut HashMap<i64, Vec<ImageRow>>,
) -> Result<Briefing, ExportError> {
    let mut items = Vec::with_capacity(boxes.len());
    for item in boxes {
        let mut pictures = Vec::new();
        for image in images.remove(&item.id).unwrap_or_default() {
            pictures.push(BriefingImage {
                id: Some(image.id),
                type_: image.type_,
                attributes: attributes("briefing_images", image.id, &image.attributes)?,
            });
        }
        items.push(BriefingBox {
            record_id: Some(item.id),
            id: number("briefing_boxes", item.id, &item.box_key)?,
            layer: item.layer,
            name: item.name,
            type_: item.type_,
            attributes: attributes("briefing_boxes", item.id, &item.attributes)?,
            images: pictures,
        });
    }
    Ok(Briefing {
        id: Some(layout.id),
        channel: layout.channel,
        module_cfg: layout.module_cfg_tid,
        locale: layout.locale.unwrap_or_default(),
        layout: number("briefing_layouts", layout.id, &layout.layout_key)?,
        name: layout.name,
        attributes: attributes("briefing_layouts", layout.id, &layout.attributes)?,
        boxes: items,
    })
}

/// A key stored as text, read as the number it is.
fn number(table: &'static str, id: i64, key: &str) -> Result<i64, ExportError> {
    key.parse().map_err(|_| ExportError::Stored {
        table,
        id,
        problem: format!("the key '{key}' is not a number"),
    })
}

/// Attributes stored as a JSON object of text.
fn attributes(
    table: &'static str,
    id: i64,
    text: &str,
) -> Result<BTreeMap<String, String>, ExportError> {
    serde_json::from_str(text).map_err(|error| ExportError::Stored {
        table,
        id,
        problem: format!("attributes are not a JSON object of text: {error}"),
    })
}
