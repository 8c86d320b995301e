//! The SQL of attribute values (`vals/val`) of channels and PEOs: value items are read with
//! their owner (`value_columns!`, in channel and PEO retrieve), and replaced attribute by
//! attribute by channels persist.

use sqlx::AnyConnection;

/// One stored value item with what its `val` shows (read from a JSON array in this field order).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Item {
    /// The channel or PEO that owns it.
    pub(crate) owner: i64,
    /// The attribute definition's id.
    pub(crate) definition: i64,
    /// The attribute definition's tid (`attr`).
    pub(crate) attr: String,
    /// `multiple`, `localized` or none.
    pub(crate) kind: Option<String>,
    /// `origin`.
    pub(crate) origin: Option<String>,
    /// `node`.
    pub(crate) node: Option<String>,
    /// `dataType`: as saved, else the definition's type.
    pub(crate) data_type: String,
    /// `pos`.
    pub(crate) pos: Option<i64>,
    /// `loc`.
    pub(crate) loc: Option<String>,
    /// The text.
    pub(crate) value: String,
}

/// The definition of an attribute registered for channels, by tid: its id.
pub(crate) async fn registered(
    connection: &mut AnyConnection,
    attr: &str,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(sql!(
        "SELECT d.id FROM attribute_definitions d \
         JOIN channel_attributes c ON c.attribute_definition_id = d.id WHERE d.tid = $1"
    ))
    .bind(attr.to_string())
    .fetch_optional(connection)
    .await
}

/// Removes a channel's items of an attribute: all of them, or (`locales` given) those in the
/// listed locales and those that are not localized.
pub(crate) async fn clear(
    connection: &mut AnyConnection,
    channel: i64,
    definition: i64,
    locales: Option<&[String]>,
) -> Result<(), sqlx::Error> {
    match locales {
        None => {
            sqlx::query(
                sql!("DELETE FROM attribute_values WHERE channel_id = $1 AND attribute_definition_id = $2"),
            )
            .bind(channel)
            .bind(definition)
            .execute(connection)
            .await?;
        }
        Some(locales) => {
            sqlx::query(
                sql!("DELETE FROM attribute_values WHERE channel_id = $1 AND attribute_definition_id = $2 \
                 AND (type IS NULL OR type <> 'localized')"),
            )
            .bind(channel)
            .bind(definition)
            .execute(&mut *connection)
            .await?;
            for loc in locales {
                sqlx::query(sql!(
                    "DELETE FROM attribute_values WHERE channel_id = $1 \
                     AND attribute_definition_id = $2 AND loc = $3"
                ))
                .bind(channel)
                .bind(definition)
                .bind(loc.clone())
                .execute(&mut *connection)
                .await?;
            }
        }
    }
    Ok(())
}

/// A value item to store for a channel.
#[derive(Debug)]
pub(crate) struct NewItem<'a> {
    /// The attribute definition.
    pub(crate) definition: i64,
    /// `multiple`, `localized` or none.
    pub(crate) kind: Option<&'a str>,
    /// `origin`.
    pub(crate) origin: Option<&'a str>,
    /// `node`.
    pub(crate) node: Option<&'a str>,
    /// `dataType`.
    pub(crate) data_type: Option<&'a str>,
    /// `pos`.
    pub(crate) pos: Option<i64>,
    /// `loc`.
    pub(crate) loc: Option<&'a str>,
    /// The text.
    pub(crate) value: &'a str,
}

/// Stores a value item of a channel.
pub(crate) async fn insert(
    connection: &mut AnyConnection,
    channel: i64,
    item: &NewItem<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sql!(
        "INSERT INTO attribute_values (channel_id, attribute_definition_id, type, origin, node, \
         data_type, pos, loc, value) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
    ))
    .bind(channel)
    .bind(item.definition)
    .bind(item.kind.map(str::to_string))
    .bind(item.origin.map(str::to_string))
    .bind(item.node.map(str::to_string))
    .bind(item.data_type.map(str::to_string))
    .bind(item.pos)
    .bind(item.loc.map(str::to_string))
    .bind(item.value.to_string())
    .execute(connection)
    .await?;
    Ok(())
}
