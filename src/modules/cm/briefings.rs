//! Channel briefings (`retrieveChannelBriefings`, D-20): the `patch-briefing` of one channel's
//! layout for a module configuration and a locale, every attribute identifier written in the
//! specification's order.

use std::collections::BTreeMap;

use core_api::{
    tables,
    types::{
        BriefingAttribute, BriefingBox, BriefingBoxes, BriefingEmpty, BriefingImage,
        BriefingImages, BriefingLayout, BriefingRequest, PatchBriefing,
    },
};

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
            format!("Project with tid '{tid}' not found"),
        ),
        (None, Some(id)) => (Identity::Id(*id), format!("Project with id {id} not found")),
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
        return Err(ApiError::NotFound(format!("Locale '{locale}' not found")));
    }
    if !briefings::module_cfg_exists(pool, module_cfg).await? {
        return Err(ApiError::NotFound(format!(
            "Briefing module configuration '{module_cfg}' not found"
        )));
    }
    let tid = channel.key.unwrap_or_default();
    let layout = briefings::layout(pool, channel.id, module_cfg, locale)
        .await?
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "Project '{tid}' has no briefing layout for '{module_cfg}' in locale '{locale}'"
            ))
        })?;
    let mut images: BTreeMap<i64, Vec<BriefingImage>> = BTreeMap::new();
    for image in briefings::images(pool, layout.id).await? {
        images.entry(image.box_id).or_default().push(BriefingImage {
            type_: image.kind,
            attribute: attributes(&image.attributes, &IMAGE)?,
        });
    }
    let mut boxes = Vec::new();
    for item in briefings::boxes(pool, layout.id).await? {
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
