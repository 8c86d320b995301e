//! The references of the keywords a load writes hold however they were checked (per row, or
//! per chunk with PostgreSQL's triggers off: `storage/import/references.rs`): across chunks,
//! under keywords stored before, for names replaced; and the foreign keys still act after it.
//! A keyword's names are stored under the id its path was given, however that id was chosen.

use core_server::{bootstrap, storage::Database};
use serde_json::{Value, json};

use super::{count, folder, write};

/// Children more than one chunk (`BULK_ROWS`, 4,096) under a new root, then grandchildren
/// under them and their names replaced by a second load: nothing refers to a keyword that is
/// not stored, and removing the root removes everything under it.
pub(crate) async fn keywords_keep_their_references(database: &Database, suffix: &str) {
    const CHILDREN: usize = 5_000;
    let folder = folder(&format!("references{}", suffix.len()));
    let root = format!("/References{suffix}");
    let child = |index: usize| format!("{root}/c{index:04}");
    let mut first = vec![json!({"path": root})];
    first.extend((0..CHILDREN).map(|index| {
        json!({"path": child(index), "names": {"de_DE": format!("{index} (de)"), "en_GB": format!("{index} (en)")}})
    }));
    bootstrap::load_file(database, &write(&folder, &json!({ "keywords": first })))
        .await
        .expect("the first load");
    let mut second: Vec<_> = (0..CHILDREN)
        .map(|index| json!({"path": child(index), "names": {"en_GB": format!("{index} (again)")}}))
        .collect();
    second.extend(
        (0..CHILDREN).step_by(100).map(
            |index| json!({"path": format!("{}/g", child(index)), "names": {"de_DE": "g (de)"}}),
        ),
    );
    bootstrap::load_file(database, &write(&folder, &json!({ "keywords": second })))
        .await
        .expect("the second load");

    let below = format!("{root}/%");
    let keywords = "SELECT COUNT(*) FROM keywords WHERE path LIKE $1";
    let names = "SELECT COUNT(*) FROM keyword_names n JOIN keywords k ON k.id = n.keyword_id \
                 WHERE k.path LIKE $1";
    assert_eq!(count(database, keywords, &below).await, 5_050);
    assert_eq!(count(database, names, &below).await, 5_050);
    let dangling = [
        "SELECT COUNT(*) FROM keywords k WHERE k.parent_id IS NOT NULL AND $1 <> '' \
         AND NOT EXISTS (SELECT 1 FROM keywords p WHERE p.id = k.parent_id)",
        "SELECT COUNT(*) FROM keyword_names n WHERE $1 <> '' \
         AND NOT EXISTS (SELECT 1 FROM keywords k WHERE k.id = n.keyword_id)",
    ];
    for query in dangling {
        assert_eq!(count(database, query, "any").await, 0, "{query}");
    }

    sqlx::query("DELETE FROM keywords WHERE path = $1")
        .bind(&root)
        .execute(database.writes())
        .await
        .expect("removes the root");
    assert_eq!(count(database, keywords, &below).await, 0);
    for query in dangling {
        assert_eq!(count(database, query, "any").await, 0, "{query}");
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// A keyword stored without an id takes one no keyword held before, also when the last one was
/// removed; a keyword given an id keeps it; and each keyword's names are stored under its own
/// id, whatever ids the keywords around it in the load took or were given.
pub(crate) async fn new_keywords_take_ids_never_held(database: &Database, suffix: &str) {
    let folder = folder(&format!("ids{}", suffix.len()));
    let root = format!("/Ids{suffix}");
    let path = |name: &str| format!("{root}/{name}");
    let load = |keywords: Value| {
        let file = write(&folder, &json!({ "keywords": keywords }));
        async move { bootstrap::load_file(database, &file).await }
    };
    let id = "SELECT CAST(id AS BIGINT) FROM keywords WHERE path = $1";
    load(json!([{"path": root}, {"path": path("a")}]))
        .await
        .expect("the first load");
    let removed = count(database, id, &path("a")).await;
    sqlx::query("DELETE FROM keywords WHERE path = $1")
        .bind(path("a"))
        .execute(database.writes())
        .await
        .expect("removes the last keyword");
    // Far beyond what the tests sharing a PostgreSQL database store meanwhile.
    let given = removed + 1_000_000;
    let named = |name: &str| json!({"path": path(name), "names": {"de_DE": name}});
    let mut with_id = named("c");
    with_id["id"] = json!(given);
    load(json!([named("b"), with_id, named("d")]))
        .await
        .expect("the second load");
    assert!(count(database, id, &path("b")).await > removed);
    assert_eq!(count(database, id, &path("c")).await, given);
    let d = count(database, id, &path("d")).await;
    assert!(d > removed && d != given, "{d}");
    let own_name = "SELECT COUNT(*) FROM keyword_names n JOIN keywords k ON k.id = n.keyword_id \
                    WHERE k.path = $1 AND n.name = SUBSTR(k.path, LENGTH(k.path))";
    for name in ["b", "c", "d"] {
        assert_eq!(count(database, own_name, &path(name)).await, 1, "{name}");
    }
    let _ = std::fs::remove_dir_all(&folder);
}
