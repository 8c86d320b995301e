//! The ranking and the ids of new keywords, without a database.

use super::*;

/// A row under `parent` at `path`.
fn row(parent: Option<i64>, path: &str) -> KeywordRow<'_> {
    KeywordRow {
        id: None,
        order_number: None,
        created_at: None,
        parent_id: parent,
        name: path,
        path,
    }
}

#[test]
fn new_keywords_are_ranked_among_new_siblings_and_stored_sibling_by_sibling() {
    let rows = [
        row(None, "/a"),
        row(Some(5), "/e/stored"),
        row(None, "/b"),
        row(Some(3), "/c/x"),
        row(Some(5), "/e/y"),
        row(Some(5), "/e/z"),
    ];
    let ids = [None, Some(9), None, None, None, None];
    let stored = |backend| -> Vec<(usize, &str, i64)> {
        new_keywords(&rows, &ids, 10, backend)
            .iter()
            .map(|(index, keyword)| (*index, keyword.row.path, keyword.rank))
            .collect()
    };
    // The stored row is neither ranked nor stored; roots sort first on SQLite, last on
    // PostgreSQL, as each orders NULLs; indexes count from `start`.
    assert_eq!(
        stored(Backend::Sqlite),
        [
            (10, "/a", 1),
            (12, "/b", 2),
            (13, "/c/x", 1),
            (14, "/e/y", 1),
            (15, "/e/z", 2)
        ]
    );
    assert_eq!(
        stored(Backend::Postgres),
        [
            (13, "/c/x", 1),
            (14, "/e/y", 1),
            (15, "/e/z", 2),
            (10, "/a", 1),
            (12, "/b", 2)
        ]
    );
}

#[test]
fn new_ids_follow_autoincrement_a_given_id_raising_the_next() {
    let keyword = |id: Option<i64>| NewKeyword {
        row: KeywordRow {
            id,
            ..row(None, "/a")
        },
        rank: 1,
    };
    let rows = [
        keyword(None),
        keyword(Some(40)),
        keyword(None),
        keyword(Some(7)),
        keyword(None),
        keyword(Some(i64::MAX)),
    ];
    assert_eq!(new_keyword_ids(&rows, 12), [12, 40, 41, 7, 42, i64::MAX]);
}
