//! The database opens on both backends: SQLite always, PostgreSQL when `CORE_TEST_POSTGRES_URL`
//! names a server (`.ci/run` sets it when one answers).

use core_server::storage::{Backend, Database};

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
