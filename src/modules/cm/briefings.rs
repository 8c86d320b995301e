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
use sqlx::AnyPool;

use crate::{
    error::ApiError,
    storage::{
        Database,
        briefings::{self, BOX, IMAGE, LAYOUT},
        records::{self, CHANNELS, Identity, LOCALES},
    },
};

/// The briefing of the one channel the request names.
pub(crate) async fn retrieve(
    database: &Database,
    request: &BriefingRequest,
) -> Result<PatchBriefing, ApiError> {
    let pool = database.reads();
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
    let channel = records::find(pool, &CHANNELS, identity)
        .await?
        .ok_or(ApiError::NotFound(missing))?;
    let info = &request.briefing_info;
    let locale = &info.locale;
    let module_cfg = &info.briefing_module_cfg_tid;
    if records::find(pool, &LOCALES, Identity::Key(locale))
        .await?
        .is_none()
    {
        return Err(ApiError::NotFound(fill(
            messages::LOCALE_LOCALE_NOT_FOUND,
            &[&locale],
        )));
    }
    if !briefings::module_cfg_exists(pool, module_cfg).await? {
        return Err(ApiError::NotFound(fill(
            messages::BRIEFING_MODULE_CONFIGURATION_TID_NOT_FOUND,
            &[&module_cfg],
        )));
    }
    let tid = channel.key.unwrap_or_default();
    let layout = briefings::layout(pool, channel.id, module_cfg, locale)
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(fill(
                messages::PROJECT_TID_HAS_NO_BRIEFING_LAYOUT_FOR_CFG_IN_LOCALE_LOCALE,
                &[&tid, &module_cfg, &locale],
            ))
        })?;
    let boxes = boxes(pool, layout.id).await?;
    Ok(PatchBriefing {
        layout: BriefingLayout {
            id: layout.layout_key.parse().ok(),
            name: layout.name,
            attribute: attributes(&layout.attributes, &LAYOUT)?,
            seitenbriefing: BriefingEmpty {},
            boxes: BriefingBoxes { box_: boxes },
            briefing_images: BriefingImages::default(),
        },
    })
}

/// The boxes of a layout, each with its images.
async fn boxes(pool: &AnyPool, layout: i64) -> Result<Vec<BriefingBox>, ApiError> {
    let mut images: BTreeMap<i64, Vec<BriefingImage>> = BTreeMap::new();
    for image in briefings::images(pool, layout).await? {
        images.entry(image.box_id).or_default().push(BriefingImage {
            type_: image.kind,
            attribute: attributes(&image.attributes, &IMAGE)?,
        });
    }
    let mut boxes = Vec::new();
    for item in briefings::boxes(pool, layout).await? {
        boxes.push(BriefingBox {
            id: item.box_key.parse().ok(),
            layer: item.layer,
            name: item.name,
            type_: item.kind,
            attribute: attributes(&item.attributes, &BOX)?,
            images: BriefingImages {
                image: images.remove(&item.id).unwrap_or_default(),
            },
            box_data: BriefingEmpty {},
            related_products: BriefingEmpty {},
            box_data_attributes: BriefingEmpty {},
            briefing_images: BriefingImages::default(),
        });
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
