//! `Idempotency-Key` on batch operations (D-14), on SQLite and, when `CORE_TEST_POSTGRES_URL` is
//! set, PostgreSQL: a retry with the key answers the first answer byte for byte in the
//! representation it asks for and applies nothing; the key with another request is 422; keys
//! are each user's own, a batch refused whole keeps none, and a key lives for the retention;
//! requests with one key at once, also on two instances of one PostgreSQL, apply it once.

use contract_tests::{TestServer, backends, codec, exchange::Answer, issue_item};
use core_api::operations::{KEYWORDS_PERSIST, MESSAGES_PERSIST};
use core_api_support::{
    Operation,
    Representation::{self, Compact, Json, Xml},
};
use core_server::auth;
use serde_json::{Value, json};

/// The request header.
const KEY: &str = "Idempotency-Key";

/// A messages persist request of one message (its tid generated, so a second apply would store
/// a second message).
fn message(subject: &str) -> Value {
    json!({"messages": [{"subject": subject, "recipientRole": "editors"}]})
}

/// Sends a batch in a representation (asking for the answer in it), with a key.
async fn send_to(
    server: &TestServer,
    operation: &'static Operation,
    key: Option<&str>,
    representation: Representation,
    body: &Value,
) -> Answer {
    let schema = operation.request.as_ref().expect("a request body").schema;
    let bytes = codec()
        .encode(representation, body.clone(), schema)
        .expect("the request in the representation");
    let mut call = server
        .call(operation)
        .body(representation, bytes)
        .accept(representation);
    if let Some(key) = key {
        call = call.header(KEY, key);
    }
    call.send().await
}

/// Sends a message batch in JSON, with a key.
async fn send(server: &TestServer, key: Option<&str>, body: &Value) -> Answer {
    send_to(server, &MESSAGES_PERSIST, key, Json, body).await
}

/// A keywords persist request creating one root keyword (a second apply would answer "already
/// exists" instead of the first answer).
fn keyword(name: &str) -> Value {
    json!({"kwds": {"kwd": [{"name": {"itm": [{"value": name}]}}]}})
}

fn replayed(answer: &Answer) -> bool {
    answer
        .headers
        .get("idempotent-replayed")
        .is_some_and(|value| value == "true")
}

/// How many keywords with this path are stored.
async fn keywords(server: &TestServer, path: &str) -> i64 {
    sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM keywords WHERE path = $1")
        .bind(path)
        .fetch_one(server.database.reads())
        .await
        .expect("a count")
}

/// How many messages with this subject are stored.
async fn stored(server: &TestServer, subject: &str) -> i64 {
    sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM messages WHERE subject = $1")
        .bind(subject)
        .fetch_one(server.database.reads())
        .await
        .expect("a count")
}

/// An answer as a tree, read in its representation.
fn tree(answer: &Answer, representation: Representation) -> Value {
    let schema = KEYWORDS_PERSIST.response.schema.expect("a message answer");
    codec()
        .decode(representation, &answer.bytes, schema)
        .expect("an answer of the document")
}

async fn a_retry_answers_the_first_answer_byte_for_byte_in_every_representation() {
    for url in backends("Idempotency-Key replay").await {
        let server = TestServer::start_on(&url).await;
        for representation in [Json, Xml, Compact] {
            let name = format!("Retry{representation:?}");
            let key = format!("retry-{representation:?}");
            let (operation, body) = (&KEYWORDS_PERSIST, keyword(&name));
            let first = send_to(&server, operation, Some(&key), representation, &body).await;
            assert_eq!(first.status, 200, "{}", first.text);
            assert!(
                !replayed(&first) && first.text.contains("SUCCESS"),
                "{}",
                first.text
            );
            let again = send_to(&server, operation, Some(&key), representation, &body).await;
            assert_eq!(again.status, 200, "{}", again.text);
            assert!(replayed(&again), "{representation:?}");
            assert_eq!(
                again.bytes, first.bytes,
                "{representation:?}: byte for byte"
            );
            assert_eq!(keywords(&server, &format!("/{name}")).await, 1);
        }
        // The kept answer in another representation than the first one's: the same records and
        // messageTime, nothing applied.
        let body = keyword("RetryJson");
        let first = send_to(&server, &KEYWORDS_PERSIST, Some("retry-Json"), Json, &body).await;
        let as_xml = send_to(&server, &KEYWORDS_PERSIST, Some("retry-Json"), Xml, &body).await;
        assert!(replayed(&first) && replayed(&as_xml));
        assert_eq!(tree(&as_xml, Xml), tree(&first, Json));
        // Without a key the same batch is a new one: here refused, the keyword exists.
        let fresh = send_to(&server, &KEYWORDS_PERSIST, None, Json, &body).await;
        assert!(
            !replayed(&fresh) && fresh.text.contains("already exists"),
            "{}",
            fresh.text
        );
        // A message without a tid gets a new one each time it is applied: once with a key.
        for _ in 0..2 {
            assert_eq!(
                send(&server, Some("message"), &message("once"))
                    .await
                    .status,
                200
            );
        }
        assert_eq!(stored(&server, "once").await, 1);
        assert_eq!(send(&server, None, &message("once")).await.status, 200);
        assert_eq!(stored(&server, "once").await, 2);
        server.stop().await;
    }
}

async fn a_key_is_its_users_for_one_request_within_the_retention() {
    for url in backends("Idempotency-Key rules").await {
        let server = TestServer::start_on_with(&url, |settings| {
            settings.idempotency_retention = std::time::Duration::from_secs(2);
        })
        .await;
        assert_eq!(send(&server, Some("K"), &message("a")).await.status, 200);
        // The key with other items, or for another operation: 422, nothing applied.
        let other = send(&server, Some("K"), &message("b")).await;
        assert_eq!(other.status, 422, "{}", other.text);
        let body = other.json();
        assert_eq!(body["description"], "Unprocessable content");
        assert_eq!(issue_item(&body, "code"), Some("1018"));
        assert!(issue_item(&body, "errorMessage").is_some_and(|text| text.contains("'K'")));
        assert_eq!(stored(&server, "b").await, 0);
        let keyword = json!({"kwds": {"kwd": [{"name": {"itm": [{"value": "Keyed"}]}}]}});
        let answer = server
            .call(&KEYWORDS_PERSIST)
            .json(&keyword)
            .header(KEY, "K")
            .send()
            .await;
        assert_eq!(answer.status, 422, "{}", answer.text);
        // Another user's key of the same name is another key.
        let other_user = auth::issue(&server.database, "other", &[auth::ADMIN.to_string()])
            .await
            .expect("a token");
        let theirs = server
            .call(&MESSAGES_PERSIST)
            .token(&other_user)
            .json(&message("a"))
            .header(KEY, "K")
            .send()
            .await;
        assert!(
            theirs.status == 200 && !replayed(&theirs),
            "{}",
            theirs.text
        );
        assert_eq!(stored(&server, "a").await, 2);
        // A batch refused whole keeps no key: sent again, it is applied.
        let refused = json!({"messages": [{"subject": "c"}]});
        let answer = server
            .call(&MESSAGES_PERSIST)
            .json(&refused)
            .header(KEY, "L")
            .send()
            .await;
        assert_eq!(answer.status, 400, "{}", answer.text);
        let answer = send(&server, Some("L"), &message("c")).await;
        assert!(answer.status == 200 && !replayed(&answer));
        // A malformed key is 400.
        for key in ["two words", &"k".repeat(256)] {
            let answer = send(&server, Some(key), &message("d")).await;
            assert_eq!(answer.status, 400, "{key}: {}", answer.text);
        }
        // Past the retention the key is free again, and the housekeeping deletes it.
        tokio::time::sleep(std::time::Duration::from_millis(2_100)).await;
        let later = send(&server, Some("L"), &message("c")).await;
        assert!(later.status == 200 && !replayed(&later));
        assert_eq!(stored(&server, "c").await, 2);
        let purged = core_server::modules::idempotency::purge(&server.database)
            .await
            .expect("purged");
        assert!(purged >= 1, "the key K of two users expired: {purged}");
        server.stop().await;
    }
}

async fn requests_with_one_key_at_once_apply_it_once_on_every_instance() {
    for url in backends("Idempotency-Key in flight").await {
        let first = TestServer::start_on(&url).await;
        // On PostgreSQL, half of the requests go to a second instance on the same database.
        let second = if url.starts_with("postgres") {
            Some(first.beside().await)
        } else {
            None
        };
        let servers: Vec<&TestServer> = (0..8)
            .map(|index| match &second {
                Some(second) if index % 2 == 1 => second,
                _ => &first,
            })
            .collect();
        let body = message("at once");
        let answers = futures_util::future::join_all(
            servers
                .iter()
                .map(|server| send(server, Some("at-once"), &body)),
        )
        .await;
        for answer in &answers {
            assert_eq!(answer.status, 200, "{}", answer.text);
            assert_eq!(answer.bytes, answers[0].bytes, "one answer for all");
        }
        let applied = answers.iter().filter(|answer| !replayed(answer)).count();
        assert_eq!(applied, 1, "exactly one request applied the batch");
        assert_eq!(stored(&first, "at once").await, 1);
        if let Some(second) = second {
            second.stop().await;
        }
        first.stop().await;
    }
}

contract_tests::trials!(
    a_retry_answers_the_first_answer_byte_for_byte_in_every_representation,
    a_key_is_its_users_for_one_request_within_the_retention,
    requests_with_one_key_at_once_apply_it_once_on_every_instance,
);
