//! The database opens on both backends: SQLite always, PostgreSQL when `CORE_TEST_POSTGRES_URL`
//! names a server (`.ci/run` sets it when one answers).

use core_server::storage::{Backend, Database, StorageError};

#[tokio::test]
async fn sqlite_file_opens_and_answers() {
    let folder = std::env::temp_dir().join(format!("core-server-storage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let database = Database::connect(&format!("sqlite://{}/nested/core.db", folder.display()))
        .await
        .expect("opens");
    assert_eq!(database.backend(), Backend::Sqlite);
    database.ping().await.expect("answers");
    assert!(folder.join("nested/core.db").exists());
    let _ = std::fs::remove_dir_all(&folder);
}

/// A database a newer core-server migrated (it holds a migration this one does not know) is
/// refused at start with what to do, not with the migrator's words.
#[tokio::test]
async fn a_database_of_a_newer_core_server_is_refused_naming_its_migration() {
    let folder = std::env::temp_dir().join(format!("core-server-newer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    let database = Database::connect(&url).await.expect("opens");
    database.close().await;
    let file = rusqlite::Connection::open(folder.join("core.db")).expect("opens the file");
    let known: i64 = file
        .query_row("SELECT max(version) FROM _sqlx_migrations", [], |row| {
            row.get(0)
        })
        .expect("the last migration");
    file.execute(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         SELECT version + 1, 'of a newer core-server', success, checksum, execution_time \
         FROM _sqlx_migrations WHERE version = ?1",
        [known],
    )
    .expect("a migration of a newer core-server");
    drop(file);
    let refused = Database::connect(&url).await.expect_err("refused");
    assert!(
        matches!(refused, StorageError::Newer { applied, known: said } if applied == known + 1 && said == known),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        format!(
            "the database holds migration {}, and this core-server knows migrations up to {known}: \
             a newer core-server migrated it; run that version or a newer one",
            known + 1
        )
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test]
async fn postgres_opens_and_answers_when_configured() {
    let Ok(url) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: the PostgreSQL backend was not tested");
        return;
    };
    let database = Database::connect(&url).await.expect("opens");
    assert_eq!(database.backend(), Backend::Postgres);
    database.ping().await.expect("answers");
    eprintln!("the PostgreSQL backend was tested at {url}");
}

/// The tables and columns of a database, as `table.column` names in order.
async fn columns(database: &Database) -> Vec<String> {
    let query = match database.backend() {
        Backend::Sqlite => {
            "SELECT m.name || '.' || p.name AS col FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> '_sqlx_migrations'"
        }
        Backend::Postgres => {
            "SELECT table_name || '.' || column_name AS col FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name <> '_sqlx_migrations'"
        }
    };
    let mut names: Vec<String> = sqlx::query(query)
        .fetch_all(database.reads())
        .await
        .expect("the catalogue answers")
        .iter()
        .map(|row| sqlx::Row::try_get::<String, _>(row, "col").expect("a name"))
        .collect();
    names.sort();
    names
}

#[test]
fn both_dialects_have_the_same_migrations() {
    let list = |dialect: &str| {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/").to_string() + dialect;
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .expect("the folder")
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(list("sqlite"), list("postgres"));
}

#[tokio::test]
async fn sqlite_enforces_foreign_keys_and_uses_wal() {
    let folder = std::env::temp_dir().join(format!("core-server-fk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let database = Database::connect(&format!("sqlite://{}/core.db", folder.display()))
        .await
        .expect("opens");
    let orphan =
        sqlx::query("INSERT INTO keyword_names (keyword_id, loc, name) VALUES (999, 'de_DE', 'x')")
            .execute(database.writes())
            .await;
    assert!(orphan.is_err(), "a row naming a missing keyword is refused");
    let mode: String = sqlx::query("PRAGMA journal_mode")
        .fetch_one(database.reads())
        .await
        .and_then(|row| sqlx::Row::try_get(&row, 0))
        .expect("a mode");
    assert_eq!(mode, "wal");
    assert!(
        columns(&database)
            .await
            .contains(&"keywords.path".to_string())
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// The PostgreSQL migrations define exactly the tables and columns of the SQLite ones.
#[tokio::test]
async fn postgres_schema_matches_sqlite_when_configured() {
    let Ok(url) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: the PostgreSQL schema was not compared");
        return;
    };
    let sqlite = Database::connect("sqlite::memory:").await.expect("opens");
    let postgres = Database::connect(&url).await.expect("opens");
    let expected = columns(&sqlite).await;
    let tables: Vec<&str> = expected
        .iter()
        .filter_map(|name| name.split('.').next())
        .collect();
    let found: Vec<String> = columns(&postgres)
        .await
        .into_iter()
        .filter(|name| {
            name.split('.')
                .next()
                .is_some_and(|table| tables.contains(&table))
        })
        .collect();
    assert_eq!(found, expected);
    eprintln!(
        "the PostgreSQL schema matches SQLite's: {} columns",
        expected.len()
    );
}
