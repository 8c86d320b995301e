//! Every statement of the service's SQL is served by an index (D-37): a request's cost follows
//! what it reads, not the size of the catalogue around it.
//!
//! The statements are the ones `sql!` and `sql_in!` register (`storage::statements()`); a test
//! checks that no statement is written in `src/storage` or `src/auth/` without them. Each is
//! planned against a database of realistic size (the demo catalogue grown to thousands of
//! keywords, channels, products, assets, PEOs, nodes and glossary entries):
//! - SQLite: `EXPLAIN QUERY PLAN`; a `SCAN` of a table (a full scan, with or without a covering
//!   index) fails;
//! - PostgreSQL (where `CORE_TEST_POSTGRES_URL` is set): `EXPLAIN EXECUTE` of the prepared
//!   statement's generic plan, with sequential scans, hash joins and merge joins turned off, so
//!   that the planner reaches every table through an index where one can serve and a full scan
//!   shows up only where none can (its choices on a small test database say nothing about a
//!   large one); a `Seq Scan`, or an index scan without an `Index Cond` (the whole index read),
//!   fails.
//!
//! Tables that do not grow with the catalogue ([`SMALL`]) may be scanned, and so may the few
//! statements whose answer is a whole table ([`WHOLE`], each with its reason).

use std::collections::{BTreeSet, HashMap};

use core_server::storage::{Backend, Database, Statement, statements};
use serde_json::{Value, json};
use sqlx::Row;

/// Tables whose size does not grow with the catalogue: reference data an operator loads.
const SMALL: &[&str] = &[
    "locales",
    "components",
    "channel_types",
    "channel_attributes",
    "access_revision",
    "roles",
    "role_grants",
    // One row per table with a sequence (`core-server migrate` reads and sets them).
    "sqlite_sequence",
];

/// Statements that read a whole table because their answer is the whole table: a part of the
/// statement that finds it, the table (`*`: every table it reads), and why.
const WHOLE: &[(&str, &str, &str)] = &[
    (
        "LEFT JOIN token_uses tu",
        "tokens",
        "`core-server token list` answers every token",
    ),
    (
        "LEFT JOIN token_uses tu",
        "token_uses",
        "the last use of every token, for the same answer",
    ),
    (
        "FROM tokens WHERE selector <> $1 LIMIT 1",
        "tokens",
        "`serve --demo` on a database older than its origin record: whether it holds any token \
         besides the demo's (the first one found answers)",
    ),
    (
        "FROM keywords every",
        "keywords",
        "keywords retrieve of `/` at every level answers every keyword",
    ),
    (
        "FROM keyword_names every",
        "keyword_names",
        "the names of every keyword, for the same answer",
    ),
    (
        "FROM keyword_assets every",
        "keyword_assets",
        "the asset links of every keyword, for the same answer with links",
    ),
    (
        "FROM classifications every",
        "classifications",
        "classes retrieve without a selector (and GET /pim/classes) answers every classification",
    ),
    (
        "LEFT JOIN roles pr ON pr.id = ap.role_id ORDER BY e.tid",
        "peos",
        "PEO query without criteria answers every PEO the caller may see",
    ),
    (
        " copied",
        "*",
        "`core-server migrate` copies every table whole (`storage::transfer`), an operator's \
         command",
    ),
    (
        "FROM messages",
        "messages",
        "`core-server messages list` prints every message (an operator's command, not a request)",
    ),
];

#[test]
fn every_statement_of_storage_is_registered() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files = Vec::new();
    let mut folders = vec![std::path::PathBuf::from(format!("{root}/src/storage"))];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder of src/storage") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    let mut unregistered = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file");
        for (at, _) in text.match_indices("query") {
            let rest = &text[at..];
            if let Some(length) = literal_statement(rest) {
                let literal = rest[length..].trim_start();
                // The settings of a connection are not statements of the service's data.
                let setting = ["PRAGMA ", "SET ", "SELECT 1\""]
                    .iter()
                    .any(|start| literal.starts_with(start));
                if !setting {
                    let line = text[..at].lines().count();
                    unregistered.push(format!("{}:{line}", file.display()));
                }
            }
        }
    }
    assert!(
        unregistered.is_empty(),
        "statements written without sql!: {unregistered:?}"
    );
    assert!(
        statements().count() > 100,
        "sql! registers the statements ({} found)",
        statements().count()
    );
}

/// Whether `text` starts with a call of `query(`, `query_as(` or `query_scalar(` (with a
/// turbofish or not) whose argument is a string literal: the length up to the literal's text.
fn literal_statement(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("query")?;
    let rest = rest
        .strip_prefix("_as")
        .or_else(|| rest.strip_prefix("_scalar"))
        .unwrap_or(rest);
    let rest = match rest.strip_prefix("::<") {
        Some(generic) => &generic[generic.find('>')? + 1..],
        None => rest,
    };
    let literal = rest.strip_prefix('(')?.trim_start();
    literal
        .starts_with('"')
        .then(|| text.len() - literal.len() + 1)
}

#[tokio::test(flavor = "multi_thread")]
async fn every_statement_is_served_by_an_index_on_sqlite() {
    let folder = std::env::temp_dir().join(format!("core-plans-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/plans.db", folder.display());
    let database = realistic(&url).await;
    let tables: BTreeSet<String> =
        sqlx::query("SELECT name FROM sqlite_master WHERE type = 'table'")
            .fetch_all(database.reads())
            .await
            .expect("the tables")
            .iter()
            .map(|row| row.get::<String, _>(0))
            .collect();
    let mut scans = Vec::new();
    for statement in planned(Backend::Sqlite) {
        let explain = format!("EXPLAIN QUERY PLAN {}", statement.text);
        let rows = sqlx::query(sqlx::AssertSqlSafe(explain))
            .fetch_all(database.writes())
            .await
            .unwrap_or_else(|error| panic!("{}:{}: {error}", statement.file, statement.line));
        let aliases = aliases(statement.text);
        for row in rows {
            let detail: String = row.get(3);
            let Some(scanned) = detail.strip_prefix("SCAN ") else {
                continue;
            };
            let name = scanned.split_whitespace().next().unwrap_or_default();
            let table = aliases.get(name).map_or(name, String::as_str);
            if tables.contains(table) {
                scans.push((statement, table.to_string(), detail.clone()));
            }
        }
    }
    judge(&scans);
    database.close().await;
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_statement_is_served_by_an_index_on_postgres() {
    let Some(url) = core_server::testing::configured_postgres_schema("skipped")
        .await
        .expect("a fresh schema")
    else {
        return;
    };
    let database = realistic(&url).await;
    let mut connection = database.writes().acquire().await.expect("a connection");
    // Only this schema's tables: a bare ANALYZE in the implicit transaction of a multi-statement
    // query locks every table of every schema at once, and a shared test server holds many
    // (CI's ran out of lock memory).
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT CAST(tablename AS TEXT) FROM pg_tables WHERE schemaname = current_schema()",
    )
    .fetch_all(&mut *connection)
    .await
    .expect("the schema's tables");
    let analyze = tables
        .iter()
        .map(|table| format!("\"{table}\""))
        .collect::<Vec<_>>()
        .join(", ");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("ANALYZE {analyze}")))
        .execute(&mut *connection)
        .await
        .expect("the schema is analyzed");
    sqlx::raw_sql(
        "SET enable_seqscan = off; SET enable_hashjoin = off; \
         SET enable_mergejoin = off; SET plan_cache_mode = force_generic_plan",
    )
    .execute(&mut *connection)
    .await
    .expect("the planner is set");
    let mut scans = Vec::new();
    for (index, statement) in planned(Backend::Postgres).into_iter().enumerate() {
        let prepare = format!("PREPARE plan_{index} AS {}", statement.text);
        sqlx::raw_sql(sqlx::AssertSqlSafe(prepare))
            .execute(&mut *connection)
            .await
            .unwrap_or_else(|error| panic!("{}:{}: {error}", statement.file, statement.line));
        let explain = match parameters(statement.text) {
            0 => format!("EXPLAIN EXECUTE plan_{index}"),
            count => format!(
                "EXPLAIN EXECUTE plan_{index}({})",
                vec!["NULL"; count].join(", ")
            ),
        };
        let lines: Vec<String> = sqlx::raw_sql(sqlx::AssertSqlSafe(explain))
            .fetch_all(&mut *connection)
            .await
            .unwrap_or_else(|error| panic!("{}:{}: {error}", statement.file, statement.line))
            .iter()
            .map(|row| row.get::<String, _>(0))
            .collect();
        for (table, detail) in full_scans(&lines) {
            if !table.starts_with("pg_") {
                scans.push((statement, table, detail));
            }
        }
    }
    judge(&scans);
    drop(connection);
    let _ = core_server::testing::drop_postgres_schema(&database).await;
    database.close().await;
}

/// The registered statements a backend runs.
fn planned(backend: Backend) -> Vec<&'static Statement> {
    let mut planned: Vec<&'static Statement> = statements()
        .filter(|statement| statement.backend.is_none_or(|only| only == backend))
        .collect();
    planned.sort_by_key(|statement| (statement.file, statement.line));
    planned
}

/// Fails on every full scan of a table that grows with the catalogue, unless the statement is
/// one of [`WHOLE`].
fn judge(scans: &[(&'static Statement, String, String)]) {
    let refused: Vec<String> = scans
        .iter()
        .filter(|(_, table, _)| !SMALL.contains(&table.as_str()))
        .filter(|(statement, table, _)| {
            !WHOLE.iter().any(|(part, whole, _)| {
                (*whole == "*" || whole == table) && statement.text.contains(part)
            })
        })
        .map(|(statement, table, detail)| {
            format!(
                "{}:{}: a full scan of {table} ({detail}) in: {}",
                statement.file, statement.line, statement.text
            )
        })
        .collect();
    assert!(
        refused.is_empty(),
        "statements not served by an index:\n{}",
        refused.join("\n")
    );
}

/// The aliases of a statement's tables: `FROM keywords k`, `JOIN roles AS r`.
fn aliases(statement: &str) -> HashMap<String, String> {
    let words: Vec<&str> = statement
        .split(|ch: char| ch.is_whitespace() || ch == '(' || ch == ')' || ch == ',')
        .filter(|word| !word.is_empty())
        .collect();
    let keyword = |word: &str| {
        [
            "WHERE",
            "JOIN",
            "LEFT",
            "ON",
            "ORDER",
            "GROUP",
            "UNION",
            "LIMIT",
            "SET",
            "AS",
            "FOR",
            "RETURNING",
            "INNER",
            "SELECT",
            "VALUES",
        ]
        .iter()
        .any(|keyword| word.eq_ignore_ascii_case(keyword))
    };
    let mut aliases = HashMap::new();
    for (at, word) in words.iter().enumerate() {
        if !(word.eq_ignore_ascii_case("FROM") || word.eq_ignore_ascii_case("JOIN")) {
            continue;
        }
        let Some(table) = words.get(at + 1) else {
            continue;
        };
        let mut next = at + 2;
        if words
            .get(next)
            .is_some_and(|word| word.eq_ignore_ascii_case("AS"))
        {
            next += 1;
        }
        if let Some(alias) = words.get(next).filter(|alias| !keyword(alias)) {
            aliases.insert(alias.to_string(), table.to_string());
        }
    }
    aliases
}

/// How many parameters (`$1` … `$n`) a statement takes.
fn parameters(statement: &str) -> usize {
    statement
        .split('$')
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<usize>().ok()
        })
        .max()
        .unwrap_or(0)
}

/// The full scans of a PostgreSQL plan: each `Seq Scan`, and each index scan without an
/// `Index Cond` (the whole index read), as (table, plan line).
fn full_scans(lines: &[String]) -> Vec<(String, String)> {
    let node = |line: &str| line.trim_start().starts_with("->");
    let mut scans = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let text = line.trim_start().trim_start_matches("->").trim_start();
        let table = |after: &str| {
            text.split(after)
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_string)
        };
        if text.starts_with("Seq Scan on ") {
            scans.extend(table("Seq Scan on ").map(|table| (table, text.to_string())));
        } else if text.starts_with("Index Scan") || text.starts_with("Index Only Scan") {
            let properties = lines[at + 1..].iter().take_while(|line| !node(line));
            if !properties
                .into_iter()
                .any(|line| line.contains("Index Cond:"))
            {
                scans.extend(table(" on ").map(|table| (table, text.to_string())));
            }
        }
    }
    scans
}

/// A database holding the demo catalogue grown to a realistic size.
async fn realistic(url: &str) -> Database {
    let database = Database::connect(url).await.expect("the database opens");
    let document: core_server::bootstrap::Bootstrap =
        serde_json::from_value(catalogue()).expect("a bootstrap document");
    core_server::bootstrap::load(&database, &document, std::path::Path::new("."))
        .await
        .expect("the catalogue loads");
    database
}

/// The demo catalogue with thousands of records of every kind the statements read.
fn catalogue() -> Value {
    let mut document: Value =
        serde_json::from_str(include_str!("../demo/demo.json")).expect("the demo document");
    let push = |document: &mut Value, kind: &str, records: Vec<Value>| {
        if let Some(list) = document[kind].as_array_mut() {
            list.extend(records);
        }
    };
    let mut keywords = Vec::new();
    for root in 0..20 {
        keywords.push(json!({"path": format!("/K{root}"), "names": {"de_DE": format!("K{root}")}}));
        for child in 0..20 {
            keywords.push(json!({"path": format!("/K{root}/C{child}")}));
            for leaf in 0..10 {
                keywords.push(json!({"path": format!("/K{root}/C{child}/L{leaf}"),
                    "names": {"de_DE": format!("L{leaf}")},
                    "assets": [format!("RA-{}", (root * 200 + child * 10 + leaf) % 500)]}));
            }
        }
    }
    push(&mut document, "keywords", keywords);
    let pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let assets = (0..500)
        .map(|asset| {
            json!({"tid": format!("RA-{asset}"), "name": format!("ra-{asset}.png"),
                "versions": [{"versionNumber": 1, "tid": format!("RA-{asset}-v1"), "mediaType": "image/png",
                    "fileName": "ra.png", "content": {"base64": pixel},
                    "previews": [{"format": "thumbnail", "mediaType": "image/png", "content": {"base64": pixel}}]}]})
        })
        .collect();
    push(&mut document, "assets", assets);
    let products = (0..1000)
        .map(|product| {
            json!({"tid": format!("RP-{product}"), "name": format!("Product {product}"),
                "assets": [{"asset": format!("RA-{}", product % 500), "linkType": "productImages"}]})
        })
        .collect();
    push(&mut document, "products", products);
    let mut channels = Vec::new();
    for root in 0..5 {
        channels.push(
            json!({"tid": format!("RC-{root}"), "type": "catalog", "name": format!("Root {root}")}),
        );
        for chapter in 0..10 {
            let parent = format!("RC-{root}-{chapter}");
            channels.push(
                json!({"tid": parent, "type": "chapter", "parent": format!("RC-{root}"),
                "name": "Chapter", "values": [{"attr": "budget", "items": [{"value": "10"}]}]}),
            );
            for page in 0..20 {
                channels.push(
                    json!({"tid": format!("{parent}-{page}"), "type": "page", "parent": parent,
                    "name": "Page", "assets": [format!("RA-{}", page % 500)]}),
                );
            }
        }
    }
    push(&mut document, "channels", channels);
    let peos = (0..1000)
        .map(|peo| {
            json!({"tid": format!("RPEO-{peo}"), "product": format!("RP-{peo}"), "template": "catalog",
                "name": format!("PEO {peo}"), "nodes": [format!("RC-0-{}-{}", peo % 10, peo % 20)],
                "channels": [format!("RC-0-{}-{}", peo % 10, peo % 20)],
                "values": [{"attr": "budget", "items": [{"value": "5"}]}]})
        })
        .collect();
    push(&mut document, "peos", peos);
    let mut nodes = vec![json!({"path": "/Realistic", "names": {"": "Realistic"}})];
    for branch in 0..50 {
        nodes.push(json!({"path": format!("/Realistic/B{branch}"),
            "attributes": [{"key": "weight", "level": "p", "inheritance": "visible", "restriction": "optional"}]}));
        for leaf in 0..19 {
            nodes.push(json!({"path": format!("/Realistic/B{branch}/N{leaf}"),
                "names": {"de_DE": format!("N{leaf}")},
                "attributes": [{"key": "fabric", "level": "p", "inheritance": "visible", "restriction": "optional",
                    "domainValues": [{"tid": "a", "names": {"en_GB": "A"}}, {"tid": "b", "names": {"en_GB": "B"}}]}],
                "products": [format!("RP-{}", branch * 19 + leaf)]}));
        }
    }
    let mut classifications = vec![
        json!({"tid": "Realistic", "names": {"": "Realistic", "de_DE": "Realistisch"}, "nodes": nodes}),
    ];
    for small in 0..200 {
        let tid = format!("Small{small}");
        let nodes: Vec<Value> = std::iter::once(json!({"path": format!("/{tid}")}))
            .chain((0..4).map(|node| {
                json!({"path": format!("/{tid}/S{node}"), "names": {"de_DE": format!("S{node}")},
                    "attributes": [{"key": "weight", "level": "p", "inheritance": "visible", "restriction": "optional"}]})
            }))
            .collect();
        classifications.push(
            json!({"tid": tid, "names": {"de_DE": format!("Klein {small}")}, "nodes": nodes}),
        );
    }
    push(&mut document, "classifications", classifications);
    let tokens = (0..1000)
        .map(|user| {
            json!({"user": format!("user{user}"), "roles": ["editor"],
                "token": format!("{user:016x}.{:064x}", user)})
        })
        .collect();
    push(&mut document, "tokens", tokens);
    let entries: Vec<Value> = (0..1000)
        .map(|entry| {
            json!({"tid": format!("RGE-{entry}"), "type": "term", "loc": "en_GB", "value": format!("term {entry}"),
                "translations": [{"loc": "de_DE", "value": format!("Begriff {entry}"), "similarity": 90}]})
        })
        .collect();
    push(
        &mut document,
        "glossaries",
        vec![
            json!({"tid": "GL-REALISTIC", "name": "Realistic", "languages": ["en_GB", "de_DE"], "entries": entries}),
        ],
    );
    let template = document["briefings"][0].clone();
    let briefings = (0..500)
        .map(|layout| {
            let mut briefing = template.clone();
            briefing["channel"] = json!(format!(
                "RC-{}-{}-{}",
                layout % 5,
                layout / 50 % 10,
                layout % 20
            ));
            briefing["layout"] = json!(1000 + layout);
            briefing
        })
        .collect();
    push(&mut document, "briefings", briefings);
    document
}
