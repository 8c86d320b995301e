//! What the format allows: keywords whose parents come anywhere in the document, and a version
//! a newer document is refused by.

use core_server::{
    bootstrap,
    storage::{Database, transfer::References},
};
use serde_json::{Value, json};

use super::{count, folder, write};

/// Keywords are written in bulk, parents first: a child may come before its parent in the
/// document, new siblings follow the stored ones in document order, and a second load changes
/// no order.
pub(crate) async fn keywords_in_any_order(database: &Database, suffix: &str) {
    let folder = folder(&format!("order{}", suffix.len()));
    let root = format!("/Order{suffix}");
    let load = |keywords: Value| {
        let file = write(&folder, &json!({ "keywords": keywords }));
        async move { bootstrap::load_file(database, &file).await }
    };
    load(json!([{"path": root}, {"path": format!("{root}/A")}]))
        .await
        .expect("the first load");
    let second = json!([
        {"path": format!("{root}/C/x"), "names": {"de_DE": "x (de)"}},
        {"path": format!("{root}/B")},
        {"path": format!("{root}/C")}
    ]);
    for _ in 0..2 {
        load(second.clone())
            .await
            .expect("a child before its parent");
        for (path, order) in [("A", 1), ("B", 2), ("C", 3), ("C/x", 1)] {
            assert_eq!(
                count(
                    database,
                    "SELECT CAST(order_number AS BIGINT) FROM keywords WHERE path = $1",
                    &format!("{root}/{path}")
                )
                .await,
                order,
                "{path}"
            );
        }
        assert_eq!(
            count(
                database,
                "SELECT COUNT(*) FROM keywords c JOIN keywords p ON p.id = c.parent_id \
                 JOIN keyword_names n ON n.keyword_id = c.id WHERE p.path = $1",
                &format!("{root}/C")
            )
            .await,
            1
        );
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// Siblings beyond one bound statement's rows (SQLite's is 1,024) are numbered in document
/// order, and a second load replaces the names of every one of them, also of those a load
/// before it stored; each load says its keywords' and names' references were checked as
/// `checked` says.
pub(crate) async fn many_keywords_replace_their_names(
    database: &Database,
    suffix: &str,
    checked: References,
) {
    const SIBLINGS: usize = 2_500;
    let folder = folder(&format!("many{}", suffix.len()));
    let root = format!("/Many{suffix}");
    let load = |names: &dyn Fn(usize) -> Value| {
        let mut keywords = vec![json!({"path": root})];
        keywords.extend((0..SIBLINGS).map(|index| {
            json!({"path": format!("{root}/k{:04}", SIBLINGS - index), "names": names(index)})
        }));
        let file = write(&folder, &json!({ "keywords": keywords }));
        async move { bootstrap::load_file(database, &file).await }
    };
    let names_below = || async {
        count(
            database,
            "SELECT COUNT(*) FROM keyword_names n JOIN keywords c ON c.id = n.keyword_id \
             WHERE c.path LIKE $1",
            &format!("{root}/%"),
        )
        .await
    };
    let first =
        load(&|index| json!({"de_DE": format!("{index} (de)"), "en_GB": format!("{index} (en)")}))
            .await
            .expect("the first load");
    assert_eq!(first.references, checked);
    assert_eq!(names_below().await, 2 * SIBLINGS as i64);
    for index in [0, 1023, 1024, 2047, 2048, SIBLINGS - 1] {
        assert_eq!(
            count(
                database,
                "SELECT CAST(order_number AS BIGINT) FROM keywords WHERE path = $1",
                &format!("{root}/k{:04}", SIBLINGS - index)
            )
            .await,
            index as i64 + 1,
            "sibling {index}"
        );
    }
    let second = load(&|index| json!({"en_GB": format!("{index} (en, again)")}))
        .await
        .expect("the second load");
    assert_eq!(second.references, checked);
    assert_eq!(names_below().await, SIBLINGS as i64);
    let _ = std::fs::remove_dir_all(&folder);
}

/// Texts come back as they were given, also those a bulk format escapes (a tab, a new line, a
/// carriage return, a backslash, a segment that reads as `COPY`'s NULL marker `\N`, quotes of
/// JSON), and so do a given order number and creation time.
pub(crate) async fn keyword_texts_load_unchanged(database: &Database, suffix: &str) {
    let folder = folder(&format!("texts{}", suffix.len()));
    let root = format!("/Texts{suffix}");
    let odd = "tab\there, \"quoted\", new\nline, return\r, back\\slash, \\N, \\. and é 😀";
    let keywords = json!([
        {"path": root, "names": {"de_DE": odd, "en_GB": "\\N"}},
        {"path": format!("{root}/\\N"), "orderNumber": 7, "createdAt": "2020-01-02T03:04:05.000Z"},
        {"path": format!("{root}/a\\tb")}
    ]);
    let file = write(&folder, &json!({ "keywords": keywords }));
    bootstrap::load_file(database, &file)
        .await
        .expect("the load");
    let text = |query: &'static str, key: String| async move {
        sqlx::query_scalar::<_, String>(query)
            .bind(key)
            .fetch_one(database.reads())
            .await
            .expect("a text")
    };
    let name = "SELECT n.name FROM keyword_names n JOIN keywords k ON k.id = n.keyword_id \
                WHERE k.path || ' ' || n.loc = $1";
    assert_eq!(text(name, format!("{root} de_DE")).await, odd);
    assert_eq!(text(name, format!("{root} en_GB")).await, "\\N");
    let stored = "SELECT name || ' ' || CAST(order_number AS TEXT) || ' ' || created_at \
                  FROM keywords WHERE path = $1";
    assert_eq!(
        text(stored, format!("{root}/\\N")).await,
        "\\N 7 2020-01-02T03:04:05.000Z"
    );
    assert!(
        text(stored, format!("{root}/a\\tb"))
            .await
            .starts_with("a\\tb 2 ")
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// A document of a newer format version is refused whole, with what to do, even when it holds
/// fields this version does not know; the version this core-server writes loads.
#[tokio::test]
async fn refuses_a_newer_format_version() {
    let database = Database::connect("sqlite::memory:").await.expect("opens");
    let folder = folder("version");
    let locale = json!({"tid": "sv_SE", "language": "sv", "country": "SE", "name": "Svenska"});
    let newer = write(
        &folder,
        &json!({"formatVersion": 3, "locales": [locale], "futureKind": [{}]}),
    );
    let error = bootstrap::load_file(&database, &newer)
        .await
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        format!(
            "{}: written in format version 3, and this core-server reads versions up to 2: \
             import it with a newer core-server",
            newer.display()
        )
    );
    assert_eq!(swedish(&database).await, 0);
    let zero = write(&folder, &json!({"formatVersion": 0}));
    let error = bootstrap::load_file(&database, &zero)
        .await
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        "document: formatVersion: must be 1 or more"
    );
    let current = write(
        &folder,
        &json!({"formatVersion": bootstrap::FORMAT_VERSION, "locales": [locale]}),
    );
    bootstrap::load_file(&database, &current)
        .await
        .expect("the current version loads");
    assert_eq!(swedish(&database).await, 1);
    let _ = std::fs::remove_dir_all(&folder);
}

/// How many `sv_SE` locales are stored.
async fn swedish(database: &Database) -> i64 {
    count(
        database,
        "SELECT COUNT(*) FROM locales WHERE tid = $1",
        "sv_SE",
    )
    .await
}
