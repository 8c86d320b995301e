//! The SQL of briefing layouts: a channel's layout for a module configuration and a locale with
//! its boxes and their images, in one statement (attributes are stored as JSON objects of
//! identifier to text).

use super::{Database, read, records::Identity};

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

/// One row of a briefing read: the channel, whether the locale and the module configuration
/// are known, and the channel's layout for them with one of its boxes and one of that box's
/// images (each absent when there is none), boxes and images in order.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Row {
    /// The channel's tid.
    pub(crate) channel_tid: String,
    /// 1 when the locale is stored.
    pub(crate) locale_known: i64,
    /// 1 when any layout is loaded for the module configuration.
    pub(crate) module_cfg_known: i64,
    /// The layout's `id` as loaded; none when the channel has no layout for them.
    pub(crate) layout_key: Option<String>,
    /// The layout's `name`.
    pub(crate) layout_name: Option<String>,
    /// The layout's attributes, a JSON object.
    pub(crate) layout_attributes: Option<String>,
    /// The box's row id; none when the layout has no box.
    pub(crate) box_id: Option<i64>,
    /// The box's `id` as loaded.
    pub(crate) box_key: Option<String>,
    /// The box's `layer`.
    pub(crate) box_layer: Option<String>,
    /// The box's `name`.
    pub(crate) box_name: Option<String>,
    /// The box's `type`.
    pub(crate) box_kind: Option<String>,
    /// The box's attributes, a JSON object.
    pub(crate) box_attributes: Option<String>,
    /// The image's `type`.
    pub(crate) image_kind: Option<String>,
    /// The image's attributes, a JSON object; none when the box has no image.
    pub(crate) image_attributes: Option<String>,
}

/// A briefing's statement, from the channel whose `$column` is `$1`: one row per image of each
/// box of the layout (one row per box without images, one row when there is no box or layout),
/// no row when there is no such channel.
macro_rules! briefing {
    ($column:literal) => {
        sql!(concat!(
            "SELECT c.tid AS channel_tid, \
             CAST(EXISTS (SELECT 1 FROM locales WHERE tid = $2) AS INTEGER) AS locale_known, \
             CAST(EXISTS (SELECT 1 FROM briefing_layouts WHERE module_cfg_tid = $3) AS INTEGER) \
             AS module_cfg_known, l.layout_key, l.name AS layout_name, \
             l.attributes AS layout_attributes, b.id AS box_id, b.box_key, b.layer AS box_layer, \
             b.name AS box_name, b.type AS box_kind, b.attributes AS box_attributes, \
             i.type AS image_kind, i.attributes AS image_attributes \
             FROM channels c \
             LEFT JOIN briefing_layouts l ON l.channel_id = c.id AND l.module_cfg_tid = $3 \
             AND l.locale = $2 \
             LEFT JOIN briefing_boxes b ON b.layout_id = l.id \
             LEFT JOIN briefing_images i ON i.box_id = b.id \
             WHERE c.",
            $column,
            " = $1 ORDER BY b.position, b.id, i.position"
        ))
    };
}

/// The briefing of a channel (by id or tid) for a locale and a module configuration, in one
/// statement: the rows of [`Row`], none when no such channel is stored.
pub(crate) async fn read(
    database: &Database,
    channel: Identity<'_>,
    locale: &str,
    module_cfg: &str,
) -> Result<Vec<Row>, sqlx::Error> {
    read::all(database, || {
        channel
            .query_as(briefing!("id"), briefing!("tid"))
            .bind(locale.to_string())
            .bind(module_cfg.to_string())
    })
    .await
}
