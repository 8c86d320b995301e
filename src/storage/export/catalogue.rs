//! The rows of the catalogue's nested kinds (glossaries, assets, channels and PEOs,
//! classifications, briefings) and the statements reading what they own, by ranges of owners.

use sqlx::{AnyConnection, FromRow};

use super::CHUNK;
use crate::storage::flag::Flag;

/// A glossary as exported, without its entries.
#[derive(Debug, FromRow)]
pub(crate) struct GlossaryRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    pub(crate) name: String,
    /// Comma-separated locale tids.
    pub(crate) languages: Option<String>,
    pub(crate) created_at: String,
}

/// A glossary entry as exported, without its translations.
#[derive(Debug, FromRow)]
pub(crate) struct EntryRow {
    pub(crate) id: i64,
    pub(crate) tid: Option<String>,
    pub(crate) loc: Option<String>,
    #[sqlx(rename = "type")]
    pub(crate) type_: String,
    pub(crate) value: Option<String>,
    pub(crate) forbidden: Flag,
    pub(crate) last_edited_username: Option<String>,
    pub(crate) last_edited_date: Option<String>,
}

/// A translation of a glossary entry as exported.
#[derive(Debug, FromRow)]
pub(crate) struct TranslationRow {
    pub(crate) id: i64,
    pub(crate) entry_id: i64,
    pub(crate) loc: Option<String>,
    pub(crate) mode: Option<String>,
    #[sqlx(rename = "type")]
    pub(crate) type_: Option<String>,
    pub(crate) similarity: Option<i64>,
    pub(crate) value: Option<String>,
    pub(crate) forbidden: Flag,
    pub(crate) last_edited_username: Option<String>,
    pub(crate) last_edited_date: Option<String>,
}

/// The entries of a glossary whose ids follow `after`, [`CHUNK`] at most, by id.
pub(crate) async fn entries(
    connection: &mut AnyConnection,
    glossary: i64,
    after: i64,
) -> Result<Vec<EntryRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, tid, loc, type, value, CAST(forbidden AS INTEGER) AS forbidden, \
         last_edited_username, last_edited_date FROM glossary_entries \
         WHERE glossary_id = $1 AND id > $2 ORDER BY id LIMIT $3"
    ))
    .bind(glossary)
    .bind(after)
    .bind(CHUNK)
    .fetch_all(connection)
    .await
}

/// The translations of the entries of ids in `(after, last]`, by entry and id.
pub(crate) async fn translations(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<TranslationRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, entry_id, loc, mode, type, similarity, value, \
         CAST(forbidden AS INTEGER) AS forbidden, last_edited_username, last_edited_date \
         FROM glossary_translations WHERE entry_id > $1 AND entry_id <= $2 \
         ORDER BY entry_id, id"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}

/// An asset as exported, without its versions.
#[derive(Debug, FromRow)]
pub(crate) struct AssetRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    pub(crate) name: Option<String>,
    pub(crate) path: Option<String>,
    pub(crate) created_at: String,
    pub(crate) modified_at: String,
}

/// An asset version as exported, without its binary and previews.
#[derive(Debug, FromRow)]
pub(crate) struct VersionRow {
    pub(crate) id: i64,
    pub(crate) asset_id: i64,
    pub(crate) version_number: i64,
    pub(crate) tid: Option<String>,
    pub(crate) media_type: String,
    pub(crate) file_name: Option<String>,
    pub(crate) created_at: String,
}

/// A preview of a version as exported, without its binary.
#[derive(Debug, FromRow)]
pub(crate) struct PreviewRow {
    pub(crate) version_id: i64,
    pub(crate) format: String,
    pub(crate) media_type: String,
}

/// The versions of the assets of ids in `(after, last]`, by asset and version number.
pub(crate) async fn versions(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<VersionRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, asset_id, version_number, tid, media_type, file_name, created_at \
         FROM asset_versions WHERE asset_id > $1 AND asset_id <= $2 \
         ORDER BY asset_id, version_number"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}

/// The previews of the versions of ids in `(after, last]`, by version and format.
pub(crate) async fn previews(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<PreviewRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT version_id, format, media_type FROM asset_previews \
         WHERE version_id > $1 AND version_id <= $2 ORDER BY version_id, format"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}

/// One stored chunk of a binary (`seq` from 0), if there is one.
pub(crate) async fn binary_chunk(
    connection: &mut AnyConnection,
    version: i64,
    format: &str,
    seq: i64,
) -> Result<Option<Vec<u8>>, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT data FROM binary_chunks WHERE version_id = $1 AND format = $2 AND seq = $3"
    ))
    .bind(version)
    .bind(format.to_string())
    .bind(seq)
    .fetch_optional(connection)
    .await
}

/// A product as exported, without what it owns.
#[derive(Debug, FromRow)]
pub(crate) struct ProductRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    pub(crate) name: Option<String>,
    pub(crate) created_at: String,
}

/// A channel as exported, without what it owns.
#[derive(Debug, FromRow)]
pub(crate) struct ChannelRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    /// The parent's tid.
    pub(crate) parent: Option<String>,
    /// The channel type's name.
    pub(crate) type_name: String,
    pub(crate) order_sequence: Option<i64>,
    pub(crate) name: Option<String>,
    pub(crate) html_icon: Option<String>,
    pub(crate) icon: Option<String>,
    /// `allowedFunctions`, comma-separated.
    pub(crate) allowed_functions: Option<String>,
    pub(crate) created_at: String,
    pub(crate) modified_at: String,
}

/// A PEO as exported, without what it owns.
#[derive(Debug, FromRow)]
pub(crate) struct PeoRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    /// The product's tid.
    pub(crate) product: Option<String>,
    pub(crate) template: Option<String>,
    pub(crate) is_default: Flag,
    pub(crate) name: Option<String>,
    pub(crate) created_at: String,
    pub(crate) modified_at: String,
}

/// One item of an attribute value of a channel or a PEO (`owner` its id).
#[derive(Debug, FromRow)]
pub(crate) struct ValueRow {
    pub(crate) id: i64,
    pub(crate) owner: i64,
    /// The attribute definition's tid.
    pub(crate) attr: String,
    #[sqlx(rename = "type")]
    pub(crate) type_: Option<String>,
    pub(crate) origin: Option<String>,
    pub(crate) node: Option<String>,
    pub(crate) data_type: Option<String>,
    pub(crate) pos: Option<i64>,
    pub(crate) loc: Option<String>,
    pub(crate) value: String,
}

/// Whose attribute values to read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Values {
    /// Channels'.
    Channels,
    /// PEOs'.
    Peos,
}

/// The attribute values of the channels or PEOs of ids in `(after, last]`, by owner and id.
pub(crate) async fn values(
    connection: &mut AnyConnection,
    owners: Values,
    after: i64,
    last: i64,
) -> Result<Vec<ValueRow>, sqlx::Error> {
    let statement = match owners {
        Values::Channels => sql!(
            "SELECT v.id, v.channel_id AS owner, d.tid AS attr, v.type, v.origin, v.node, \
             v.data_type, v.pos, v.loc, v.value FROM attribute_values v \
             JOIN attribute_definitions d ON d.id = v.attribute_definition_id \
             WHERE v.channel_id > $1 AND v.channel_id <= $2 ORDER BY v.channel_id, v.id"
        ),
        Values::Peos => sql!(
            "SELECT v.id, v.peo_id AS owner, d.tid AS attr, v.type, v.origin, v.node, \
             v.data_type, v.pos, v.loc, v.value FROM attribute_values v \
             JOIN attribute_definitions d ON d.id = v.attribute_definition_id \
             WHERE v.peo_id > $1 AND v.peo_id <= $2 ORDER BY v.peo_id, v.id"
        ),
    };
    sqlx::query_as(statement)
        .bind(after)
        .bind(last)
        .fetch_all(connection)
        .await
}

/// A classification as exported, without what it owns.
#[derive(Debug, FromRow)]
pub(crate) struct ClassificationRow {
    pub(crate) id: i64,
    pub(crate) tid: String,
    pub(crate) created_at: String,
    pub(crate) modified_at: String,
}

/// A classification node as exported, without what it owns.
#[derive(Debug, FromRow)]
pub(crate) struct NodeRow {
    pub(crate) id: i64,
    pub(crate) path: String,
    pub(crate) position: i64,
}

/// A node attribute as exported, without its domain values.
#[derive(Debug, FromRow)]
pub(crate) struct NodeAttributeRow {
    pub(crate) id: i64,
    pub(crate) node_id: i64,
    /// The attribute definition's tid.
    pub(crate) key: String,
    pub(crate) level: Option<String>,
    pub(crate) inheritance: Option<String>,
    pub(crate) restriction: Option<String>,
    pub(crate) localized: Flag,
    pub(crate) allow_new_value: Option<Flag>,
    pub(crate) sort_direction: Option<String>,
    pub(crate) mode: Option<String>,
    pub(crate) default_value_tid: Option<String>,
}

/// A domain value as exported, without its names.
#[derive(Debug, FromRow)]
pub(crate) struct DomainValueRow {
    pub(crate) id: i64,
    pub(crate) node_attribute_id: i64,
    pub(crate) tid: String,
}

/// The nodes of a classification whose ids follow `after`, [`CHUNK`] at most, by id.
pub(crate) async fn nodes(
    connection: &mut AnyConnection,
    classification: i64,
    after: i64,
) -> Result<Vec<NodeRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, path, position FROM classification_nodes \
         WHERE classification_id = $1 AND id > $2 ORDER BY id LIMIT $3"
    ))
    .bind(classification)
    .bind(after)
    .bind(CHUNK)
    .fetch_all(connection)
    .await
}

/// The attributes of the nodes of ids in `(after, last]`, by node and id.
pub(crate) async fn node_attributes(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<NodeAttributeRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT a.id, a.node_id, (SELECT d.tid FROM attribute_definitions d \
         WHERE d.id = a.attribute_definition_id) AS key, a.level, a.inheritance, a.restriction, \
         CAST(a.localized AS INTEGER) AS localized, \
         CAST(a.allow_new_value AS INTEGER) AS allow_new_value, a.sort_direction, a.mode, \
         a.default_value_tid FROM node_attributes a WHERE a.node_id > $1 AND a.node_id <= $2 \
         ORDER BY a.node_id, a.id"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}

/// The domain values of the node attributes of ids in `(after, last]`, by attribute and
/// position.
pub(crate) async fn domain_values(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<DomainValueRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, node_attribute_id, tid FROM domain_values \
         WHERE node_attribute_id > $1 AND node_attribute_id <= $2 \
         ORDER BY node_attribute_id, position"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}

/// A briefing layout as exported, without its boxes.
#[derive(Debug, FromRow)]
pub(crate) struct LayoutRow {
    pub(crate) id: i64,
    /// The channel's tid.
    pub(crate) channel: String,
    pub(crate) module_cfg_tid: String,
    pub(crate) locale: Option<String>,
    pub(crate) layout_key: String,
    pub(crate) name: Option<String>,
    /// A JSON object of identifier to value.
    pub(crate) attributes: String,
}

/// A briefing box as exported, without its images.
#[derive(Debug, FromRow)]
pub(crate) struct BoxRow {
    pub(crate) id: i64,
    pub(crate) layout_id: i64,
    pub(crate) box_key: String,
    pub(crate) layer: Option<String>,
    pub(crate) name: Option<String>,
    #[sqlx(rename = "type")]
    pub(crate) type_: Option<String>,
    /// A JSON object of identifier to value.
    pub(crate) attributes: String,
}

/// A briefing image as exported.
#[derive(Debug, FromRow)]
pub(crate) struct ImageRow {
    pub(crate) id: i64,
    pub(crate) box_id: i64,
    #[sqlx(rename = "type")]
    pub(crate) type_: Option<String>,
    /// A JSON object of identifier to value.
    pub(crate) attributes: String,
}

/// The boxes of the layouts of ids in `(after, last]`, by layout and position.
pub(crate) async fn boxes(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<BoxRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, layout_id, box_key, layer, name, type, attributes FROM briefing_boxes \
         WHERE layout_id > $1 AND layout_id <= $2 ORDER BY layout_id, position"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}

/// The images of the boxes of ids in `(after, last]`, by box and position.
pub(crate) async fn images(
    connection: &mut AnyConnection,
    after: i64,
    last: i64,
) -> Result<Vec<ImageRow>, sqlx::Error> {
    sqlx::query_as(sql!(
        "SELECT id, box_id, type, attributes FROM briefing_images \
         WHERE box_id > $1 AND box_id <= $2 ORDER BY box_id, position"
    ))
    .bind(after)
    .bind(last)
    .fetch_all(connection)
    .await
}
