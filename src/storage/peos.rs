//! The SQL of PEOs: their links to channels.

use sqlx::AnyConnection;

/// Links a PEO to a channel; linking it again changes nothing.
pub(crate) async fn link_channel(
    connection: &mut AnyConnection,
    peo: i64,
    channel: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO peo_channels (peo_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(peo)
    .bind(channel)
    .execute(connection)
    .await?;
    Ok(())
}
