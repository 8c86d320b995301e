//! Reference-data bootstrap (D-01): the format's JSON Schema is committed and current, a load is
//! idempotent by tid, and a document that fails changes nothing and names the record and field.
//! On SQLite always, on PostgreSQL too when `CORE_TEST_POSTGRES_URL` is set. `format.rs` holds
//! what the format allows: keywords in any order, and its version.

use std::path::{Path, PathBuf};

use core_server::{
    auth,
    bootstrap::{self, BootstrapError},
    storage::{Database, transfer::References},
};
use serde_json::{Value, json};
use sqlx::Row;

#[path = "bootstrap/format.rs"]
mod format;
use format::{
    keyword_texts_load_unchanged, keywords_in_any_order, many_keywords_replace_their_names,
};
#[path = "bootstrap/references.rs"]
mod references;
use references::{keywords_keep_their_references, new_keywords_take_ids_never_held};

const SCHEMA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/bootstrap.schema.json");

#[test]
fn the_format_schema_is_committed_and_current() {
    let generated = bootstrap::json_schema();
    if std::env::var_os("CORE_UPDATE_SCHEMA").is_some() {
        std::fs::write(SCHEMA, &generated).expect("writes the schema");
    }
    let committed = std::fs::read_to_string(SCHEMA).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/bootstrap.schema.json is stale: run CORE_UPDATE_SCHEMA=1 cargo test --test bootstrap"
    );
}

/// A folder of its own for one test's document and files.
fn folder(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("core-bootstrap-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("files")).expect("a folder");
    folder
}

fn write(folder: &Path, document: &Value) -> PathBuf {
    let path = folder.join("bootstrap.json");
    std::fs::write(&path, serde_json::to_vec_pretty(document).expect("JSON")).expect("writes");
    path
}

/// A document with every kind of record; `suffix` keeps tids apart on a shared PostgreSQL.
fn document(suffix: &str, product_name: &str) -> Value {
    json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch", "contentLocale": true, "defaultContentLocale": true, "frontendLocale": true, "dateFormat": "dd.MM.yyyy"},
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English", "contentLocale": true}
        ],
        "components": {"pim": "ACTIVE", "dam": "INACTIVE"},
        "attributeDefinitions": [
            {"tid": format!("Comment{suffix}"), "type": "text"},
            {"tid": format!("Images{suffix}"), "type": "ref", "cardinality": 2}
        ],
        "channelTypes": ["Advertising media"],
        "channelAttributes": [format!("Comment{suffix}")],
        "glossaries": [{
            "tid": format!("G{suffix}"), "name": "Marketing", "languages": ["de_DE", "en_GB"],
            "entries": [{"tid": format!("T{suffix}"), "type": "term", "loc": "de_DE", "value": "Sommer",
                "translations": [{"loc": "en_GB", "value": "summer", "similarity": 100}]}]
        }],
        "assets": [{
            "tid": format!("A{suffix}"), "name": "Cover", "path": "/catalog/cover.jpg", "restrictedTo": ["marketing"],
            "versions": [{"versionNumber": 1, "tid": format!("V{suffix}"), "mediaType": "image/jpeg", "fileName": "cover.jpg",
                "content": {"file": "files/cover.jpg"},
                "previews": [{"format": "thumbnail", "mediaType": "image/png", "content": {"base64": "iVBORw0KGgo="}}]}]
        }],
        "products": [{"tid": format!("P{suffix}"), "name": product_name,
            "assets": [{"asset": format!("A{suffix}"), "linkType": format!("Images{suffix}")}]}],
        "keywords": [
            {"path": format!("/Materials{suffix}"), "names": {"de_DE": "Materialien"}},
            {"path": format!("/Materials{suffix}/Cotton"), "names": {"de_DE": "Baumwolle"}, "assets": [format!("A{suffix}")]},
            {"path": format!("/Materials{suffix}/Linen")}
        ],
        "users": [format!("editor{suffix}")],
        "roles": [{"name": "marketing", "modules": ["Common"], "operations": ["channelsRetrieve"]}],
        "tokens": [{"user": format!("editor{suffix}"), "roles": ["marketing"], "token": token(suffix)}]
    })
}

/// A known token for the document's user.
fn token(suffix: &str) -> String {
    let digits: String = suffix.chars().filter(char::is_ascii_digit).collect();
    format!(
        "{:0>16}.{}",
        &digits[digits.len().saturating_sub(16)..],
        "ab".repeat(20)
    )
}

async fn count(database: &Database, query: &'static str, tid: &str) -> i64 {
    sqlx::query(query)
        .bind(tid)
        .fetch_one(database.reads())
        .await
        .and_then(|row| row.try_get::<i64, _>(0))
        .expect("a count")
}

async fn loads_twice_without_duplicates(database: &Database, suffix: &str) {
    let folder = folder(&format!("twice{}", suffix.len()));
    std::fs::write(folder.join("files/cover.jpg"), b"\xff\xd8 jpeg bytes").expect("writes");
    let first = write(&folder, &document(suffix, "Shirt"));
    bootstrap::load_file(database, &first)
        .await
        .expect("the first load");
    let second = write(&folder, &document(suffix, "Blue shirt"));
    let loaded = bootstrap::load_file(database, &second)
        .await
        .expect("the second load");
    assert!(loaded.records > 10);

    let product = format!("P{suffix}");
    assert_eq!(
        count(
            database,
            "SELECT COUNT(*) FROM products WHERE tid = $1",
            &product
        )
        .await,
        1
    );
    let name: String = sqlx::query("SELECT name FROM products WHERE tid = $1")
        .bind(&product)
        .fetch_one(database.reads())
        .await
        .and_then(|row| row.try_get(0))
        .expect("a name");
    assert_eq!(name, "Blue shirt", "a second load updates");
    for (query, tid) in [
        (
            "SELECT COUNT(*) FROM locales WHERE tid = $1",
            "de_DE".to_string(),
        ),
        (
            "SELECT COUNT(*) FROM glossary_entries WHERE tid = $1",
            format!("T{suffix}"),
        ),
        (
            "SELECT COUNT(*) FROM glossary_translations t JOIN glossary_entries e ON e.id = t.entry_id WHERE e.tid = $1",
            format!("T{suffix}"),
        ),
        (
            "SELECT COUNT(*) FROM asset_versions v JOIN assets a ON a.id = v.asset_id WHERE a.tid = $1",
            format!("A{suffix}"),
        ),
        (
            "SELECT COUNT(*) FROM asset_previews p JOIN asset_versions v ON v.id = p.version_id WHERE v.tid = $1",
            format!("V{suffix}"),
        ),
        (
            "SELECT COUNT(*) FROM product_assets l JOIN products p ON p.id = l.product_id WHERE p.tid = $1",
            product.clone(),
        ),
        (
            "SELECT COUNT(*) FROM access_restrictions r JOIN assets a ON a.id = r.record_id AND r.kind = 'asset' WHERE a.tid = $1",
            format!("A{suffix}"),
        ),
        (
            "SELECT COUNT(*) FROM role_grants g JOIN roles r ON r.id = g.role_id WHERE r.name = $1",
            "marketing".to_string(),
        ),
        (
            "SELECT COUNT(*) FROM keywords WHERE path = $1",
            format!("/Materials{suffix}/Cotton"),
        ),
        (
            "SELECT COUNT(*) FROM keyword_names n JOIN keywords k ON k.id = n.keyword_id WHERE k.path = $1",
            format!("/Materials{suffix}/Cotton"),
        ),
        (
            "SELECT COUNT(*) FROM keyword_assets l JOIN keywords k ON k.id = l.keyword_id WHERE k.path = $1",
            format!("/Materials{suffix}/Cotton"),
        ),
        (
            "SELECT COUNT(*) FROM keywords c JOIN keywords p ON p.id = c.parent_id WHERE p.path = $1 AND c.order_number = 2 AND c.name = 'Linen'",
            format!("/Materials{suffix}"),
        ),
    ] {
        let expected = if query.contains("role_grants") { 2 } else { 1 };
        assert_eq!(
            count(database, query, &tid).await,
            expected,
            "{query} ({tid})"
        );
    }
    // The binary is stored in chunks beside the version, with its size.
    let content: Vec<u8> = sqlx::query(
        "SELECT c.data FROM binary_chunks c JOIN asset_versions v ON v.id = c.version_id \
         WHERE v.tid = $1 AND c.format = '' AND c.seq = 0",
    )
    .bind(format!("V{suffix}"))
    .fetch_one(database.reads())
    .await
    .and_then(|row| row.try_get(0))
    .expect("the binary");
    assert_eq!(content, b"\xff\xd8 jpeg bytes");
    let size: i64 = sqlx::query("SELECT CAST(size AS BIGINT) FROM asset_versions WHERE tid = $1")
        .bind(format!("V{suffix}"))
        .fetch_one(database.reads())
        .await
        .and_then(|row| row.try_get(0))
        .expect("the size");
    assert_eq!(size, content.len() as i64);
    let caller = auth::authenticate(
        database,
        Some(format!("Bearer {}", token(suffix)).as_bytes()),
    )
    .await
    .expect("the declared token authenticates");
    assert_eq!(caller.roles, ["marketing"]);
    let _ = std::fs::remove_dir_all(&folder);
}

async fn refuses_and_changes_nothing(database: &Database, suffix: &str) {
    let folder = folder(&format!("invalid{}", suffix.len()));
    std::fs::write(folder.join("files/cover.jpg"), b"jpeg").expect("writes");
    let mut broken = document(suffix, "Shirt");
    broken["locales"] =
        json!([{"tid": "fr_FR", "language": "fr", "country": "FR", "name": "Français"}]);
    broken["products"][0]["assets"][0]["asset"] = json!("nope");
    let error = bootstrap::load_file(database, &write(&folder, &broken))
        .await
        .expect_err("refused");
    let expected =
        format!("products[0] (P{suffix}).assets[0]: asset: 'nope' is not an asset of the document");
    assert_eq!(error.to_string(), expected);

    // A conflict only the database sees (a version tid another asset holds) rolls everything back.
    let mut conflicting = document(suffix, "Shirt");
    conflicting["locales"] =
        json!([{"tid": "fr_FR", "language": "fr", "country": "FR", "name": "Français"}]);
    conflicting["assets"][0]["tid"] = json!(format!("B{suffix}"));
    conflicting["products"] = json!([]);
    conflicting["keywords"] = json!([]);
    let first = write(&folder, &document(suffix, "Shirt"));
    bootstrap::load_file(database, &first).await.expect("loads");
    let error = bootstrap::load_file(database, &write(&folder, &conflicting))
        .await
        .expect_err("refused");
    assert!(matches!(error, BootstrapError::Write { .. }), "{error}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("assets[0] (B{suffix}): cannot be written")),
        "{error}"
    );
    assert_eq!(
        count(
            database,
            "SELECT COUNT(*) FROM locales WHERE tid = $1",
            "fr_FR"
        )
        .await,
        0
    );
    assert_eq!(
        count(
            database,
            "SELECT COUNT(*) FROM assets WHERE tid = $1",
            &format!("B{suffix}")
        )
        .await,
        0
    );

    // A keyword whose parent is neither declared nor stored: refused at writing, all rolled back.
    let mut orphan = document(suffix, "Shirt");
    orphan["locales"] =
        json!([{"tid": "fr_FR", "language": "fr", "country": "FR", "name": "Français"}]);
    orphan["keywords"] = json!([{"path": format!("/Nope{suffix}/Child")}]);
    let error = bootstrap::load_file(database, &write(&folder, &orphan))
        .await
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        format!(
            "keywords[0] (/Nope{suffix}/Child): path: the parent keyword '/Nope{suffix}' is neither declared nor stored"
        )
    );
    assert_eq!(
        count(
            database,
            "SELECT COUNT(*) FROM locales WHERE tid = $1",
            "fr_FR"
        )
        .await,
        0
    );

    let mut missing_file = document(suffix, "Shirt");
    missing_file["assets"][0]["versions"][0]["content"] = json!({"file": "files/none.jpg"});
    let error = bootstrap::load_file(database, &write(&folder, &missing_file))
        .await
        .expect_err("refused");
    assert!(
        error.to_string().starts_with(&format!(
            "assets[0] (A{suffix}).versions[0]: content.file: cannot read"
        )),
        "{error}"
    );
    // A file reference stays inside the document's folder: no absolute path, no `..`, no
    // symbolic link out of it (the server would otherwise serve that file as an asset binary).
    let outside = std::env::temp_dir().join(format!("core-bootstrap-outside-{suffix}.bin"));
    std::fs::write(&outside, b"secret").expect("writes");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, folder.join("files/link.bin")).expect("a link");
    let mut references = vec![
        (
            "../outside.bin".to_string(),
            "is not inside the document's folder",
        ),
        (
            "files/../../outside.bin".to_string(),
            "is not inside the document's folder",
        ),
        (
            outside.display().to_string(),
            "is not inside the document's folder",
        ),
        (
            "/proc/self/environ".to_string(),
            "is not inside the document's folder",
        ),
    ];
    if cfg!(unix) {
        references.push((
            "files/link.bin".to_string(),
            "leaves the document's folder through a symbolic link",
        ));
    }
    for (reference, reason) in references {
        let mut escaping = document(suffix, "Shirt");
        escaping["assets"][0]["versions"][0]["content"] = json!({ "file": reference });
        let error = bootstrap::load_file(database, &write(&folder, &escaping))
            .await
            .expect_err("refused");
        assert!(
            error.to_string().starts_with(&format!(
                "assets[0] (A{suffix}).versions[0]: content.file: '{reference}' {reason}"
            )),
            "{error}"
        );
    }
    let _ = std::fs::remove_file(&outside);
    // Strings are held to the limits of the fields they are answered in (D-56), statuses to the
    // document's list (D-35).
    for (change, expected) in [
        (
            json!({"components": {"pim": "enabled"}}),
            "components (pim): status: must be one of ACTIVE, INACTIVE".to_string(),
        ),
        (
            json!({"keywords": [{"path": format!("/{}", "k".repeat(256))}]}),
            format!(
                "keywords[0] (/{}): path: 256 characters exceed the limit of 255 characters",
                "k".repeat(256)
            ),
        ),
        (
            json!({"locales": [{"tid": "fr_FR", "language": "fr", "country": "FR", "name": "bell\u{7}"}]}),
            "locales[0] (fr_FR): name: the character U+0007 is not allowed (XML 1.0 cannot carry it)"
                .to_string(),
        ),
    ] {
        let error = bootstrap::load_file(database, &write(&folder, &change))
            .await
            .expect_err("refused");
        assert_eq!(error.to_string(), expected);
    }
    let unknown_field = json!({"locales": [], "widgets": []});
    let error = bootstrap::load_file(database, &write(&folder, &unknown_field))
        .await
        .expect_err("refused");
    assert!(
        error.to_string().contains("unknown field `widgets`"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test]
async fn sqlite_loads_idempotently_and_all_or_nothing() {
    let database = Database::connect("sqlite::memory:").await.expect("opens");
    loads_twice_without_duplicates(&database, "1").await;
    refuses_and_changes_nothing(&database, "1").await;
    keywords_in_any_order(&database, "1").await;
    many_keywords_replace_their_names(&database, "1", References::InEachStatement).await;
    keyword_texts_load_unchanged(&database, "1").await;
    keywords_keep_their_references(&database, "1").await;
    new_keywords_take_ids_never_held(&database, "1").await;
}

#[tokio::test]
async fn postgres_loads_idempotently_and_all_or_nothing_when_configured() {
    let Ok(url) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: bootstrap was tested on SQLite only");
        return;
    };
    let database = Database::connect(&url).await.expect("opens");
    // PostgreSQL keeps its data between runs: tids of this run are its own.
    let suffix = format!(
        "{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_nanos() % 10_u128.pow(15))
            .unwrap_or_default()
    );
    loads_twice_without_duplicates(&database, &suffix).await;
    refuses_and_changes_nothing(&database, &suffix).await;
    keywords_in_any_order(&database, &suffix).await;
    // The configured role is a superuser in CI, which may turn the triggers off.
    many_keywords_replace_their_names(&database, &suffix, References::Deferred).await;
    keyword_texts_load_unchanged(&database, &suffix).await;
    keywords_keep_their_references(&database, &suffix).await;
    new_keywords_take_ids_never_held(&database, &suffix).await;
    eprintln!("bootstrap was tested on PostgreSQL too");
}

/// A service given a database role of its own, which may not turn triggers off, loads the same
/// (its references checked per row).
#[tokio::test]
async fn postgres_loads_as_a_role_of_its_own_when_configured() {
    let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!("CORE_TEST_POSTGRES_URL is not set: skipped");
        return;
    };
    let url = core_server::testing::plain_role_postgres_schema(&base)
        .await
        .expect("a schema of a role of its own");
    let database = Database::connect(&url).await.expect("opens");
    many_keywords_replace_their_names(&database, "1", References::RowByRow).await;
    keywords_keep_their_references(&database, "1").await;
    core_server::testing::drop_postgres_schema(&database)
        .await
        .expect("drops the schema");
}

/// Rows of every table the demo writes, by table.
async fn rows(database: &Database) -> Vec<(&'static str, i64)> {
    let mut counts = Vec::new();
    for table in [
        "locales",
        "components",
        "attribute_definitions",
        "channel_types",
        "glossaries",
        "glossary_entries",
        "glossary_translations",
        "assets",
        "asset_versions",
        "products",
        "product_assets",
        "keywords",
        "keyword_names",
        "keyword_assets",
        "channels",
        "channel_assets",
        "attribute_values",
        "peos",
        "peo_nodes",
        "peo_channels",
        "classifications",
        "classification_names",
        "classification_nodes",
        "node_names",
        "node_attributes",
        "domain_values",
        "domain_value_names",
        "briefing_layouts",
        "briefing_boxes",
        "briefing_images",
        "access_restrictions",
        "tokens",
    ] {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) AS n FROM {table}"
        )))
        .fetch_one(database.reads())
        .await
        .expect("counts");
        counts.push((table, row.try_get::<i64, _>("n").expect("a count")));
    }
    counts
}

/// The demo catalogue (every kind of record, channels, PEOs, classifications and briefings
/// included) loads, loads again without a duplicate, and a document whose catalogue part
/// names an unknown reference changes nothing and names the record and the field.
async fn demo_loads_idempotently(database: &Database) {
    let demo = bootstrap::demo().expect("the demo document");
    bootstrap::load(database, &demo, Path::new("."))
        .await
        .expect("the demo loads");
    let first = rows(database).await;
    assert!(
        first.iter().all(|(_, count)| *count > 0),
        "every table has rows: {first:?}"
    );
    bootstrap::load(database, &demo, Path::new("."))
        .await
        .expect("the demo loads again");
    assert_eq!(
        rows(database).await,
        first,
        "a second load duplicates nothing"
    );

    let mut broken = serde_json::to_value(json!({
        "channels": [{"tid": "X-1", "type": "no such type"}]
    }))
    .expect("JSON");
    let error = bootstrap::load(
        database,
        &serde_json::from_value(broken.take()).expect("a document"),
        Path::new("."),
    )
    .await
    .expect_err("an unknown channel type is refused");
    assert!(
        matches!(&error, BootstrapError::Invalid { record, field, .. } if record == "channels[0] (X-1)" && field == "type"),
        "{error}"
    );
    let nodes = json!({"classifications": [{"tid": "Apparel", "nodes": [{"path": "/Apparel/Missing/Leaf"}]}]});
    let error = bootstrap::load(
        database,
        &serde_json::from_value(nodes).expect("a document"),
        Path::new("."),
    )
    .await
    .expect_err("a node without its parent is refused");
    assert!(
        error
            .to_string()
            .contains("the parent node '/Apparel/Missing'"),
        "{error}"
    );
    assert_eq!(
        rows(database).await,
        first,
        "a refused document changes nothing"
    );
}

#[tokio::test]
async fn sqlite_loads_the_demo_catalogue_idempotently() {
    let database = Database::connect("sqlite::memory:").await.expect("opens");
    demo_loads_idempotently(&database).await;
}

#[tokio::test]
async fn postgres_loads_the_demo_catalogue_idempotently_when_configured() {
    let Some(url) =
        core_server::testing::configured_postgres_schema("the demo was loaded on SQLite only")
            .await
            .expect("a fresh schema")
    else {
        return;
    };
    let database = Database::connect(&url).await.expect("opens");
    demo_loads_idempotently(&database).await;
    core_server::testing::drop_postgres_schema(&database)
        .await
        .expect("drops the schema");
}
