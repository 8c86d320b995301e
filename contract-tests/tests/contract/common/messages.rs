//! `messages/persist` over HTTP (D-34): the recipient rule checked for the whole request first,
//! the role's precedence, generated tids, and what is stored; on SQLite and, when
//! `CORE_TEST_POSTGRES_URL` is set, PostgreSQL.

use contract_tests::{TestServer, backends, coverage, issue_item};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::MESSAGES_PERSIST as PERSIST;
use core_api_support::Representation::Json;
use core_server::modules::list_messages;
use serde_json::{Value, json};

use crate::answers::{self, Scenario};

async fn post(server: &TestServer, content_type: &'static str, body: &str) -> (u16, Value) {
    let answer = server
        .call(&PERSIST)
        .raw(content_type, body.to_string())
        .accept(Json)
        .send()
        .await;
    (answer.status, answer.json())
}

async fn messages_are_checked_whole_then_stored_each() {
    for url in backends("messages persist").await {
        let server = TestServer::start_on(&url).await;
        // Two of three messages lack a recipient: 400, one record each, nothing stored.
        let body = json!({"messages": [
            {"tid": "M-1", "subject": "fine", "recipientUser": "alice"},
            {"tid": "M-2", "subject": "nobody"},
            {"subject": "blank", "recipientUser": " ", "recipientRole": ""}
        ]});
        let (status, answer) = post(&server, "application/json", &body.to_string()).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["schemaVersion"], "5.6.0");
        let records = answer["responses"]["response"].as_array().expect("records");
        assert_eq!(records.len(), 2, "{answer}");
        assert_eq!(
            coverage::said(&PERSIST, records, coverage::status_and_description),
            [(
                "ERROR",
                msg::EITHER_RECIPIENTUSER_OR_RECIPIENTROLE_MUST_BE_GIVEN
            ); 2]
        );
        for (record, (path, tid)) in records
            .iter()
            .zip([("messages[2]", Some("M-2")), ("messages[3]", None)])
        {
            assert_eq!(record["dataType"], "message");
            assert_eq!(record["path"], path);
            assert_eq!(record["tid"].as_str(), tid);
        }
        assert!(
            list_messages(&server.database, None, None)
                .await
                .expect("lists")
                .is_empty()
        );

        // Valid: each stored; the role wins over the user; a missing tid is generated.
        let body = json!({"messages": [
            {"tid": "M-1", "subject": "Upload failed", "body": "a.jpg", "severity": "ERROR",
             "recipientUser": "alice", "senderApplication": "dam", "senderPlugin": "upload",
             "parameters": {"file": "a.jpg", "attempt": "2"}},
            {"subject": "Both", "recipientUser": "bob", "recipientRole": "editors"}
        ]});
        let (status, answer) = post(&server, "application/json", &body.to_string()).await;
        assert_eq!(status, 200, "{answer}");
        let records = answer["responses"]["response"].as_array().expect("records");
        assert_eq!(
            coverage::said(&PERSIST, &records[..1], Value::clone),
            [
                json!({"action": "create", "dataType": "message", "tid": "M-1",
            "status": "SUCCESS", "description": msg::THE_MESSAGE_HAS_BEEN_SENT_SUCCESSFULLY})
            ]
        );
        let generated = records[1]["tid"].as_str().expect("a tid");
        assert_eq!(generated.len(), 36, "a UUID: {generated}");
        let stored = list_messages(&server.database, None, None)
            .await
            .expect("lists");
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[0].severity.as_deref(), Some("ERROR"));
        assert_eq!(
            stored[0].parameters,
            Some(json!({"attempt": "2", "file": "a.jpg"}))
        );
        assert_eq!(
            stored[1].severity.as_deref(),
            Some("INFO"),
            "the default severity"
        );
        assert_eq!(
            (
                stored[1].recipient_user.as_deref(),
                stored[1].recipient_role.as_deref()
            ),
            (None, Some("editors"))
        );
        assert_eq!(
            list_messages(&server.database, Some("alice"), None)
                .await
                .expect("lists")
                .len(),
            1
        );
        // A tid names one message: sending it again is an item error, the others are stored.
        let body = json!({"messages": [{"tid": "M-1", "recipientUser": "alice"}, {"tid": "M-3", "recipientUser": "alice"}]});
        let (status, answer) = post(&server, "application/json", &body.to_string()).await;
        assert_eq!(status, 200, "{answer}");
        let records = answer["responses"]["response"].as_array().expect("records");
        assert_eq!(
            coverage::said(&PERSIST, &records[..1], coverage::status_and_description),
            [("ERROR", "Message 'M-1' already exists")]
        );
        assert_eq!(records[1]["status"], "SUCCESS");
        assert_eq!(
            list_messages(&server.database, None, None)
                .await
                .expect("lists")
                .len(),
            3
        );

        // Format problems are 400 with the ResponsesType too; only JSON is taken.
        for (body, message) in [
            (json!({}), "missing required value 'messages'"),
            (
                json!({"messages": [{"recipientUser": "a", "severity": "LOUD"}]}),
                "messages[1]/severity",
            ),
            (
                json!({"messages": [{"recipientUser": 5}]}),
                "messages[1]/recipientUser: expected string",
            ),
        ] {
            let (status, answer) = post(&server, "application/json", &body.to_string()).await;
            assert_eq!(status, 400, "{answer}");
            let description = answer["responses"]["response"][0]["description"]
                .as_str()
                .unwrap_or_default();
            assert!(description.contains(message), "{description}");
        }
        let (status, answer) = post(&server, "application/xml", "<pim/>").await;
        assert_eq!(status, 415);
        assert_eq!(issue_item(&answer, "code"), Some("1007"));
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario::new(
            "messages_persist",
            &op::MESSAGES_PERSIST,
            json!({"messages": [{"tid": "MSG-1", "subject": "Upload failed", "severity": "ERROR", "recipientUser": "editor"}]}),
        ),
        Scenario::new(
            "messages_persist_refused",
            &op::MESSAGES_PERSIST,
            json!({"messages": [{"tid": "MSG-1", "recipientUser": "editor"}, {"tid": "MSG-2"}]}),
        ),
    ]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    messages_are_checked_whole_then_stored_each,
    answers_in_every_representation,
);
