//! Two instances on one PostgreSQL database racing for the same records (D-37): the rules hold
//! by constraints and locks, not by checks that a concurrent request can slip between. Each race
//! is run many times, both requests released together, and the stored data is then held to the
//! rule. Runs when `CORE_TEST_POSTGRES_URL` is set; `CORE_TEST_BINARY` runs it against another
//! build (an older one fails it).

mod support;

use std::sync::{Arc, Barrier};

use core_api::messages as msg;
use serde_json::{Value, json};
use support::{Server, core_server, exchange, serve_with};

/// How many times each race is run.
const TRIES: usize = 40;

const KEYWORDS: &str = "/api/core/v1/common/keywords/persist";
const LINKS: &str = "/api/core/v1/common/links/persist";
const ATTRIBUTES: &str = "/api/core/v1/pim/attributes/persist";
const DEFINITIONS: &str = "/api/core/v1/pim/attribute-definitions/perform";
const CLASSES: &str = "/api/core/v1/pim/classes/persist";
const CHANNELS: &str = "/api/core/v1/cm/channels/persist";

/// Two instances on a fresh schema with the demo catalogue and the races' fixture.
struct Pair {
    _servers: (Server, Server),
    addresses: [String; 2],
    token: String,
    pool: sqlx::AnyPool,
}

impl Pair {
    /// Posts a JSON body to instance `which`; the status and body.
    fn post(&self, which: usize, path: &str, body: &Value) -> (u16, Value) {
        let body = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n\
             Accept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.token,
            body.len()
        );
        let (status, text) = exchange(&self.addresses[which], &request);
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// The first result record of a batch answer.
    fn record(&self, which: usize, path: &str, body: &Value) -> Value {
        let (status, answer) = self.post(which, path, body);
        assert_eq!(status, 200, "{answer}");
        answer["responses"]["response"][0].clone()
    }

    /// Sends `first` to instance 0 and `second` to instance 1 at the same moment; their first
    /// records.
    fn race(&self, path: (&str, &str), first: Value, second: Value) -> (Value, Value) {
        let barrier = Arc::new(Barrier::new(2));
        std::thread::scope(|scope| {
            let one = scope.spawn(|| {
                barrier.wait();
                self.record(0, path.0, &first)
            });
            let two = scope.spawn(|| {
                barrier.wait();
                self.record(1, path.1, &second)
            });
            (one.join().expect("a thread"), two.join().expect("a thread"))
        })
    }

    async fn count(&self, statement: &str) -> i64 {
        sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(statement.to_string()))
            .fetch_one(&self.pool)
            .await
            .unwrap_or_else(|error| panic!("{statement}: {error}"))
    }
}

/// The fixture the races need besides the demo: products to link, definitions to delete.
fn fixture() -> Value {
    json!({
        "attributeDefinitions": (0..TRIES)
            .flat_map(|try_| [format!("RaceDef{try_}"), format!("RaceTwinDef{try_}")])
            .map(|tid| json!({"tid": tid, "type": "text"}))
            .collect::<Vec<_>>(),
        "products": (0..TRIES).map(|try_| json!({"tid": format!("RaceProduct{try_}"), "name": "x"})).collect::<Vec<_>>(),
    })
}

/// Two instances of the binary under test on a fresh schema: the demo catalogue, the fixture and
/// a token are loaded with the binary's own commands (so an older build migrates the schema its
/// way), then both serve (not as the demo: a database `import` made is not the demo's).
async fn pair() -> Option<Pair> {
    let base = std::env::var("CORE_TEST_POSTGRES_URL").ok()?;
    let url = core_server::testing::fresh_postgres_schema(&base)
        .await
        .expect("a fresh schema");
    let folder = std::env::temp_dir().join(format!("core-races-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a folder");
    let file = folder.join("fixture.json");
    std::fs::write(&file, fixture().to_string()).expect("the fixture");
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/demo.json");
    for document in [demo, &file.to_string_lossy()] {
        let imported = core_server(&["import", document], &url);
        assert!(imported.status.success(), "{imported:?}");
    }
    let issued = core_server(
        &["token", "issue", "--user", "racer", "--role", "admin"],
        &url,
    );
    assert!(issued.status.success(), "{issued:?}");
    let token = String::from_utf8_lossy(&issued.stdout).trim().to_string();
    let (first, one) = serve_with(&url, &[]);
    let (second, two) = serve_with(&url, &[]);
    // Counts are read beside them, without migrating anything.
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await.expect("a pool");
    Some(Pair {
        _servers: (first, second),
        addresses: [one, two],
        token,
        pool,
    })
}

/// Declares a test of one race on a pair of its own (skipped without PostgreSQL).
macro_rules! races {
    ($($race:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            async fn $race() {
                let Some(pair) = pair().await else {
                    eprintln!("skipped: CORE_TEST_POSTGRES_URL is not set");
                    return;
                };
                self::race::$race(&pair).await;
            }
        )*
    };
}

races!(
    a_keyword_created_while_its_parent_is_renamed_takes_the_new_path,
    concurrent_links_keep_the_cardinality,
    a_definition_is_not_deleted_under_an_attribute_saved_beside,
    a_localized_classification_name_names_one_classification,
    concurrent_creates_of_one_record_answer_as_one_after_the_other,
);

/// The races.
mod race {
    use super::*;

    pub(super) async fn a_keyword_created_while_its_parent_is_renamed_takes_the_new_path(
        pair: &Pair,
    ) {
        for try_ in 0..TRIES {
            let parent = pair.record(
            0,
            KEYWORDS,
            &json!({"kwds": {"kwd": [{"name": {"itm": [{"value": format!("RaceParent{try_}")}]}}]}}),
        );
            let id = parent["id"].as_i64().expect("an id");
            // By id and by path on alternate tries.
            let child = if try_ % 2 == 0 {
                json!({"parentId": id, "name": {"itm": [{"value": "child"}]}})
            } else {
                json!({"parentPath": format!("/RaceParent{try_}"), "name": {"itm": [{"value": "child"}]}})
            };
            let (_, _) = pair.race(
            (KEYWORDS, KEYWORDS),
            json!({"kwds": {"kwd": [{"id": id, "name": {"itm": [{"value": format!("RaceRenamed{try_}")}]}}]}}),
            json!({"kwds": {"kwd": [child]}}),
        );
        }
        let astray = pair
            .count(
                "SELECT COUNT(*) FROM keywords c JOIN keywords p ON p.id = c.parent_id \
             WHERE c.path <> p.path || '/' || c.name",
            )
            .await;
        assert_eq!(astray, 0, "keywords whose path is not their parent's");
    }

    pub(super) async fn concurrent_links_keep_the_cardinality(pair: &Pair) {
        // `productManual` holds one asset per product.
        for try_ in 0..TRIES {
            let link = |asset: &str| {
                json!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "productManual", "itm": [
                {"key": "productTid", "value": format!("RaceProduct{try_}")}, {"key": "assetTid", "value": asset}]}]}]}})
            };
            let (one, two) = pair.race((LINKS, LINKS), link("A-1001"), link("A-1003"));
            let saved = [&one, &two]
                .iter()
                .filter(|record| record["status"] == "SUCCESS")
                .count();
            assert_eq!(saved, 1, "{one} {two}");
        }
        let over = pair
            .count(
                "SELECT COUNT(*) FROM (SELECT product_id FROM product_assets a \
             JOIN attribute_definitions d ON d.id = a.link_type_id WHERE d.tid = 'productManual' \
             GROUP BY product_id HAVING COUNT(*) > 1) o",
            )
            .await;
        assert_eq!(
            over, 0,
            "products linking more assets than the cardinality allows"
        );
    }

    pub(super) async fn a_definition_is_not_deleted_under_an_attribute_saved_beside(pair: &Pair) {
        for try_ in 0..TRIES {
            let key = format!("RaceDef{try_}");
            let (saved, deleted) = pair.race(
            (ATTRIBUTES, DEFINITIONS),
            json!({"attrs": {"attr": [{"nodePath": "/Apparel/Bottoms", "key": key, "level": "p",
                "inheritance": "visible", "restriction": "optional", "localized": false}]}}),
            json!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": key}]}}),
        );
            let stored = pair
                .count(&format!(
                    "SELECT COUNT(*) FROM node_attributes a JOIN attribute_definitions d \
                 ON d.id = a.attribute_definition_id WHERE d.tid = '{key}'"
                ))
                .await;
            if saved["status"] == "SUCCESS" {
                assert_eq!(stored, 1, "saved, yet gone: {saved} {deleted}");
                assert_eq!(deleted["status"], "ERROR", "{saved} {deleted}");
            } else {
                assert_eq!(deleted["status"], "SUCCESS", "{saved} {deleted}");
            }
        }
    }

    pub(super) async fn a_localized_classification_name_names_one_classification(pair: &Pair) {
        let class = |tid: String, name: Option<String>| {
            let mut names = vec![json!({"value": tid})];
            names.extend(name.map(|name| json!({"loc": "de_DE", "value": name})));
            json!({"classes": {"class": [{"tid": tid, "name": {"itm": names}}]},
               "nodes": {"node": [{"class": tid, "path": format!("/{tid}")}]}})
        };
        for try_ in 0..TRIES {
            for side in ["A", "B"] {
                pair.record(0, CLASSES, &class(format!("RaceClass{side}{try_}"), None));
            }
            let name = Some(format!("Rennen{try_}"));
            let (one, two) = pair.race(
                (CLASSES, CLASSES),
                class(format!("RaceClassA{try_}"), name.clone()),
                class(format!("RaceClassB{try_}"), name),
            );
            let warned = [&one, &two]
                .iter()
                .filter(|record| record["status"] == "WARNING")
                .count();
            assert_eq!(warned, 1, "one of them takes the name: {one} {two}");
        }
        let taken_twice = pair
            .count(
                "SELECT COUNT(*) FROM (SELECT loc, name FROM classification_names WHERE loc <> '' \
             GROUP BY loc, name HAVING COUNT(*) > 1) twice",
            )
            .await;
        assert_eq!(
            taken_twice, 0,
            "localized names held by two classifications"
        );
    }

    pub(super) async fn concurrent_creates_of_one_record_answer_as_one_after_the_other(
        pair: &Pair,
    ) {
        for try_ in 0..TRIES {
            // A classification: created by one, saved by the other.
            let tid = format!("RaceTwin{try_}");
            let class = json!({"classes": {"class": [{"tid": tid, "name": {"itm": [{"value": tid}]}}]},
                           "nodes": {"node": [{"class": tid, "path": format!("/{tid}")}]}});
            let (one, two) = pair.race((CLASSES, CLASSES), class.clone(), class);
            let mut texts = [description(&one), description(&two)];
            texts.sort();
            assert_eq!(
                texts,
                [
                    msg::THE_CLASSIFICATION_HAS_BEEN_CREATED_SUCCESSFULLY,
                    msg::THE_CLASSIFICATION_HAS_BEEN_SAVED_SUCCESSFULLY
                ],
                "{one} {two}"
            );
            // An attribute of one node: created by one, saved by the other.
            let attr = json!({"attrs": {"attr": [{"nodePath": "/Apparel/Tops/Shirts", "key": format!("RaceTwinDef{try_}"),
            "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false}]}});
            let (one, two) = pair.race((ATTRIBUTES, ATTRIBUTES), attr.clone(), attr);
            let mut texts = [description(&one), description(&two)];
            texts.sort();
            assert_eq!(
                texts,
                [
                    msg::THE_ATTRIBUTE_HAS_BEEN_CREATED_SUCCESSFULLY,
                    msg::THE_ATTRIBUTE_HAS_BEEN_SAVED_SUCCESSFULLY
                ],
                "{one} {two}"
            );
            // A keyword and a channel: one created, the other refused as existing already.
            let kwd = json!({"kwds": {"kwd": [{"name": {"itm": [{"value": format!("RaceTwin{try_}")}]}}]}});
            let (one, two) = pair.race((KEYWORDS, KEYWORDS), kwd.clone(), kwd);
            let mut texts = [description(&one), description(&two)];
            texts.sort();
            assert_eq!(
                texts,
                [
                    format!("Keyword '/RaceTwin{try_}' already exists"),
                    msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY.to_string()
                ],
                "{one} {two}"
            );
            let project = json!({"projects": {"project": [{"tid": format!("RaceTwin{try_}"), "parentTid": "CAT-2027",
            "type": "chapter", "name": "Twin"}]}});
            let (one, two) = pair.race((CHANNELS, CHANNELS), project.clone(), project);
            // The second either saw the first's (an update) or met it at the unique tid.
            let texts = [description(&one), description(&two)];
            let created = msg::THE_PROJECT_HAS_BEEN_CREATED_SUCCESSFULLY;
            let other = texts.iter().find(|text| *text != created);
            assert!(
                texts.iter().filter(|text| *text == created).count() == 1
                    && other.is_some_and(|text| {
                        *text == format!("Project 'RaceTwin{try_}' already exists")
                            || text == msg::THE_PROJECT_HAS_BEEN_SAVED_SUCCESSFULLY
                    }),
                "{one} {two}"
            );
        }
    }

    fn description(record: &Value) -> String {
        record["description"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}
