//! Helpers for the tests of this workspace that need a database of their own.

/// Creates an empty schema in the PostgreSQL database `url` names and gives a URL whose
/// connections use it (`options[search_path]`), so that a test starts from nothing on a server
/// that keeps its data between runs.
pub async fn fresh_postgres_schema(url: &str) -> Result<String, sqlx::Error> {
    create_schema(url, None).await
}

/// The role of [`plain_role_postgres_schema`]: no superuser, no grant beyond its schema.
pub const PLAIN_ROLE: &str = "core_test_plain";

/// A fresh schema ([`fresh_postgres_schema`]) owned by [`PLAIN_ROLE`] (made when missing), and
/// a URL whose connections act as that role (`options[role]`): what a service sees that is given
/// a database role of its own rather than a superuser.
pub async fn plain_role_postgres_schema(url: &str) -> Result<String, sqlx::Error> {
    let schema_url = create_schema(url, Some(PLAIN_ROLE)).await?;
    Ok(format!("{schema_url}&options[role]={PLAIN_ROLE}"))
}

/// Creates a schema of a unique name, owned by `owner` (none: the URL's user; a role made when
/// missing, without login), and gives a URL whose connections use it.
async fn create_schema(url: &str, owner: Option<&str>) -> Result<String, sqlx::Error> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_micros())
        .unwrap_or_default();
    let schema = format!(
        "test_{since}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let authorization = owner.map_or(String::new(), |owner| format!(" AUTHORIZATION {owner}"));
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await?;
    if let Some(owner) = owner {
        // Roles belong to the whole server: tests running together may make it at once.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DO $$ BEGIN CREATE ROLE {owner} NOLOGIN; \
             EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
        )))
        .execute(&pool)
        .await?;
    }
    // The name is made of digits and underscores only.
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE SCHEMA {schema}{authorization}"
    )))
    .execute(&pool)
    .await?;
    pool.close().await;
    let separator = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{separator}options[search_path]={schema}"))
}

/// Drops the schema a database opened with a URL of [`fresh_postgres_schema`] works in; does
/// nothing on SQLite.
pub async fn drop_postgres_schema(database: &crate::storage::Database) -> Result<(), sqlx::Error> {
    if database.backend() != crate::storage::Backend::Postgres {
        return Ok(());
    }
    let schema: String = sqlx::Row::try_get(
        &sqlx::query(sql!(postgres: "SELECT CAST(current_schema() AS TEXT) AS schema"))
            .fetch_one(database.reads())
            .await?,
        "schema",
    )?;
    if schema.starts_with("test_") {
        sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
            .execute(database.writes())
            .await?;
    }
    Ok(())
}

/// A fresh schema ([`fresh_postgres_schema`]) in the database `CORE_TEST_POSTGRES_URL` names,
/// or none when it is not set, saying so with what the test then did (`skipped`, or what it
/// tested on SQLite only), so that a run shows what it left out.
pub async fn configured_postgres_schema(otherwise: &str) -> Result<Option<String>, sqlx::Error> {
    match std::env::var("CORE_TEST_POSTGRES_URL") {
        Ok(base) => fresh_postgres_schema(&base).await.map(Some),
        Err(_) => {
            eprintln!("CORE_TEST_POSTGRES_URL is not set: {otherwise}");
            Ok(None)
        }
    }
}
