//! How the references of the rows a load writes are checked (D-01, D-60). PostgreSQL's foreign
//! keys check each row as it is written, a lookup and a row lock each (13 of the 21 s that
//! PostgreSQL alone takes to store a million keywords with two names each, however they are
//! sent). A role that may set `session_replication_role` writes with those checks off
//! (`replica` turns off every trigger but those marked `ALWAYS` or `REPLICA`; none is) and then
//! checks what it wrote itself, in one statement:
//! - an import, chunk by chunk of keywords and names ([`ReferenceChecks::resume`]): a keyword or
//!   name of the chunk refers either to a keyword this load stored (it exists: nothing else
//!   writes while a load runs, and the load deletes no keyword) or to one stored before, which
//!   that statement finds and locks as each row's check would have (`FOR KEY SHARE`, to the
//!   load's end). The chunk's asset links, and everything else the import writes, are checked
//!   by the database.
//! - `core-server migrate`, once for the whole copy into its empty target
//!   ([`ReferenceChecks::resume_all`]): every foreign key of the schema by one anti-join each
//!   (`check_references()`, migration 0016), and the access revision counted up once for the
//!   triggers that did not run.

use sqlx::{Connection, Row};

use super::Load;
use crate::storage::{Backend, backend_of, json_text};

/// PostgreSQL's answer to a setting the role may not change (`insufficient_privilege`).
const INSUFFICIENT_PRIVILEGE: &str = "42501";

/// Who checks the references of the rows a load writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReferenceChecks {
    /// The database, row by row: SQLite (its checks are part of the statement, and cheap), or
    /// a PostgreSQL role that may not set `session_replication_role`.
    PerRow,
    /// The load itself, after writing with PostgreSQL's reference triggers off: a chunk of
    /// keywords and names (import), or the whole copy (migrate).
    Deferred,
}

impl ReferenceChecks {
    /// How this load's references are checked: deferred where the role may turn PostgreSQL's
    /// triggers off for its own transaction (a superuser, or one granted `SET` on
    /// `session_replication_role`) and they are on; per row otherwise.
    pub(crate) async fn of(load: Load<'_, '_>) -> Result<ReferenceChecks, sqlx::Error> {
        if backend_of(load) == Backend::Sqlite {
            return Ok(ReferenceChecks::PerRow);
        }
        if replication_role(load).await? != "origin" {
            return Ok(ReferenceChecks::PerRow);
        }
        // Tried in a savepoint: a refusal fails the statement, and only the savepoint with it.
        let mut trial = (**load).begin().await?;
        match sqlx::query("SET LOCAL session_replication_role = origin")
            .execute(&mut *trial)
            .await
        {
            Ok(_) => {
                trial.commit().await?;
                Ok(ReferenceChecks::Deferred)
            }
            Err(sqlx::Error::Database(error))
                if error.code().as_deref() == Some(INSUFFICIENT_PRIVILEGE) =>
            {
                trial.rollback().await?;
                Ok(ReferenceChecks::PerRow)
            }
            Err(error) => Err(error),
        }
    }

    /// Turns PostgreSQL's reference triggers off for what the load writes next (deferred);
    /// nothing per row.
    pub(crate) async fn suspend(self, load: Load<'_, '_>) -> Result<(), sqlx::Error> {
        if self == ReferenceChecks::Deferred {
            sqlx::query("SET LOCAL session_replication_role = replica")
                .execute(&mut **load)
                .await?;
        }
        Ok(())
    }

    /// Checks a chunk written since [`ReferenceChecks::suspend`] and turns the triggers back
    /// on (deferred): `stored` are the keywords stored before the load that its rows refer
    /// to, which are locked as each row's check would have locked them; an error if one of
    /// them is gone. Nothing per row.
    pub(crate) async fn resume(
        self,
        load: Load<'_, '_>,
        stored: &[i64],
    ) -> Result<(), sqlx::Error> {
        if self == ReferenceChecks::PerRow {
            return Ok(());
        }
        let mut stored = stored.to_vec();
        stored.sort_unstable();
        stored.dedup();
        if !stored.is_empty() {
            let held: i64 = sqlx::query(sql!(postgres:
                "SELECT COUNT(*) AS held FROM (SELECT k.id FROM keywords k WHERE k.id = ANY \
                 (ARRAY(SELECT CAST(json_array_elements_text(CAST($1 AS JSON)) AS BIGINT))) \
                 FOR KEY SHARE OF k) h"
            ))
            .bind(json_text(&stored)?)
            .fetch_one(&mut **load)
            .await?
            .try_get("held")?;
            if usize::try_from(held).ok() != Some(stored.len()) {
                return Err(sqlx::Error::RowNotFound);
            }
        }
        sqlx::query("SET LOCAL session_replication_role = origin")
            .execute(&mut **load)
            .await?;
        Ok(())
    }

    /// Checks everything written since [`ReferenceChecks::suspend`] into a database that was
    /// empty (deferred): every foreign key of the schema, by `check_references()`, which fails
    /// as the per-row check would; then turns the triggers back on and counts the access
    /// revision up, as the triggers of the users, roles and tokens written would have. Nothing
    /// per row.
    pub(crate) async fn resume_all(self, load: Load<'_, '_>) -> Result<(), sqlx::Error> {
        if self == ReferenceChecks::PerRow {
            return Ok(());
        }
        let _checked: i32 =
            sqlx::query_scalar(sql!(postgres: "SELECT check_references() AS checked"))
                .fetch_one(&mut **load)
                .await?;
        sqlx::query("SET LOCAL session_replication_role = origin")
            .execute(&mut **load)
            .await?;
        sqlx::query(sql!(postgres:
            "UPDATE access_revision SET revision = revision + 1 WHERE id = 1"
        ))
        .execute(&mut **load)
        .await?;
        Ok(())
    }
}

/// The `session_replication_role` of the load's transaction (`origin` unless set).
async fn replication_role(load: Load<'_, '_>) -> Result<String, sqlx::Error> {
    sqlx::query_scalar(sql!(postgres:
        "SELECT current_setting('session_replication_role') AS role"
    ))
    .fetch_one(&mut **load)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        storage::Database,
        testing::{configured_postgres_schema, drop_postgres_schema, plain_role_postgres_schema},
    };

    #[tokio::test]
    async fn sqlite_leaves_its_checks_to_each_row() {
        let database = Database::connect("sqlite::memory:").await.expect("opens");
        let mut load = database.write().await.expect("a transaction");
        let checks = ReferenceChecks::of(&mut load).await.expect("decided");
        assert_eq!(checks, ReferenceChecks::PerRow);
        checks.suspend(&mut load).await.expect("nothing to do");
        checks.resume(&mut load, &[1]).await.expect("nothing to do");
    }

    /// A database on a fresh schema of the configured PostgreSQL server, and a load's
    /// transaction on it; none when no server is configured.
    async fn configured_load() -> Option<(Database, sqlx::Transaction<'static, sqlx::Any>)> {
        let url = configured_postgres_schema("skipped")
            .await
            .expect("a schema")?;
        let database = Database::connect(&url).await.expect("opens");
        let load = database.write().await.expect("a transaction");
        Some((database, load))
    }

    /// A whole copy is checked once: its references hold, the triggers are back on and the
    /// access revision moved; a row that refers to nothing fails as the per-row check would.
    #[tokio::test]
    async fn postgres_checks_a_whole_copy_once_when_the_role_may_and_configured() {
        let Some((database, mut load)) = configured_load().await else {
            return;
        };
        let revision = || {
            sqlx::query_scalar::<_, i64>(sql!(postgres:
                "SELECT CAST(revision AS BIGINT) AS revision FROM access_revision WHERE id = 1"
            ))
        };
        let checks = ReferenceChecks::of(&mut load).await.expect("decided");
        if checks == ReferenceChecks::Deferred {
            let before = revision().fetch_one(&mut *load).await.expect("read");
            checks.suspend(&mut load).await.expect("suspended");
            checks.resume_all(&mut load).await.expect("nothing broken");
            assert_eq!(
                replication_role(&mut load).await.expect("the setting"),
                "origin"
            );
            let after = revision().fetch_one(&mut *load).await.expect("read");
            assert_eq!(after, before + 1);
            checks.suspend(&mut load).await.expect("suspended");
            sqlx::query(sql!(postgres:
                "INSERT INTO keyword_names (keyword_id, loc, name) VALUES (999999, 'en_GB', 'gone')"
            ))
            .execute(&mut *load)
            .await
            .expect("written with the checks off");
            let broken = checks.resume_all(&mut load).await;
            let code = match &broken {
                Err(sqlx::Error::Database(error)) => error.code().map(|code| code.to_string()),
                _ => None,
            };
            assert_eq!(code.as_deref(), Some("23503"), "{broken:?}");
        } else {
            eprintln!("CORE_TEST_POSTGRES_URL's role may not set the role: deferred not tried");
        }
        drop(load);
        drop_postgres_schema(&database).await.expect("dropped");
        database.close().await;
    }

    /// A superuser checks per chunk: the triggers are off between `suspend` and `resume` only,
    /// and a stored keyword gone meanwhile fails the chunk. A role of its own checks per row,
    /// and trying costs its transaction nothing.
    #[tokio::test]
    async fn postgres_checks_per_chunk_when_the_role_may_and_configured() {
        let Some((database, mut load)) = configured_load().await else {
            return;
        };
        let superuser: String = sqlx::query_scalar(sql!(postgres:
            "SELECT current_setting('is_superuser') AS superuser"
        ))
        .fetch_one(&mut *load)
        .await
        .expect("the setting");
        let checks = ReferenceChecks::of(&mut load).await.expect("decided");
        if superuser == "on" {
            assert_eq!(checks, ReferenceChecks::Deferred);
            checks.suspend(&mut load).await.expect("suspended");
            assert_eq!(
                replication_role(&mut load).await.expect("the setting"),
                "replica"
            );
            checks.resume(&mut load, &[]).await.expect("resumed");
            assert_eq!(
                replication_role(&mut load).await.expect("the setting"),
                "origin"
            );
            checks.suspend(&mut load).await.expect("suspended");
            let gone = checks.resume(&mut load, &[1, 1]).await;
            assert!(matches!(gone, Err(sqlx::Error::RowNotFound)), "{gone:?}");
        } else {
            eprintln!("CORE_TEST_POSTGRES_URL's role is no superuser: per chunk was not tried");
        }
        drop(load);
        drop_postgres_schema(&database).await.expect("dropped");
        database.close().await;

        let base = std::env::var("CORE_TEST_POSTGRES_URL").unwrap_or_default();
        let plain = match plain_role_postgres_schema(&base).await {
            Ok(plain) => plain,
            Err(error) => {
                eprintln!("no role of its own could be made ({error}): per row was not tried");
                return;
            }
        };
        let database = Database::connect(&plain).await.expect("opens");
        let mut load = database.write().await.expect("a transaction");
        let checks = ReferenceChecks::of(&mut load).await.expect("decided");
        assert_eq!(checks, ReferenceChecks::PerRow);
        assert_eq!(
            replication_role(&mut load).await.expect("the setting"),
            "origin"
        );
        assert_eq!(
            crate::storage::import::last_keyword_id(&mut load)
                .await
                .ok(),
            Some(0)
        );
        drop(load);
        drop_postgres_schema(&database).await.expect("dropped");
        database.close().await;
    }
}
