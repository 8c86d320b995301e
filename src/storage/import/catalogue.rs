//! The upserts of the bootstrap's catalogue records: channels and their values, briefings,
//! classifications, glossaries, keywords, products and PEOs.

use sqlx::Row;

use super::Load;

/// A channel (`project`), its parent and type found already.
#[derive(Debug)]
pub(crate) struct ChannelRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    pub(crate) parent_id: Option<i64>,
    pub(crate) type_id: i64,
    pub(crate) order_sequence: Option<i64>,
    pub(crate) name: Option<&'a str>,
    pub(crate) html_icon: Option<&'a str>,
    pub(crate) icon: Option<&'a str>,
    /// `allowedFunctions`, comma-separated; none when there are none.
    pub(crate) allowed_functions: Option<&'a str>,
    /// When it was created, when new.
    pub(crate) created_at: &'a str,
    pub(crate) modified_at: &'a str,
}

/// Upserts a channel.
pub(crate) async fn upsert_channel(
    load: Load<'_, '_>,
    row: &ChannelRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO channels (id, tid, parent_id, type_id, order_sequence, name, html_icon, icon, \
         allowed_functions, created_at, modified_at) VALUES ($11, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         ON CONFLICT (tid) DO UPDATE SET parent_id = excluded.parent_id, type_id = excluded.type_id, \
         order_sequence = excluded.order_sequence, name = excluded.name, html_icon = excluded.html_icon, \
         icon = excluded.icon, allowed_functions = excluded.allowed_functions, modified_at = excluded.modified_at"),
    )
    .bind(row.tid)
    .bind(row.parent_id)
    .bind(row.type_id)
    .bind(row.order_sequence)
    .bind(row.name)
    .bind(row.html_icon)
    .bind(row.icon)
    .bind(row.allowed_functions)
    .bind(row.created_at)
    .bind(row.modified_at)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Links an asset to a channel.
pub(crate) async fn insert_channel_asset(
    load: Load<'_, '_>,
    channel: i64,
    asset: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO channel_assets (channel_id, asset_id) VALUES ($1, $2)"
    ))
    .bind(channel)
    .bind(asset)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// One item of an attribute value of a channel or a PEO (exactly one owner is set).
#[derive(Debug)]
pub(crate) struct ValueRow<'a> {
    /// The id it keeps; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) channel_id: Option<i64>,
    pub(crate) peo_id: Option<i64>,
    pub(crate) definition_id: i64,
    pub(crate) type_: Option<&'a str>,
    pub(crate) origin: Option<&'a str>,
    pub(crate) node: Option<&'a str>,
    pub(crate) data_type: Option<&'a str>,
    pub(crate) pos: Option<i64>,
    pub(crate) loc: Option<&'a str>,
    pub(crate) value: &'a str,
}

/// Stores one item of an attribute value.
pub(crate) async fn insert_value(
    load: Load<'_, '_>,
    row: &ValueRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO attribute_values (id, channel_id, peo_id, attribute_definition_id, type, \
         origin, node, data_type, pos, loc, value) \
         VALUES ($11, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    ))
    .bind(row.channel_id)
    .bind(row.peo_id)
    .bind(row.definition_id)
    .bind(row.type_)
    .bind(row.origin)
    .bind(row.node)
    .bind(row.data_type)
    .bind(row.pos)
    .bind(row.loc)
    .bind(row.value)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// A briefing layout of a channel, module configuration and locale.
#[derive(Debug)]
pub(crate) struct LayoutRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) channel_id: i64,
    pub(crate) module_cfg: &'a str,
    pub(crate) locale: &'a str,
    pub(crate) layout_key: &'a str,
    pub(crate) name: Option<&'a str>,
    /// Its attributes as a JSON object.
    pub(crate) attributes: &'a str,
}

/// Upserts a briefing layout; its id.
pub(crate) async fn upsert_layout(
    load: Load<'_, '_>,
    row: &LayoutRow<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO briefing_layouts (id, channel_id, module_cfg_tid, locale, layout_key, name, attributes) \
         VALUES ($7, $1, $2, $3, $4, $5, $6) ON CONFLICT (channel_id, module_cfg_tid, locale) DO UPDATE SET \
         layout_key = excluded.layout_key, name = excluded.name, attributes = excluded.attributes"),
    )
    .bind(row.channel_id)
    .bind(row.module_cfg)
    .bind(row.locale)
    .bind(row.layout_key)
    .bind(row.name)
    .bind(row.attributes)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    sqlx::query(
        sql!("SELECT id FROM briefing_layouts WHERE channel_id = $1 AND module_cfg_tid = $2 AND locale = $3"),
    )
    .bind(row.channel_id)
    .bind(row.module_cfg)
    .bind(row.locale)
    .fetch_one(&mut **load)
    .await?
    .try_get("id")
}

/// A box of a briefing layout.
#[derive(Debug)]
pub(crate) struct BoxRow<'a> {
    /// The id it keeps; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) layout_id: i64,
    pub(crate) box_key: &'a str,
    pub(crate) layer: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
    pub(crate) type_: Option<&'a str>,
    pub(crate) position: i64,
    /// Its attributes as a JSON object.
    pub(crate) attributes: &'a str,
}

/// Stores a briefing box; its id.
pub(crate) async fn insert_box(load: Load<'_, '_>, row: &BoxRow<'_>) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO briefing_boxes (id, layout_id, box_key, layer, name, type, position, attributes) \
         VALUES ($8, $1, $2, $3, $4, $5, $6, $7) RETURNING id"
    ))
    .bind(row.layout_id)
    .bind(row.box_key)
    .bind(row.layer)
    .bind(row.name)
    .bind(row.type_)
    .bind(row.position)
    .bind(row.attributes)
    .bind(row.id)
    .fetch_one(&mut **load)
    .await?
    .try_get("id")
}

/// An image of a briefing box (`attributes` a JSON object).
#[derive(Debug)]
pub(crate) struct ImageRow<'a> {
    /// The id it keeps; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) box_id: i64,
    pub(crate) type_: Option<&'a str>,
    pub(crate) position: i64,
    pub(crate) attributes: &'a str,
}

/// Stores an image of a briefing box.
pub(crate) async fn insert_image(
    load: Load<'_, '_>,
    row: &ImageRow<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO briefing_images (id, box_id, type, position, attributes) \
         VALUES ($5, $1, $2, $3, $4)"
    ))
    .bind(row.box_id)
    .bind(row.type_)
    .bind(row.position)
    .bind(row.attributes)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Upserts a classification; its id.
pub(crate) async fn upsert_classification(
    load: Load<'_, '_>,
    row: &ClassificationRow<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO classifications (id, tid, created_at, modified_at) VALUES ($4, $1, $2, $3) \
         ON CONFLICT (tid) DO UPDATE SET modified_at = excluded.modified_at"
    ))
    .bind(row.tid)
    .bind(row.created_at)
    .bind(row.modified_at)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    super::stored_id(load, super::Lookup::Classification, row.tid).await
}

/// A classification as a document gives it.
#[derive(Debug)]
pub(crate) struct ClassificationRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    /// When it was created, when new.
    pub(crate) created_at: &'a str,
    pub(crate) modified_at: &'a str,
}

/// The id of a classification's node by its path, if stored.
pub(crate) async fn node_id(
    load: Load<'_, '_>,
    classification: i64,
    path: &str,
) -> Result<Option<i64>, sqlx::Error> {
    match sqlx::query(sql!(
        "SELECT id FROM classification_nodes WHERE classification_id = $1 AND path = $2"
    ))
    .bind(classification)
    .bind(path)
    .fetch_optional(&mut **load)
    .await?
    {
        Some(row) => Ok(Some(row.try_get("id")?)),
        None => Ok(None),
    }
}

/// A node of a classification, its parent found already.
#[derive(Debug)]
pub(crate) struct NodeRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) classification_id: i64,
    pub(crate) parent_id: Option<i64>,
    pub(crate) identifier: &'a str,
    pub(crate) path: &'a str,
    pub(crate) position: i64,
}

/// Upserts a classification node; its id.
pub(crate) async fn upsert_node(load: Load<'_, '_>, row: &NodeRow<'_>) -> Result<i64, sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO classification_nodes (id, classification_id, parent_id, identifier, path, position) \
         VALUES ($6, $1, $2, $3, $4, $5) ON CONFLICT (classification_id, path) DO UPDATE SET \
         position = excluded.position"),
    )
    .bind(row.classification_id)
    .bind(row.parent_id)
    .bind(row.identifier)
    .bind(row.path)
    .bind(row.position)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    node_id(load, row.classification_id, row.path)
        .await?
        .ok_or(sqlx::Error::RowNotFound)
}

/// Classifies a product under a node, at `position` among the product's nodes (none: last).
pub(crate) async fn append_product_node(
    load: Load<'_, '_>,
    product: i64,
    node: i64,
    position: Option<i64>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO product_nodes (product_id, node_id, position) SELECT $1, $2, \
         COALESCE($3, MAX(position) + 1, 0) FROM product_nodes WHERE product_id = $1"
    ))
    .bind(product)
    .bind(node)
    .bind(position)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// An attribute of a classification node.
#[derive(Debug)]
pub(crate) struct NodeAttributeRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) node_id: i64,
    pub(crate) definition_id: i64,
    pub(crate) level: Option<&'a str>,
    pub(crate) inheritance: Option<&'a str>,
    pub(crate) restriction: Option<&'a str>,
    pub(crate) localized: bool,
    pub(crate) allow_new_value: Option<bool>,
    pub(crate) sort_direction: Option<&'a str>,
    pub(crate) mode: Option<&'a str>,
    /// The `tid` of its default domain value.
    pub(crate) default_value: Option<&'a str>,
}

/// Upserts a node attribute; its id.
pub(crate) async fn upsert_node_attribute(
    load: Load<'_, '_>,
    row: &NodeAttributeRow<'_>,
) -> Result<i64, sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO node_attributes (id, node_id, attribute_definition_id, level, inheritance, restriction, \
         localized, allow_new_value, sort_direction, mode, default_value_tid) \
         VALUES ($11, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         ON CONFLICT (node_id, attribute_definition_id) DO UPDATE SET level = excluded.level, \
         inheritance = excluded.inheritance, restriction = excluded.restriction, \
         localized = excluded.localized, allow_new_value = excluded.allow_new_value, \
         sort_direction = excluded.sort_direction, mode = excluded.mode, \
         default_value_tid = excluded.default_value_tid"),
    )
    .bind(row.node_id)
    .bind(row.definition_id)
    .bind(row.level)
    .bind(row.inheritance)
    .bind(row.restriction)
    .bind(row.localized)
    .bind(row.allow_new_value)
    .bind(row.sort_direction)
    .bind(row.mode)
    .bind(row.default_value)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    sqlx::query(sql!(
        "SELECT id FROM node_attributes WHERE node_id = $1 AND attribute_definition_id = $2"
    ))
    .bind(row.node_id)
    .bind(row.definition_id)
    .fetch_one(&mut **load)
    .await?
    .try_get("id")
}

/// Stores a domain value of a node attribute; its id.
pub(crate) async fn insert_domain_value(
    load: Load<'_, '_>,
    id: Option<i64>,
    attribute: i64,
    tid: &str,
    position: i64,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!("INSERT INTO domain_values (id, node_attribute_id, tid, position) VALUES ($4, $1, $2, $3) RETURNING id"))
        .bind(attribute)
        .bind(tid)
        .bind(position)
        .bind(id)
        .fetch_one(&mut **load)
        .await?
        .try_get("id")
}

/// Upserts a product, with the id and creation time it keeps when new; its id.
pub(crate) async fn upsert_product(
    load: Load<'_, '_>,
    id: Option<i64>,
    tid: &str,
    name: Option<&str>,
    created_at: &str,
) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO products (id, tid, name, created_at) VALUES ($4, $1, $2, $3) \
         ON CONFLICT (tid) DO UPDATE SET name = excluded.name"
    ))
    .bind(tid)
    .bind(name)
    .bind(created_at)
    .bind(id)
    .execute(&mut **load)
    .await?;
    super::stored_id(load, super::Lookup::Product, tid).await
}

/// Links an asset to a product with a link type, both by `tid` (nothing when either is missing).
pub(crate) async fn insert_product_asset(
    load: Load<'_, '_>,
    product: i64,
    position: i64,
    asset: &str,
    link_type: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        sql!("INSERT INTO product_assets (product_id, asset_id, link_type_id, position) \
         SELECT $1, a.id, d.id, $2 FROM assets a, attribute_definitions d WHERE a.tid = $3 AND d.tid = $4 \
         ON CONFLICT DO NOTHING"),
    )
    .bind(product)
    .bind(position)
    .bind(asset)
    .bind(link_type)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// A product export option, its product found already.
#[derive(Debug)]
pub(crate) struct PeoRow<'a> {
    /// The id it keeps when new; none: the next one.
    pub(crate) id: Option<i64>,
    pub(crate) tid: &'a str,
    pub(crate) product_id: Option<i64>,
    pub(crate) template: Option<&'a str>,
    pub(crate) is_default: bool,
    pub(crate) name: Option<&'a str>,
    /// When it was created, when new.
    pub(crate) created_at: &'a str,
    pub(crate) modified_at: &'a str,
}

/// Upserts a PEO; its id.
pub(crate) async fn upsert_peo(load: Load<'_, '_>, row: &PeoRow<'_>) -> Result<i64, sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO peos (id, tid, product_id, template, is_default, name, created_at, modified_at) \
         VALUES ($8, $1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tid) DO UPDATE SET \
         product_id = excluded.product_id, template = excluded.template, \
         is_default = excluded.is_default, name = excluded.name, modified_at = excluded.modified_at"
    ))
    .bind(row.tid)
    .bind(row.product_id)
    .bind(row.template)
    .bind(row.is_default)
    .bind(row.name)
    .bind(row.created_at)
    .bind(row.modified_at)
    .bind(row.id)
    .execute(&mut **load)
    .await?;
    super::stored_id(load, super::Lookup::Peo, row.tid).await
}

/// Stores a node of a PEO at its position.
pub(crate) async fn insert_peo_node(
    load: Load<'_, '_>,
    peo: i64,
    position: i64,
    node: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO peo_nodes (peo_id, position, node) VALUES ($1, $2, $3)"
    ))
    .bind(peo)
    .bind(position)
    .bind(node)
    .execute(&mut **load)
    .await?;
    Ok(())
}

/// Links a channel to a PEO (kept when it is).
pub(crate) async fn insert_peo_channel(
    load: Load<'_, '_>,
    peo: i64,
    channel: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO peo_channels (peo_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    ))
    .bind(peo)
    .bind(channel)
    .execute(&mut **load)
    .await?;
    Ok(())
}
