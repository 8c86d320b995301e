//! The callers a server keeps in memory (D-02): a verified token is answered without the
//! database until the access revision moves, and a revocation made by another process holds
//! within `REVISION_CHECK`. On SQLite always, on PostgreSQL too when `CORE_TEST_POSTGRES_URL` is
//! set.

use std::time::Duration;

use core_server::{
    auth::{self, Callers, REVISION_CHECK, Revoke},
    storage::Database,
};

async fn kept_until_the_revision_moves(database: &Database) {
    let user = format!("kept-{}", std::process::id());
    let token = auth::issue(database, &user, &[auth::ADMIN.to_string()])
        .await
        .expect("a token");
    let header = format!("Bearer {token}");
    let callers = Callers::default();
    let first = callers
        .authenticate(database, Some(header.as_bytes()))
        .await
        .expect("verified");
    // Kept: the same caller, not read again.
    let again = callers
        .authenticate(database, Some(header.as_bytes()))
        .await
        .expect("kept");
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    // A wrong secret for a kept selector is refused without the database.
    let (selector, _) = token.split_once('.').expect("selector.secret");
    let wrong = format!("Bearer {selector}.{}", "0".repeat(64));
    assert!(
        callers
            .authenticate(database, Some(wrong.as_bytes()))
            .await
            .is_err()
    );
    // Another process revokes: the server sees it within the bound, never later.
    auth::revoke(database, Revoke::Token(&token))
        .await
        .expect("revoked");
    // Within the bound the kept caller may still answer; once the bound has passed since the
    // revocation, the next request looks at the revision and is refused, whatever the load.
    tokio::time::sleep(REVISION_CHECK + Duration::from_millis(10)).await;
    assert!(
        callers
            .authenticate(database, Some(header.as_bytes()))
            .await
            .is_err(),
        "a revoked token is refused once the bound has passed"
    );
}

#[tokio::test]
async fn sqlite_keeps_callers_until_the_revision_moves() {
    let database = Database::connect("sqlite::memory:").await.expect("opens");
    kept_until_the_revision_moves(&database).await;
}

#[tokio::test]
async fn postgres_keeps_callers_until_the_revision_moves_when_configured() {
    let Some(url) =
        core_server::testing::configured_postgres_schema("kept callers were tested on SQLite only")
            .await
            .expect("a fresh schema")
    else {
        return;
    };
    let database = Database::connect(&url).await.expect("PostgreSQL opens");
    kept_until_the_revision_moves(&database).await;
    core_server::testing::drop_postgres_schema(&database)
        .await
        .expect("dropped");
}

/// An unknown token costs one lookup: refused again from memory (the database could be gone)
/// until the access revision moves, and a token issued since is then accepted.
#[tokio::test]
async fn an_unknown_token_is_looked_up_once_per_revision() {
    let folder = std::env::temp_dir().join(format!("core-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    let database = Database::connect(&url).await.expect("opens");
    let callers = Callers::default();
    let unknown = format!("Bearer {}.{}", "1".repeat(16), "2".repeat(64));
    let refused = callers
        .authenticate(&database, Some(unknown.as_bytes()))
        .await;
    assert!(matches!(refused, Err(auth::AuthError::Failure(_))));
    // With the database closed, a lookup would fail (500); the refusal kept answers (401).
    database.close().await;
    let again = callers
        .authenticate(&database, Some(unknown.as_bytes()))
        .await;
    assert!(
        matches!(again, Err(auth::AuthError::Failure(_))),
        "refused from memory, not looked up: {again:?}"
    );
    // A new revision (another process issues a token) drops the refusals kept.
    let reopened = Database::connect(&url).await.expect("opens again");
    let token = auth::issue(&reopened, "late", &[auth::ADMIN.to_string()])
        .await
        .expect("a token");
    tokio::time::sleep(REVISION_CHECK + Duration::from_millis(10)).await;
    let header = format!("Bearer {token}");
    assert!(
        callers
            .authenticate(&reopened, Some(header.as_bytes()))
            .await
            .is_ok()
    );
    let unknown_again = callers
        .authenticate(&reopened, Some(unknown.as_bytes()))
        .await;
    assert!(matches!(unknown_again, Err(auth::AuthError::Failure(_))));
    reopened.close().await;
    let _ = std::fs::remove_dir_all(&folder);
}
