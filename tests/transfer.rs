//! The tables `core-server migrate` copies (`storage::transfer::TABLES`) are the schema: every
//! table of both backends but the ones it leaves out on purpose, every column with the kind it
//! is carried as, sequences and self-references marked, and each table after the tables it
//! refers to. A migration that adds a table or a column fails here until the list has it.
//! And the command: `core-server migrate` copies a database a token works on, and refuses a
//! target that holds anything; tables of several batches arrive row for row; into PostgreSQL a
//! row that refers to nothing fails the copy, whether the references are checked once after it
//! or row by row. (What a copy answers: the contract suite's `migrate`.)

mod support;

use std::collections::BTreeMap;

use core_server::storage::{
    Database,
    transfer::{Kind, NOT_COPIED, TABLES},
};
use sqlx::Row;
use support::{binary, core_server, exchange, serve};

/// A table as a schema declares it: its columns with their kinds, whether its `id` comes from
/// a sequence, and the tables its foreign keys refer to.
#[derive(Debug, Default, PartialEq)]
struct Declared {
    columns: Vec<(String, Kind)>,
    identity: bool,
    refers_to: Vec<String>,
}

/// The tables `migrate` copies, as they would be declared.
fn listed() -> BTreeMap<String, (Vec<(String, Kind)>, bool)> {
    TABLES
        .iter()
        .map(|table| {
            let columns = table
                .columns
                .iter()
                .map(|column| (column.name.to_string(), column.kind))
                .collect();
            (table.name.to_string(), (columns, table.identity))
        })
        .collect()
}

/// Whether `migrate` leaves a table out on purpose.
fn left_out(table: &str) -> bool {
    NOT_COPIED.iter().any(|left_out| left_out.name == table)
}

fn kind(declared: &str) -> Kind {
    match declared.to_ascii_lowercase().as_str() {
        "integer" | "bigint" => Kind::Int,
        "text" => Kind::Text,
        "boolean" => Kind::Flag,
        "blob" | "bytea" => Kind::Bytes,
        other => panic!("a column type migrate does not carry: {other}"),
    }
}

/// Compares a schema with the list, and checks that every table comes after those it refers to
/// (a table referring to itself is read parents first).
fn judge(schema: &BTreeMap<String, Declared>) {
    let copied: BTreeMap<String, (Vec<(String, Kind)>, bool)> = schema
        .iter()
        .map(|(name, table)| (name.clone(), (table.columns.clone(), table.identity)))
        .collect();
    assert_eq!(listed(), copied, "storage::transfer::TABLES is the schema");
    for (at, table) in TABLES.iter().enumerate() {
        for referred in &schema[table.name].refers_to {
            if referred == table.name {
                assert!(table.tree, "{} refers to itself: mark it tree", table.name);
            } else {
                let before = TABLES[..at].iter().any(|earlier| earlier.name == referred);
                assert!(
                    before,
                    "{} refers to {referred}, listed after it",
                    table.name
                );
            }
        }
        let refers_to_itself = schema[table.name].refers_to.iter().any(|t| t == table.name);
        assert_eq!(table.tree, refers_to_itself, "{}", table.name);
    }
}

#[tokio::test]
async fn the_copied_tables_are_the_sqlite_schema() {
    let database = Database::connect("sqlite::memory:")
        .await
        .expect("a database");
    let names: Vec<(String, String)> = sqlx::query(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    .fetch_all(database.reads())
    .await
    .expect("the tables")
    .iter()
    .map(|row| (row.get(0), row.get(1)))
    .collect();
    let mut schema = BTreeMap::new();
    for (name, text) in names.into_iter().filter(|(name, _)| !left_out(name)) {
        let columns = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT name, type FROM pragma_table_info('{name}') ORDER BY cid"
        )))
        .fetch_all(database.reads())
        .await
        .expect("the columns")
        .iter()
        .map(|row| (row.get::<String, _>(0), kind(&row.get::<String, _>(1))))
        .collect();
        let refers_to = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT \"table\" FROM pragma_foreign_key_list('{name}')"
        )))
        .fetch_all(database.reads())
        .await
        .expect("the foreign keys")
        .iter()
        .map(|row| row.get::<String, _>(0))
        .collect();
        let identity = text.contains("AUTOINCREMENT");
        schema.insert(
            name,
            Declared {
                columns,
                identity,
                refers_to,
            },
        );
    }
    judge(&schema);
    database.close().await;
}

#[tokio::test]
async fn the_copied_tables_are_the_postgres_schema() {
    let Some(url) = core_server::testing::configured_postgres_schema("skipped")
        .await
        .expect("a fresh schema")
    else {
        return;
    };
    let database = Database::connect(&url).await.expect("the database opens");
    let mut schema: BTreeMap<String, Declared> = BTreeMap::new();
    let columns = sqlx::query(
        "SELECT CAST(table_name AS TEXT), CAST(column_name AS TEXT), CAST(data_type AS TEXT), \
         CAST(is_identity AS TEXT) FROM information_schema.columns \
         WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
    )
    .fetch_all(database.reads())
    .await
    .expect("the columns");
    for row in columns
        .iter()
        .filter(|row| !left_out(&row.get::<String, _>(0)))
    {
        let table = schema.entry(row.get::<String, _>(0)).or_default();
        table
            .columns
            .push((row.get(1), kind(&row.get::<String, _>(2))));
        table.identity |= row.get::<String, _>(3) == "YES";
    }
    let references = sqlx::query(
        "SELECT CAST(c.conrelid::regclass AS TEXT), CAST(c.confrelid::regclass AS TEXT) \
         FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace",
    )
    .fetch_all(database.reads())
    .await
    .expect("the foreign keys");
    for row in &references {
        let (from, to): (String, String) = (row.get(0), row.get(1));
        if let Some(table) = schema.get_mut(&from) {
            table.refers_to.push(to);
        }
    }
    judge(&schema);
    let _ = core_server::testing::drop_postgres_schema(&database).await;
    database.close().await;
}

/// An empty folder of this process for a test's databases.
fn scratch(name: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    folder
}

/// Runs `core-server migrate`.
fn migrate(from: &str, to: &str) -> std::process::Output {
    std::process::Command::new(binary())
        .args(["migrate", "--from", from, "--to", to])
        .output()
        .expect("core-server runs")
}

/// A server on the database answers the demo's six keywords to the token.
fn the_token_reads_the_demo_keywords(database_url: &str, token: &str) {
    let (server, address) = serve(database_url);
    let body = r#"{"path":"/","level":-1}"#;
    let request = format!(
        "POST /api/core/v1/common/keywords/retrieve HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        token.trim(),
        body.len()
    );
    let (status, answer) = exchange(&address, &request);
    assert_eq!(status, 200, "the token was carried: {answer}");
    assert_eq!(answer.matches("\"path\"").count(), 6, "{answer}");
    drop(server);
}

#[test]
fn migrate_copies_a_database_and_refuses_a_target_that_is_not_empty() {
    let folder = scratch("core-server-migrate");
    let (from, to) = (
        format!("sqlite://{}/from.db", folder.display()),
        format!("sqlite://{}/to.db", folder.display()),
    );
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/demo.json");
    assert!(core_server(&["import", demo], &from).status.success());
    let issued = core_server(
        &["token", "issue", "--user", "ops", "--role", "admin"],
        &from,
    );
    let token = String::from_utf8(issued.stdout).expect("UTF-8");
    let output = migrate(&from, &to);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("core-server: keywords: 6 written"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("core-server: migrated {from} into {to}")),
        "{stderr}"
    );

    the_token_reads_the_demo_keywords(&to, &token);

    let output = migrate(&from, &to);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("the target database is not empty (its table users holds rows)"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// Into PostgreSQL, as the configured role (a superuser in CI: the references are checked once
/// after the copy) and as a role of its own (row by row): every copied table holds the source's
/// rows and the migrated token works. A source row that refers to a row the source does not
/// hold fails the copy with the per-row check's words either way, and leaves the target empty.
#[tokio::test(flavor = "multi_thread")]
async fn migrate_into_postgres_checks_every_reference_once_or_per_row() {
    let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: skipped");
        return;
    };
    let folder = scratch("core-server-migrate-pg");
    let (from, broken) = (
        format!("sqlite://{}/from.db", folder.display()),
        format!("sqlite://{}/broken.db", folder.display()),
    );
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/demo.json");
    for source in [&from, &broken] {
        assert!(core_server(&["import", demo], source).status.success());
    }
    let issued = core_server(
        &["token", "issue", "--user", "ops", "--role", "admin"],
        &from,
    );
    let token = String::from_utf8(issued.stdout).expect("UTF-8");
    // A name of a keyword the source does not hold, written past SQLite's checks.
    let dangling = rusqlite::Connection::open(folder.join("broken.db")).expect("opens");
    dangling
        .execute_batch(
            "PRAGMA foreign_keys = OFF; \
             INSERT INTO keyword_names (keyword_id, loc, name) VALUES (999999, 'en_GB', 'gone')",
        )
        .expect("a dangling name");
    drop(dangling);

    let mut targets = vec![(
        core_server::testing::fresh_postgres_schema(&base)
            .await
            .expect("a schema"),
        "references checked once, after the copy",
    )];
    match core_server::testing::plain_role_postgres_schema(&base).await {
        Ok(plain) => targets.push((plain, "references checked row by row")),
        Err(error) => eprintln!("no role of its own could be made ({error}): per row not tried"),
    }
    for (to, how) in targets {
        let refused = migrate(&broken, &to);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{stderr}");
        for words in [
            "insert or update on table \"keyword_names\" violates foreign key constraint \"keyword_names_keyword_id_fkey\"",
            "nothing was written",
        ] {
            assert!(stderr.contains(words), "{stderr}");
        }
        let copied = migrate(&from, &to);
        let stderr = String::from_utf8_lossy(&copied.stderr);
        assert!(copied.status.success(), "{stderr}");
        assert!(stderr.contains(how), "{stderr}");

        let (source, target) = (
            Database::connect(&from).await.expect("the source"),
            Database::connect(&to).await.expect("the target"),
        );
        for table in TABLES {
            let count = format!("SELECT CAST(COUNT(*) AS BIGINT) FROM {}", table.name);
            let mut counts = Vec::new();
            for database in [&source, &target] {
                let rows: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(count.clone()))
                    .fetch_one(database.reads())
                    .await
                    .expect("counted");
                counts.push(rows);
            }
            assert_eq!(counts[0], counts[1], "{}: source and target", table.name);
        }
        source.close().await;

        the_token_reads_the_demo_keywords(&to, &token);
        let _ = core_server::testing::drop_postgres_schema(&target).await;
        target.close().await;
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// Tables of several batches are copied whole and in order: 9,000 keywords (three batches of
/// 4,096 rows at most) with two names each (five), read from SQLite while the last batch is
/// written, arrive with every column as they were.
#[test]
fn migrate_copies_tables_of_many_batches_row_for_row() {
    let folder = scratch("core-server-migrate-many");
    let keywords: Vec<serde_json::Value> = (0..9_000)
        .map(|at| {
            let path = if at < 90 { format!("/r{at}") } else { format!("/r{}/k{at}", at % 90) };
            serde_json::json!({"path": path, "names": {"en_GB": format!("en {at}"), "de_DE": format!("de {at}")}})
        })
        .collect();
    let document = serde_json::json!({
        "locales": [
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"},
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}
        ],
        "keywords": keywords,
    });
    let file = folder.join("keywords.json");
    std::fs::write(&file, document.to_string()).expect("the document");
    let (from, to) = (folder.join("from.db"), folder.join("to.db"));
    let url = |path: &std::path::Path| format!("sqlite://{}", path.display());
    let imported = core_server(&["import", &file.display().to_string()], &url(&from));
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let migrated = migrate(&url(&from), &url(&to));
    assert!(
        migrated.status.success(),
        "{}",
        String::from_utf8_lossy(&migrated.stderr)
    );
    let rows = |path: &std::path::Path, select: &str| -> Vec<String> {
        let connection = rusqlite::Connection::open(path).expect("opens");
        let mut statement = connection.prepare(select).expect("prepared");
        let width = statement.column_count();
        statement
            .query_map([], |row| {
                (0..width)
                    .map(|at| {
                        row.get::<_, rusqlite::types::Value>(at)
                            .map(|value| format!("{value:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(|values| values.join("|"))
            })
            .expect("read")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows")
    };
    for (select, count) in [
        ("SELECT * FROM keywords ORDER BY id", 9_000),
        (
            "SELECT * FROM keyword_names ORDER BY keyword_id, loc",
            18_000,
        ),
    ] {
        let copied = rows(&to, select);
        assert_eq!(copied.len(), count, "{select}");
        assert_eq!(copied, rows(&from, select), "{select}");
    }
    let _ = std::fs::remove_dir_all(&folder);
}
