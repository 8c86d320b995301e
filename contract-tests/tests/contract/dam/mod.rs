//! Asset binaries over HTTP (D-36), on SQLite and, when `CORE_TEST_POSTGRES_URL` is set,
//! PostgreSQL: a version by asset and number (the latest without one) or by its tid, a preview by
//! format, streamed whole across its stored chunks; `ETag` and `If-None-Match`, `Range` and
//! `If-Range` as a download client uses them; what is unknown or not visible is 404.

use contract_tests::{TestServer, backends, base64, coverage, fixture, issue_item};
use core_api::messages as msg;
use core_api::operations as op;
use core_api::operations::ASSETS_VERSIONS_BIN;
use serde_json::json;

use crate::answers::{self, Scenario};

/// A token of the role `reader` (DAM), which may not see the restricted asset.
const READER: &str = "7b7b7b7b7b7b7b7b.7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b7b";

/// 2.5 MiB of bytes that differ in every chunk and position.
fn large() -> Vec<u8> {
    (0..(5 << 19) as u32)
        .map(|at| (at.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    server
        .load(&fixture(json!({
            "roles": [{"name": "reader", "modules": ["DAM"]}, {"name": "secret"}],
            "tokens": [{"user": "reader", "roles": ["reader"], "token": READER}],
            "assets": [
                {"tid": "A-1", "versions": [
                    {"versionNumber": 1, "tid": "A-1-v1", "mediaType": "text/plain", "fileName": "one.txt",
                     "content": {"base64": base64(b"version one")},
                     "previews": [{"format": "thumbnail", "mediaType": "text/plain", "content": {"base64": base64(b"thumb")}}]},
                    {"versionNumber": 2, "tid": "A-1-v2", "mediaType": "application/octet-stream",
                     "content": {"base64": base64(large())}}
                ]},
                {"tid": "A-R", "restrictedTo": ["secret"], "versions": [
                    {"versionNumber": 1, "tid": "A-R-v1", "mediaType": "text/plain", "content": {"base64": base64(b"secret")}}
                ]}
            ]
        })))
        .await;
    server
}

async fn download(
    server: &TestServer,
    query: &str,
    headers: &[(&'static str, &str)],
) -> contract_tests::Answer {
    download_as(server, &server.token, query, headers).await
}

async fn download_as(
    server: &TestServer,
    token: &str,
    query: &str,
    headers: &[(&'static str, &str)],
) -> contract_tests::Answer {
    let mut call = server.call(&ASSETS_VERSIONS_BIN).token(token).query(query);
    for (name, value) in headers {
        call = call.header(name, value);
    }
    call.send().await
}

fn header<'a>(answer: &'a contract_tests::Answer, name: &str) -> &'a str {
    answer
        .headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
}

async fn a_version_or_preview_downloads_whole_in_part_or_not_at_all() {
    let large = large();
    for url in backends("asset binaries").await {
        let server = server(&url).await;
        let latest = download(&server, "assetTid=A-1", &[]).await;
        assert_eq!(latest.status, 200);
        assert_eq!(latest.content_type, "application/octet-stream");
        assert_eq!(latest.bytes, large, "streamed whole across its chunks");
        assert_eq!(header(&latest, "content-length"), large.len().to_string());
        assert_eq!(
            header(&latest, "content-disposition"),
            "attachment; filename=\"A-1\""
        );
        assert_eq!(header(&latest, "accept-ranges"), "bytes");
        let etag = header(&latest, "etag").to_string();
        assert_eq!(etag.len(), 66, "a quoted SHA-256: {etag}");
        let id = {
            let row: (i64,) = sqlx::query_as("SELECT id FROM assets WHERE tid = 'A-1'")
                .fetch_one(server.database.reads())
                .await
                .expect("the asset");
            row.0
        };
        for query in [
            format!("assetId={id}&versionNumber=1"),
            "assetTid=A-1&versionNumber=1".to_string(),
            "versionTid=A-1-v1".to_string(),
        ] {
            let one = download(&server, &query, &[]).await;
            assert_eq!(
                (one.status, one.bytes.as_slice()),
                (200, b"version one".as_slice()),
                "{query}"
            );
            assert_eq!(
                header(&one, "content-disposition"),
                "attachment; filename=\"one.txt\""
            );
        }
        let thumb = download(&server, "versionTid=A-1-v1&format=thumbnail", &[]).await;
        assert_eq!(thumb.bytes, b"thumb");
        assert_eq!(
            header(&thumb, "content-disposition"),
            "attachment; filename=\"thumbnail_one.txt\""
        );
        // Conditions and ranges.
        let same = download(&server, "assetTid=A-1", &[("If-None-Match", &etag)]).await;
        assert_eq!((same.status, same.bytes.len()), (304, 0));
        assert_eq!(header(&same, "etag"), etag);
        let other = download(&server, "assetTid=A-1", &[("If-None-Match", "\"other\"")]).await;
        assert_eq!(other.status, 200);
        let boundary = (1 << 20) - 5;
        let range = format!("bytes={boundary}-{}", boundary + 9);
        let part = download(&server, "assetTid=A-1", &[("Range", &range)]).await;
        assert_eq!(part.status, 206);
        assert_eq!(
            part.bytes,
            &large[boundary..boundary + 10],
            "across a chunk boundary"
        );
        assert_eq!(
            header(&part, "content-range"),
            format!("bytes {boundary}-{}/{}", boundary + 9, large.len())
        );
        let tail = download(&server, "assetTid=A-1", &[("Range", "bytes=-3")]).await;
        assert_eq!(
            (tail.status, tail.bytes.as_slice()),
            (206, &large[large.len() - 3..])
        );
        let stale = download(
            &server,
            "assetTid=A-1",
            &[("Range", "bytes=0-1"), ("If-Range", "\"old\"")],
        )
        .await;
        assert_eq!((stale.status, stale.bytes.len()), (200, large.len()));
        let fresh = download(
            &server,
            "assetTid=A-1",
            &[("Range", "bytes=0-1"), ("If-Range", &etag)],
        )
        .await;
        assert_eq!(fresh.status, 206);
        let beyond = download(
            &server,
            "assetTid=A-1&versionNumber=1",
            &[("Range", "bytes=11-")],
        )
        .await;
        assert_eq!(beyond.status, 416);
        assert_eq!(header(&beyond, "content-range"), "bytes */11");
        assert_eq!(issue_item(&beyond.json(), "code"), Some("1012"));
        // Unknown and invisible are 404; contradictory identifiers are 400.
        for (token, query, message) in [
            (server.token.as_str(), "assetTid=NOPE", msg::ASSET_NOT_FOUND),
            (
                server.token.as_str(),
                "assetId=999999",
                msg::ASSET_NOT_FOUND,
            ),
            (READER, "assetTid=A-R", msg::ASSET_NOT_FOUND),
            (
                server.token.as_str(),
                "assetTid=A-1&versionNumber=9",
                msg::ASSET_VERSION_NOT_FOUND,
            ),
            (
                server.token.as_str(),
                "versionTid=NOPE",
                msg::ASSET_VERSION_NOT_FOUND,
            ),
            (READER, "versionTid=A-R-v1", msg::ASSET_VERSION_NOT_FOUND),
            (
                server.token.as_str(),
                "assetTid=A-1&format=poster",
                "Preview 'poster' not found",
            ),
            (
                server.token.as_str(),
                "versionTid=A-1-v2&format=thumbnail",
                "Preview 'thumbnail' not found",
            ),
        ] {
            let answer = download_as(&server, token, query, &[]).await;
            assert_eq!(answer.status, 404, "{query}");
            assert!(
                coverage::contains(
                    &ASSETS_VERSIONS_BIN,
                    issue_item(&answer.json(), "errorMessage").unwrap_or_default(),
                    message
                ),
                "{query}: {}",
                answer.text
            );
        }
        let visible = download_as(&server, READER, "assetTid=A-1&versionNumber=1", &[]).await;
        assert_eq!(visible.status, 200);
        for query in [
            "",
            "assetTid=A-1&assetId=1",
            "versionTid=A-1-v1&assetTid=A-1",
            "versionTid=A-1-v1&versionNumber=1",
            "assetId=x",
            "assetTid=A-1&versionNumber=0",
            "assetTid=A-1&color=red",
            "assetTid=A-1&assetTid=A-2",
        ] {
            let answer = download(&server, query, &[]).await;
            assert_eq!(answer.status, 400, "{query}: {}", answer.text);
        }
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![Scenario::new(
        "assets_versions_bin",
        &op::ASSETS_VERSIONS_BIN,
        json!("assetTid=A-1001&versionNumber=1&format=thumbnail"),
    )]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    a_version_or_preview_downloads_whole_in_part_or_not_at_all,
    answers_in_every_representation,
);
