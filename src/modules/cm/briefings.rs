//! Channel briefings (`retrieveChannelBriefings`, D-20): the `patch-briefing` of one channel's
//! layout for a module configuration and a locale, every attribute identifier written in the
//! specification's order.

use std::collections::BTreeMap;

use core_api::{
    messages, tables,
    types::{
        BriefingAttribute, BriefingBox, BriefingBoxes, BriefingEmpty, BriefingImage,
        BriefingImages, BriefingLayout, BriefingRequest, PatchBriefing,
    },
};
use core_api_support::fill;

use crate::{
    error::ApiError,
    storage::{
        Database,
        briefings::{self, BOX, IMAGE, LAYOUT, Row},
        records::Identity,
    },
};

/// The briefing of the one channel the request names.
pub(crate) async fn retrieve(
    database: &Database,
    request: &BriefingRequest,
) -> Result<PatchBriefing, ApiError> {
    let (identity, missing) = match (request.tids.first(), request.ids.first()) {
        (Some(tid), _) => (
            Identity::Key(tid),
            fill(messages::PROJECT_WITH_TID_TID_NOT_FOUND, &[&tid]),
        ),
        (None, Some(id)) => (
            Identity::Id(*id),
            fill(messages::PROJECT_WITH_ID_ID_NOT_FOUND, &[&id]),
        ),
        (None, None) => return Err(ApiError::broken_rule(&tables::BRIEFING_REQUEST)),
    };
    let info = &request.briefing_info;
    let locale = &info.locale;
    let module_cfg = &info.briefing_module_cfg_tid;
    let rows = briefings::read(database, identity, locale, module_cfg).await?;
    let Some(first) = rows.first() else {
        return Err(ApiError::NotFound(missing));
    };
    if first.locale_known == 0 {
        return Err(ApiError::NotFound(fill(
            messages::LOCALE_LOCALE_NOT_FOUND,
            &[&locale],
        )));
    }
    if first.module_cfg_known == 0 {
        return Err(ApiError::NotFound(fill(
            messages::BRIEFING_MODULE_CONFIGURATION_TID_NOT_FOUND,
            &[&module_cfg],
        )));
    }
    let (Some(layout_key), Some(layout_attributes)) = (&first.layout_key, &first.layout_attributes)
    else {
        return Err(ApiError::NotFound(fill(
            messages::PROJECT_TID_HAS_NO_BRIEFING_LAYOUT_FOR_CFG_IN_LOCALE_LOCALE,
            &[&first.channel_tid, &module_cfg, &locale],
        )));
    };
    Ok(PatchBriefing {
        layout: BriefingLayout {
            id: layout_key.parse().ok(),
            name: first.layout_name.clone(),
            attribute: attributes(layout_attributes, &LAYOUT)?,
            seitenbriefing: BriefingEmpty {},
            boxes: BriefingBoxes {
                box_: boxes(&rows)?,
            },
            briefing_images: BriefingImages::default(),
        },
    })
}

/// The boxes of a layout in order, each with its images in order, from the rows of its read.
fn boxes(rows: &[Row]) -> Result<Vec<BriefingBox>, ApiError> {
    let mut boxes: Vec<BriefingBox> = Vec::new();
    let mut last = None;
    for row in rows {
        let (Some(id), Some(stored)) = (row.box_id, &row.box_attributes) else {
            continue;
        };
        if last != Some(id) {
            last = Some(id);
            boxes.push(BriefingBox {
                id: row.box_key.as_deref().and_then(|key| key.parse().ok()),
                layer: row.box_layer.clone(),
                name: row.box_name.clone(),
                type_: row.box_kind.clone(),
                attribute: attributes(stored, &BOX)?,
                images: BriefingImages::default(),
                box_data: BriefingEmpty {},
                related_products: BriefingEmpty {},
                box_data_attributes: BriefingEmpty {},
                briefing_images: BriefingImages::default(),
            });
        }
        if let (Some(image), Some(item)) = (&row.image_attributes, boxes.last_mut()) {
            item.images.image.push(BriefingImage {
                type_: row.image_kind.clone(),
                attribute: attributes(image, &IMAGE)?,
            });
        }
    }
    Ok(boxes)
}

/// Every identifier of `order` with its stored text (empty when none was loaded).
fn attributes(stored: &str, order: &[&str]) -> Result<Vec<BriefingAttribute>, ApiError> {
    let mut values: BTreeMap<String, String> = serde_json::from_str(stored)
        .map_err(|error| ApiError::Internal(format!("stored briefing attributes: {error}")))?;
    Ok(order
        .iter()
        .map(|identifier| BriefingAttribute {
            identifier: (*identifier).to_string(),
            value: values.remove(*identifier).unwrap_or_default(),
        })
        .collect())
}
