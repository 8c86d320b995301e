//! The SQL of briefing layouts: a channel's layout for a module configuration and a locale, its
//! boxes and their images (attributes are stored as JSON objects of identifier to text).

use sqlx::AnyPool;

/// The attribute identifiers of a layout, in order.
pub(crate) const LAYOUT: [&str; 2] = ["width", "height"];

/// The attribute identifiers of a box, in order.
pub(crate) const BOX: [&str; 19] = [
    "width",
    "height",
    "xpos",
    "ypos",
    "zpos",
    "content_width",
    "content_height",
    "content_xpos",
    "content_ypos",
    "content_rotate_angle",
    "content_reflection",
    "order_name",
    "dummy_width",
    "dummy_height",
    "dummy_xpos",
    "dummy_ypos",
    "dummy_rotate_angle",
    "dummy_reflection",
    "text_article",
];

/// The attribute identifiers of an image, in order.
pub(crate) const IMAGE: [&str; 9] = [
    "image_path",
    "image_width",
    "image_height",
    "image_offset_x",
    "image_offset_y",
    "image_rotate_angle",
    "flipped_horizontal",
    "flipped_vertical",
    "image_scale",
];

/// The box attributes whose values are percentages ending in `%`.
pub(crate) const PERCENT: [&str; 4] = [
    "content_width",
    "content_height",
    "dummy_width",
    "dummy_height",
];

/// A briefing layout.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Layout {
    /// Its row id.
    pub(crate) id: i64,
    /// The layout's `id` as loaded.
    pub(crate) layout_key: String,
    /// Its `name`.
    pub(crate) name: Option<String>,
    /// Its attributes, a JSON object.
    pub(crate) attributes: String,
}

/// The layout of a channel for a module configuration and a locale.
pub(crate) async fn layout(
    pool: &AnyPool,
    channel: i64,
    module_cfg: &str,
    locale: &str,
) -> Result<Option<Layout>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, layout_key, name, attributes FROM briefing_layouts \
         WHERE channel_id = $1 AND module_cfg_tid = $2 AND locale = $3"
    ))
    .bind(channel)
    .bind(module_cfg.to_string())
    .bind(locale.to_string())
    .fetch_optional(pool)
    .await
}

/// Whether any layout is loaded for a module configuration.
pub(crate) async fn module_cfg_exists(
    pool: &AnyPool,
    module_cfg: &str,
) -> Result<bool, sqlx::Error> {
    let found: Option<i64> = sqlx::query_scalar(sql!(
        "SELECT id FROM briefing_layouts WHERE module_cfg_tid = $1 LIMIT 1"
    ))
    .bind(module_cfg.to_string())
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}

/// A box of a layout.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Box {
    /// Its row id.
    pub(crate) id: i64,
    /// The box's `id` as loaded.
    pub(crate) box_key: String,
    /// `layer`.
    pub(crate) layer: Option<String>,
    /// `name`.
    pub(crate) name: Option<String>,
    /// `type`.
    pub(crate) kind: Option<String>,
    /// Its attributes, a JSON object.
    pub(crate) attributes: String,
}

/// The boxes of a layout, in order.
pub(crate) async fn boxes(pool: &AnyPool, layout: i64) -> Result<Vec<Box>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, box_key, layer, name, type AS kind, attributes FROM briefing_boxes \
         WHERE layout_id = $1 ORDER BY position"
    ))
    .bind(layout)
    .fetch_all(pool)
    .await
}

/// An image of a box.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Image {
    /// The box.
    pub(crate) box_id: i64,
    /// `type`.
    pub(crate) kind: Option<String>,
    /// Its attributes, a JSON object.
    pub(crate) attributes: String,
}

/// The images of a layout's boxes, by box and position.
pub(crate) async fn images(pool: &AnyPool, layout: i64) -> Result<Vec<Image>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT i.box_id, i.type AS kind, i.attributes FROM briefing_images i \
         JOIN briefing_boxes b ON b.id = i.box_id WHERE b.layout_id = $1 \
         ORDER BY i.box_id, i.position"
    ))
    .bind(layout)
    .fetch_all(pool)
    .await
}
