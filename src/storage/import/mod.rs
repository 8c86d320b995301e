//! The SQL of `core-server import` (the bootstrap document, `src/bootstrap`): upserts by
//! identity and the replacement of what a record owns, inside the load's one transaction.

mod bulk;
mod catalogue;
mod glossary;
mod records;
mod references;

pub(crate) use bulk::*;
pub(crate) use catalogue::*;
pub(crate) use glossary::*;
pub(crate) use records::*;
pub(crate) use references::ReferenceChecks;
use sqlx::{Any, Row, Transaction};

/// The load's transaction.
pub(crate) type Load<'t, 'c> = &'t mut Transaction<'c, Any>;

/// A kind of record found by its identity (a `tid`, a name or a path).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lookup {
    /// An asset, by `tid`.
    Asset,
    /// An attribute definition, by `tid`.
    AttributeDefinition,
    /// A channel, by `tid`.
    Channel,
    /// A channel type, by name.
    ChannelType,
    /// A classification, by `tid`.
    Classification,
    /// A glossary, by `tid`.
    Glossary,
    /// A glossary entry, by `tid`.
    GlossaryEntry,
    /// A keyword, by path.
    Keyword,
    /// A product export option, by `tid`.
    Peo,
    /// A product, by `tid`.
    Product,
}

impl Lookup {
    fn statement(self) -> &'static str {
        match self {
            Lookup::Asset => sql!("SELECT id FROM assets WHERE tid = $1"),
            Lookup::AttributeDefinition => {
                sql!("SELECT id FROM attribute_definitions WHERE tid = $1")
            }
            Lookup::Channel => sql!("SELECT id FROM channels WHERE tid = $1"),
            Lookup::ChannelType => sql!("SELECT id FROM channel_types WHERE name = $1"),
            Lookup::Classification => sql!("SELECT id FROM classifications WHERE tid = $1"),
            Lookup::Glossary => sql!("SELECT id FROM glossaries WHERE tid = $1"),
            Lookup::GlossaryEntry => sql!("SELECT id FROM glossary_entries WHERE tid = $1"),
            Lookup::Keyword => sql!("SELECT id FROM keywords WHERE path = $1"),
            Lookup::Peo => sql!("SELECT id FROM peos WHERE tid = $1"),
            Lookup::Product => sql!("SELECT id FROM products WHERE tid = $1"),
        }
    }
}

/// The id of a record by its identity, if stored.
pub(crate) async fn id_of(
    load: Load<'_, '_>,
    lookup: Lookup,
    key: &str,
) -> Result<Option<i64>, sqlx::Error> {
    match sqlx::query(lookup.statement())
        .bind(key)
        .fetch_optional(&mut **load)
        .await?
    {
        Some(row) => Ok(Some(row.try_get("id")?)),
        None => Ok(None),
    }
}

/// The id of a record just written, by its identity.
pub(crate) async fn stored_id(
    load: Load<'_, '_>,
    lookup: Lookup,
    key: &str,
) -> Result<i64, sqlx::Error> {
    id_of(load, lookup, key)
        .await?
        .ok_or(sqlx::Error::RowNotFound)
}

/// What a record owns that a second load replaces: cleared by the owner's id.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Owned {
    /// A role's grants.
    RoleGrants,
    /// A token's roles.
    TokenRoles,
    /// A briefing layout's boxes (their images go with them).
    BriefingBoxes,
    /// A channel's attribute values.
    ChannelValues,
    /// A channel's asset links.
    ChannelAssets,
    /// A classification's names.
    ClassificationNames,
    /// A classification node's names.
    NodeNames,
    /// The products classified under a node.
    NodeProducts,
    /// A node attribute's domain values.
    DomainValues,
    /// A glossary entry's translations.
    Translations,
    /// A PEO's nodes.
    PeoNodes,
    /// A PEO's channels.
    PeoChannels,
    /// A PEO's attribute values.
    PeoValues,
    /// A product's asset links.
    ProductAssets,
}

impl Owned {
    fn statement(self) -> &'static str {
        match self {
            Owned::RoleGrants => sql!("DELETE FROM role_grants WHERE role_id = $1"),
            Owned::TokenRoles => sql!("DELETE FROM token_roles WHERE token_id = $1"),
            Owned::BriefingBoxes => sql!("DELETE FROM briefing_boxes WHERE layout_id = $1"),
            Owned::ChannelValues => sql!("DELETE FROM attribute_values WHERE channel_id = $1"),
            Owned::ChannelAssets => sql!("DELETE FROM channel_assets WHERE channel_id = $1"),
            Owned::ClassificationNames => {
                sql!("DELETE FROM classification_names WHERE classification_id = $1")
            }
            Owned::NodeNames => sql!("DELETE FROM node_names WHERE node_id = $1"),
            Owned::NodeProducts => sql!("DELETE FROM product_nodes WHERE node_id = $1"),
            Owned::DomainValues => sql!("DELETE FROM domain_values WHERE node_attribute_id = $1"),
            Owned::Translations => sql!("DELETE FROM glossary_translations WHERE entry_id = $1"),
            Owned::PeoNodes => sql!("DELETE FROM peo_nodes WHERE peo_id = $1"),
            Owned::PeoChannels => sql!("DELETE FROM peo_channels WHERE peo_id = $1"),
            Owned::PeoValues => sql!("DELETE FROM attribute_values WHERE peo_id = $1"),
            Owned::ProductAssets => sql!("DELETE FROM product_assets WHERE product_id = $1"),
        }
    }
}

/// Removes what `owner` owns of one kind.
pub(crate) async fn clear(load: Load<'_, '_>, owned: Owned, owner: i64) -> Result<(), sqlx::Error> {
    sqlx::query(owned.statement())
        .bind(owner)
        .execute(&mut **load)
        .await?;
    Ok(())
}

/// A kind of localized name: its owner's id, a locale and a text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Names {
    /// A classification's name.
    Classification,
    /// A classification node's name.
    Node,
    /// A domain value's text.
    DomainValue,
}

/// Stores one localized name.
pub(crate) async fn insert_name(
    load: Load<'_, '_>,
    names: Names,
    owner: i64,
    loc: &str,
    text: &str,
) -> Result<(), sqlx::Error> {
    let statement = match names {
        Names::Classification => {
            sql!(
                "INSERT INTO classification_names (classification_id, loc, name) VALUES ($1, $2, $3)"
            )
        }
        Names::Node => sql!("INSERT INTO node_names (node_id, loc, name) VALUES ($1, $2, $3)"),
        Names::DomainValue => {
            sql!("INSERT INTO domain_value_names (domain_value_id, loc, value) VALUES ($1, $2, $3)")
        }
    };
    sqlx::query(statement)
        .bind(owner)
        .bind(loc)
        .bind(text)
        .execute(&mut **load)
        .await?;
    Ok(())
}

/// Replaces the roles a record (`kind`: `asset`, `product`, `peo`) is restricted to, by role id.
pub(crate) async fn restrict(
    load: Load<'_, '_>,
    kind: &str,
    record: i64,
    roles: &[i64],
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "DELETE FROM access_restrictions WHERE kind = $1 AND record_id = $2"
    ))
    .bind(kind)
    .bind(record)
    .execute(&mut **load)
    .await?;
    for role in roles {
        sqlx::query(sql!(
            "INSERT INTO access_restrictions (kind, record_id, role_id) VALUES ($1, $2, $3)"
        ))
        .bind(kind)
        .bind(record)
        .bind(role)
        .execute(&mut **load)
        .await?;
    }
    Ok(())
}
