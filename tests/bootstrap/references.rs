//! The references of the keywords a load writes hold however they were checked (per row, or
//! per chunk with PostgreSQL's triggers off: `storage/import/references.rs`): across chunks,
//! under keywords stored before, for names replaced; and the foreign keys still act after it.

use core_server::{bootstrap, storage::Database};
use serde_json::json;

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
