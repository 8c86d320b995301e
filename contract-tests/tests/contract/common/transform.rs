//! `POST /api/core/v1/common/transform` over HTTP: all nine source/target pairs give the documented
//! example, and every kind of hostile input is refused with a 400 (or 413) that says what is
//! wrong and where.

use contract_tests::{TestServer, coverage, document, examples};
use core_api::operations as op;
use core_api::operations::TRANSFORM;
use core_api_support::Representation;
use core_conformance::bodies::name;
use serde_json::{Value, json};

use crate::answers::{self, Scenario};

/// Posts any body with any media types (hostile input, a streamed body) to transform.
async fn post(
    server: &TestServer,
    content_type: &str,
    accept: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    coverage::sent(&TRANSFORM);
    server
        .client()
        .post(server.url(TRANSFORM.path))
        .header("content-type", content_type)
        .header("accept", accept)
        .body(body)
        .send()
        .await
        .expect("an answer")
}

/// The description of the record of a transform 400 (a ResponsesType).
async fn refusal(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("a JSON error body");
    let description = body["responses"]["response"][0]["description"]
        .as_str()
        .or_else(|| body["description"].as_str())
        .unwrap_or_default()
        .to_string();
    (status, description)
}

const XML: &str = "application/xml; charset=UTF-8";

const JSON: &str = "application/json";

async fn all_nine_pairs_give_the_documented_example() {
    let server = TestServer::start().await;
    let document = document();
    let all = examples(&document);
    let requests: Vec<_> = all
        .iter()
        .filter(|example| example.place == "transform request")
        .collect();
    let answers: Vec<_> = all
        .iter()
        .filter(|example| example.place == "transform 200")
        .collect();
    assert_eq!((requests.len(), answers.len()), (3, 3));
    for request in &requests {
        for answer in &answers {
            let label = format!("{} → {}", request.media, answer.media);
            let response = post(&server, &request.media, &answer.media, request.bytes()).await;
            assert_eq!(response.status().as_u16(), 200, "{label}");
            assert_eq!(
                response.headers()["content-type"],
                answer.media.as_str(),
                "{label}"
            );
            let body = response.text().await.expect("a body");
            match answer.representation() {
                Representation::Xml => assert_eq!(
                    body.trim_end(),
                    answer.value.as_str().unwrap_or_default().trim_end(),
                    "{label}"
                ),
                _ => assert_eq!(
                    serde_json::from_str::<Value>(&body).expect("JSON"),
                    answer.value,
                    "{label}"
                ),
            }
        }
    }
    server.stop().await;
}

async fn hostile_input_is_refused_with_what_and_where() {
    let server = TestServer::start().await;
    let deep_xml = format!(
        r#"<pim xmlns="urn:core-interface:v1"><links>{}{}</links></pim>"#,
        "<itms>".repeat(200),
        "</itms>".repeat(200)
    );
    let deep_json = format!(
        r#"{{"links":{{"itms":[{}]}}}}"#,
        r#"{"itms":["#.repeat(150) + &"]}".repeat(150)
    );
    let cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![
        (
            "DOCTYPE",
            XML,
            br#"<?xml version="1.0"?><!DOCTYPE pim [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><pim xmlns="urn:core-interface:v1"/>"#.to_vec(),
            "a document type declaration (DOCTYPE) is not allowed",
        ),
        (
            "unknown entity",
            XML,
            br#"<pim xmlns="urn:core-interface:v1"><meta><itm key="k">&lol;</itm></meta></pim>"#.to_vec(),
            "meta/itm[1]: unknown entity '&lol;'",
        ),
        ("deep XML", XML, deep_xml.into_bytes(), "nesting deeper than 64 levels"),
        ("deep JSON", JSON, deep_json.into_bytes(), "nesting deeper than 64 levels"),
        ("invalid UTF-8 in XML", XML, b"<pim xmlns=\"urn:core-interface:v1\" schemaVersion=\"\xff\"/>".to_vec(), "not valid UTF-8 (byte 50)"),
        ("invalid UTF-8 in JSON", JSON, b"{\"schemaVersion\":\"\xc3\x28\"}".to_vec(), "not valid UTF-8 (byte 18)"),
        ("malformed XML", XML, br#"<pim xmlns="urn:core-interface:v1"><kwds></pim>"#.to_vec(), "malformed body"),
        ("malformed JSON", JSON, br#"{"kwds":"#.to_vec(), "malformed body"),
        ("duplicate JSON key", JSON, br#"{"kwds":{"kwd":[{"id":1,"path":"/a","id":2}]}}"#.to_vec(), "kwds/kwd[1]: 'id' occurs more than once"),
        ("unknown root", XML, br#"<foo xmlns="urn:core-interface:v1"/>"#.to_vec(), "expected root element 'pim', found 'foo'"),
        ("JSON array as message", JSON, b"[1,2]".to_vec(), "expected object"),
        (
            "text where a number is due",
            XML,
            br#"<pim xmlns="urn:core-interface:v1"><kwds><kwd/><kwd id="abc"/></kwds></pim>"#.to_vec(),
            r#"kwds/kwd[2]/id: expected integer, found "abc""#,
        ),
        (
            "missing required value",
            XML,
            br#"<pim xmlns="urn:core-interface:v1"><meta><itm>request</itm></meta></pim>"#.to_vec(),
            "meta/itm[1]: missing required value 'key'",
        ),
        ("empty body", XML, Vec::new(), "the body is empty"),
        (
            "a control character in JSON",
            JSON,
            br#"{"meta":{"itm":[{"key":"k","value":"bell\u0007"}]}}"#.to_vec(),
            "meta/itm[1]/value: the character U+0007 is not allowed",
        ),
        (
            "a control character by reference in XML",
            XML,
            br#"<pim xmlns="urn:core-interface:v1"><meta><itm key="k">&#7;</itm></meta></pim>"#.to_vec(),
            "meta/itm[1]: the character U+0007 is not allowed",
        ),
        (
            "a control character by reference in an XML attribute",
            XML,
            br#"<pim xmlns="urn:core-interface:v1"><meta><itm key="k&#8;">x</itm></meta></pim>"#.to_vec(),
            "meta/itm[1]: the character U+0008 is not allowed",
        ),
        (
            "a raw control character in XML",
            XML,
            b"<pim xmlns=\"urn:core-interface:v1\"><meta><itm key=\"k\">\x07</itm></meta></pim>".to_vec(),
            "the character U+0007 is not allowed",
        ),
        ("another major schemaVersion", JSON, br#"{"schemaVersion":"6.0.0"}"#.to_vec(), "unsupported schemaVersion '6.0.0'"),
    ];
    for (label, content_type, body, expected) in cases {
        let (status, description) = refusal(post(&server, content_type, JSON, body).await).await;
        assert_eq!(status, 400, "{label}: {description}");
        assert!(
            description.contains(expected),
            "{label}: {description:?} lacks {expected:?}"
        );
    }
    server.stop().await;
}

async fn an_oversized_chunked_body_is_refused_with_413() {
    let server = TestServer::start_with(|settings| settings.max_body_bytes = 64 * 1024).await;
    // No Content-Length: the limit must hold while the body is read.
    let chunks = (0..100).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 4096])));
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let response = post(&server, JSON, JSON, body).await;
    assert_eq!(response.status().as_u16(), 413);
    let (_, description) = refusal(response).await;
    assert_eq!(description, "Payload too large");
    server.stop().await;
}

/// A refusal that quotes what the request sent (an unknown property's name) is itself a valid
/// message: characters XML cannot carry are escaped and a long name is cut, in every answer.
async fn refusals_quote_the_request_printably() {
    let server = TestServer::start().await;
    let long = "n".repeat(10_000);
    for (body, quoted) in [
        (
            r#"{"bell\u0007name": 1}"#.to_string(),
            "unknown property 'bell\\u{7}name'",
        ),
        (format!(r#"{{"{long}": 1}}"#), "unknown property 'nnnn"),
    ] {
        for accept in [JSON, XML] {
            let answer = post(&server, JSON, accept, body.clone()).await;
            assert_eq!(answer.status().as_u16(), 400);
            let text = answer.text().await.expect("a body");
            // The text as read: JSON escapes the backslash of the escape once more.
            let read =
                match accept {
                    JSON => {
                        serde_json::from_str::<serde_json::Value>(&text).expect("JSON")["responses"]
                            ["response"][0]["description"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string()
                    }
                    _ => text.clone(),
                };
            assert!(read.contains(quoted), "{text}");
            assert!(!text.contains('\u{7}'), "{text}");
            assert!(
                text.len() < 9_000,
                "the quoted name is cut: {} bytes",
                text.len()
            );
        }
    }
    server.stop().await;
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![Scenario::new(
        "transform",
        &op::TRANSFORM,
        json!({"meta": {"itm": [{"key": "sourceEnv", "value": "ci"}]},
                   "kwds": {"kwd": [{"id": 7, "path": "/Season", "name": name("Season")}]}}),
    )]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    all_nine_pairs_give_the_documented_example,
    hostile_input_is_refused_with_what_and_where,
    an_oversized_chunked_body_is_refused_with_413,
    refusals_quote_the_request_printably,
    answers_in_every_representation,
);
