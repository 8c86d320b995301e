//! Streamed answers (D-59): keywords retrieve is written as its statement is read, in chunked
//! transfer. A whole answer ends with the closing chunk; an answer cut off after its status line
//! (here by `--stream-timeout`, as a database failure would) ends without it, and its connection
//! is closed, so that no client takes the part it read for a whole answer.

mod support;

use std::{
    io::{Read, Write},
    net::TcpStream,
    path::PathBuf,
    time::Duration,
};

/// The token the tests' catalogue holds.
const TOKEN: &str = "57e4a3b157e4a3b1.57e4a3b157e4a3b157e4a3b157e4a3b1";

/// How many keywords the catalogue holds: enough that the answer (about 22 MB in JSON) cannot
/// wait whole in the sockets' and the server's buffers while the client does not read.
const KEYWORDS: usize = 40_000;

/// A SQLite catalogue of [`KEYWORDS`] keywords in a folder of its own.
fn catalogue(name: &str) -> (PathBuf, String) {
    let folder = std::env::temp_dir().join(format!("core-streaming-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let database = format!("sqlite://{}/core.db", folder.display());
    import(&folder, &database);
    (folder, database)
}

/// Imports [`KEYWORDS`] keywords (ten roots, ten children each, each named in one locale) and
/// the tests' token into `database` with `core-server import`, the document written to `folder`.
fn import(folder: &std::path::Path, database: &str) {
    let mut paths: Vec<String> = (0..10).map(|root| format!("/k{root}")).collect();
    let mut parent = 0;
    while paths.len() < KEYWORDS {
        let path = format!("{}/k{}", paths[parent], paths.len() % 10);
        paths.push(path);
        if paths.len().is_multiple_of(10) {
            parent += 1;
        }
    }
    let keywords: Vec<serde_json::Value> = paths
        .iter()
        .map(|path| {
            // Long names make a long answer of a catalogue quick to import.
            let name = format!("{path} (en) {}", "x".repeat(200));
            serde_json::json!({"path": path, "names": {"en_GB": name}})
        })
        .collect();
    let document = serde_json::json!({
        "locales": [{"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}],
        "keywords": keywords,
        "tokens": [{"user": "streaming", "roles": ["admin"], "token": TOKEN}]
    });
    let file = folder.join("catalogue.json");
    std::fs::write(&file, document.to_string()).expect("the document is written");
    let imported =
        support::core_server(&["import", file.to_str().expect("a UTF-8 path")], database);
    assert!(imported.status.success(), "{imported:?}");
}

/// Sends keywords retrieve of the whole tree, tells `head` when the head of the answer has
/// come, waits `pause`, then reads the rest to the end of the connection: the head and the raw
/// (chunked) body.
fn retrieve_whole_tree(
    address: &str,
    head: std::sync::mpsc::Sender<()>,
    pause: Duration,
) -> (String, Vec<u8>) {
    let body = r#"{"path":"/","level":-1}"#;
    let mut stream = TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    write!(
        stream,
        "POST /api/core/v1/common/keywords/retrieve HTTP/1.1\r\nHost: test\r\n\
         Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("sent");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !answer.windows(4).any(|window| window == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).expect("the head arrives");
        assert!(read > 0, "the connection closed before the head");
        answer.extend_from_slice(&buffer[..read]);
    }
    let _ = head.send(());
    std::thread::sleep(pause);
    // A cut-off answer ends with the connection: a reset is its end too.
    let _ = stream.read_to_end(&mut answer);
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or_default();
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    (head, answer[split + 4..].to_vec())
}

#[test]
fn a_whole_answer_ends_with_its_closing_chunk() {
    let (folder, database) = catalogue("whole");
    let (_server, address) = support::serve(&database);
    let (head, body) = retrieve_whole_tree(&address, std::sync::mpsc::channel().0, Duration::ZERO);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    let (payload, closed) = support::dechunk(&body);
    assert!(closed, "the answer ends with its closing chunk");
    let answer: serde_json::Value = serde_json::from_slice(&payload).expect("one JSON answer");
    let kwd = answer
        .pointer("/kwds/kwd")
        .and_then(serde_json::Value::as_array)
        .expect("kwds");
    assert_eq!(kwd.len(), KEYWORDS);
    assert_eq!(kwd[0]["path"], "/k0");
    assert_eq!(kwd[1]["path"], "/k0/k0", "depth-first pre-order");
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_reader_slower_than_the_stream_timeout_is_cut_off_without_the_closing_chunk() {
    let (folder, database) = catalogue("cut");
    // The listing's first rows must come within the bound (a debug build under a loaded
    // machine takes more than a second), and the client pauses well past it.
    let (_server, address) = support::serve_with(&database, &["--stream-timeout", "5"]);
    let (head, body) = retrieve_whole_tree(
        &address,
        std::sync::mpsc::channel().0,
        Duration::from_secs(10),
    );
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let (payload, closed) = support::dechunk(&body);
    assert!(!closed, "a cut-off answer has no closing chunk");
    assert!(!payload.is_empty(), "the answer had begun");
    assert!(
        serde_json::from_slice::<serde_json::Value>(&payload).is_err(),
        "what was read is not a whole answer"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_database_lost_mid_answer_cuts_the_connection_without_the_closing_chunk() {
    let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") else {
        eprintln!(
            "CORE_TEST_POSTGRES_URL is not set: the lost-database streaming test did not run"
        );
        return;
    };
    let url = core_server::testing::fresh_postgres_schema(&base)
        .await
        .expect("a fresh schema");
    let folder = std::env::temp_dir().join(format!("core-streaming-pg-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a folder");
    import(&folder, &url);
    let (server, address) = support::serve(&url);
    let (sender, head) = std::sync::mpsc::channel();
    let reader = tokio::task::spawn_blocking(move || {
        retrieve_whole_tree(&address, sender, Duration::from_secs(4))
    });
    // Once the status line is sent and while the client does not read, the listing waits in
    // its read transaction between two chunks: end its backend.
    let _ = tokio::task::spawn_blocking(move || head.recv_timeout(Duration::from_secs(60))).await;
    sqlx::any::install_default_drivers();
    let admin = sqlx::AnyPool::connect(&base).await.expect("connects");
    let mut ended = 0;
    for _ in 0..20 {
        ended = sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE query LIKE 'SELECT json_agg(entry ORDER BY sort_key)%' \
             AND state IN ('active', 'idle in transaction') \
             AND pid <> pg_backend_pid()) ended",
        )
        .fetch_one(&admin)
        .await
        .expect("pg_stat_activity is read");
        if ended > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    admin.close().await;
    assert!(ended > 0, "the listing statement was found running");
    let (head, body) = reader.await.expect("the reader ends");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let (payload, closed) = support::dechunk(&body);
    assert!(
        !closed,
        "an answer cut off by the database has no closing chunk"
    );
    assert!(!payload.is_empty(), "the answer had begun");
    drop(server);
    let database = core_server::storage::Database::connect(&url)
        .await
        .expect("opens");
    let _ = core_server::testing::drop_postgres_schema(&database).await;
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn slow_clients_of_long_answers_hold_at_most_half_the_readers() {
    let (folder, database) = catalogue("half");
    let (_server, address) = support::serve_with(&database, &["--database-timeout", "1"]);
    // Two clients that take nothing after the head hold the two places of SQLite's four readers.
    let slow: Vec<_> = (0..2)
        .map(|_| {
            let address = address.clone();
            let (sender, head) = std::sync::mpsc::channel();
            let client = std::thread::spawn(move || {
                retrieve_whole_tree(&address, sender, Duration::from_secs(4))
            });
            head.recv_timeout(Duration::from_secs(60))
                .expect("the long answer begins");
            client
        })
        .collect();
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");
    let post = |path: &str, body: &str| {
        support::exchange(
            &address,
            &format!(
                "POST /api/core/v1/common/{path} HTTP/1.1\r\nHost: test\r\n{bearer}\
                 Content-Type: application/json\r\nConnection: close\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    // A third long answer waits for a place, then is answered 503; other reads go on. (A
    // listing SQLite reads within `direct::QUICK` needs no place: it holds no connection.)
    let (status, body) = post("keywords/retrieve", r#"{"path":"/","level":-1}"#);
    assert_eq!(status, 503, "{body}");
    let (status, body) = post("locales/retrieve", r#"{"mode":"ALL"}"#);
    assert_eq!(status, 200, "{body}");
    for client in slow {
        let (head, _) = client.join().expect("the slow client ends");
        assert!(head.starts_with("http/1.1 200"), "{head}");
    }
    let (status, body) = post("keywords/retrieve", r#"{"path":"/k1","level":1}"#);
    assert_eq!(status, 200, "{body}");
    let _ = std::fs::remove_dir_all(&folder);
}
