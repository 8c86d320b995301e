//! What operators see of a running server: every request's id in its answer and in every log line
//! it causes (JSON logs), one access line per request, the `supportId` of an error body in the
//! logs, and `GET /metrics` counting requests and batch items, to the callers
//! `--metrics-access` admits; and text log lines a request cannot forge.

mod support;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{IpAddr, SocketAddr, TcpStream, UdpSocket},
    process::{Command, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

use serde_json::Value;
use support::Server;

/// A `serve --demo` with its logs: the server, its address, the demo token, and its log lines.
struct Observed {
    _server: Server,
    address: String,
    token: String,
    logs: mpsc::Receiver<String>,
    _folder: TempFolder,
}

/// A folder removed when dropped.
struct TempFolder(std::path::PathBuf);

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start(name: &str, bind: &str, arguments: &[&str]) -> Observed {
    start_logging(name, "json", bind, arguments)
}

/// The same with log lines in `format` (`json` or `text`).
fn start_logging(name: &str, format: &str, bind: &str, arguments: &[&str]) -> Observed {
    let folder = std::env::temp_dir().join(format!("core-observe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let database = format!("sqlite://{}/core.db", folder.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_core-server"))
        .args(["--log-format", format, "serve", "--demo", "--bind", bind])
        .args(["--database-url", &database])
        .args(arguments)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let server = Server(child);
    let mut token = String::new();
    BufReader::new(stdout)
        .read_line(&mut token)
        .expect("the demo token");
    let (send, logs) = mpsc::channel();
    let (listening, address) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(address) = line.split("listening on http://").nth(1) {
                let _ = listening.send(address.trim().to_string());
            }
            let _ = send.send(line);
        }
    });
    let address = address
        .recv_timeout(Duration::from_secs(30))
        .expect("a 'listening on' line");
    Observed {
        _server: server,
        address,
        token: token.trim().to_string(),
        logs,
        _folder: TempFolder(folder),
    }
}

impl Observed {
    /// Sends a request; answers status, headers (lower-case names) and body.
    fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, Vec<(String, String)>, String) {
        send_to(&self.address, method, path, headers, body)
    }

    /// Posts a JSON body with the demo token.
    fn post(
        &self,
        path: &str,
        extra: &[(&str, &str)],
        body: &str,
    ) -> (u16, Vec<(String, String)>, String) {
        let authorization = format!("Bearer {}", self.token);
        let mut headers = vec![
            ("Authorization", authorization.as_str()),
            ("Content-Type", "application/json"),
        ];
        headers.extend_from_slice(extra);
        self.send("POST", path, &headers, body)
    }

    /// The JSON log lines written so far (waiting until `until` holds for one of them, or 10 s).
    fn logs_until(&self, until: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut lines = Vec::new();
        while Instant::now() < deadline {
            match self.logs.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    if let Ok(value) = serde_json::from_str::<Value>(&line) {
                        let done = until(&value);
                        lines.push(value);
                        if done {
                            return lines;
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        panic!("no such log line; got {lines:#?}");
    }

    /// The value of a sample of `/metrics` (0 when absent).
    fn sample(&self, exposition: &str, name_and_labels: &str) -> f64 {
        let _ = self;
        exposition
            .lines()
            .find_map(|line| line.strip_prefix(name_and_labels)?.trim().parse().ok())
            .unwrap_or(0.0)
    }
}

fn send_to(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(address).expect("connects");
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).expect("writes");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(given, _)| given == name)
        .map(|(_, value)| value.as_str())
}

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";
const PERSIST: &str = "/api/core/v1/common/keywords/persist";

#[test]
fn every_request_has_an_id_in_its_answer_and_its_json_log_lines() {
    let server = start("ids", "127.0.0.1:0", &[]);
    // A well-formed id is kept.
    let (status, headers, _) = server.post(
        RETRIEVE,
        &[("X-Request-Id", "trace-42.a:b")],
        r#"{"path":"/"}"#,
    );
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "x-request-id"), Some("trace-42.a:b"));
    let lines = server.logs_until(|line| line["span"]["request_id"] == "trace-42.a:b");
    let access = lines.last().expect("the access line");
    assert_eq!(access["target"], "core_server::access");
    assert_eq!(access["message"], "answered");
    assert_eq!(access["operation"], "keywordsRetrieve");
    assert_eq!(access["method"], "POST");
    assert_eq!(access["path"], RETRIEVE);
    assert_eq!(access["status"], 200);
    assert_eq!(access["representation"], "json");
    assert!(
        access["bytes"].as_u64().is_some_and(|bytes| bytes > 100),
        "{access}"
    );
    assert!(access["duration_ms"].as_f64().is_some(), "{access}");
    assert!(access["timestamp"].is_string() && access["level"] == "INFO");
    // A malformed one is replaced by a new id.
    let (_, headers, _) = server.post(
        RETRIEVE,
        &[("X-Request-Id", "has space")],
        r#"{"path":"/"}"#,
    );
    let made = header(&headers, "x-request-id").expect("an id");
    assert_eq!(made.len(), 36, "{made}");
    // The supportId of an error body is in the request's log line, beside the request's id.
    let (status, headers, body) = server.post(RETRIEVE, &[], r#"{"path":"/nowhere"}"#);
    assert_eq!(status, 404);
    let id = header(&headers, "x-request-id").expect("an id").to_string();
    let body: Value = serde_json::from_str(&body).expect("an error body");
    let support_id = body["details"]["itm"][0]["value"]
        .as_str()
        .expect("a supportId")
        .to_string();
    let lines = server.logs_until(|line| line["support_id"] == support_id.as_str());
    let refusal = lines.last().expect("the refusal line");
    assert_eq!(refusal["span"]["request_id"], id.as_str());
    assert_eq!(refusal["operation"], "keywordsRetrieve");
    let lines = server.logs_until(|line| line["target"] == "core_server::access");
    let access = lines.last().expect("the access line");
    assert_eq!(access["span"]["request_id"], id.as_str());
    assert_eq!(access["status"], 404);
}

#[test]
fn a_request_cannot_start_a_text_log_line_of_its_own() {
    let server = start_logging("forge", "text", "127.0.0.1:0", &[]);
    // The refusal quotes the path, line break and all, in its log line.
    let forged = "ERROR core_server: forged";
    let body = serde_json::json!({"path": format!("/nowhere\n{forged}\r")});
    let (status, _, _) = server.post(RETRIEVE, &[], &body.to_string());
    assert_eq!(status, 404);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut lines = Vec::new();
    while Instant::now() < deadline {
        match server.logs.recv_timeout(Duration::from_millis(100)) {
            Ok(line) if line.contains("core_server::access") => break,
            Ok(line) => lines.push(line),
            Err(_) => {}
        }
    }
    let refused = lines
        .iter()
        .find(|line| line.contains("request refused"))
        .unwrap_or_else(|| panic!("no refusal line in {lines:#?}"));
    assert!(
        refused.contains(&format!("/nowhere\\n{forged}\\r")),
        "{refused}"
    );
    assert!(
        !lines.iter().any(|line| line.starts_with(forged)),
        "{lines:#?}"
    );
}

#[test]
fn metrics_count_requests_and_batch_items() {
    let server = start("metrics", "127.0.0.1:0", &[]);
    let scrape = || {
        let (status, headers, body) = server.send("GET", "/metrics", &[], "");
        assert_eq!(status, 200, "{body}");
        assert!(
            header(&headers, "content-type")
                .is_some_and(|media| media.starts_with("application/openmetrics-text")),
            "{headers:?}"
        );
        assert!(body.ends_with("# EOF\n"), "{body}");
        body
    };
    let before = scrape();
    let requests =
        r#"core_requests_total{operation="keywordsPersist",status="200",representation="json"}"#;
    let success = r#"core_batch_items_total{operation="keywordsPersist",status="SUCCESS"}"#;
    let error = r#"core_batch_items_total{operation="keywordsPersist",status="ERROR"}"#;
    let latency = r#"core_request_duration_seconds_count{operation="keywordsPersist"}"#;
    let (status, _, _) = server.post(
        PERSIST,
        &[],
        r#"{"kwds":{"kwd":[{"name":{"itm":[{"value":"Metered"}]}},{"name":{"itm":[{"value":"a/b"}]}}]}}"#,
    );
    assert_eq!(status, 200);
    let after = scrape();
    for counted in [requests, success, error, latency] {
        assert_eq!(
            server.sample(&after, counted),
            server.sample(&before, counted) + 1.0,
            "{counted}"
        );
    }
    assert!(server.sample(&after, "core_database_write_wait_seconds_count") >= 1.0);
    assert!(server.sample(&after, r#"core_database_connections{state="max"}"#) >= 1.0);
    assert!(after.contains(&format!(
        "core_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    )));
    // The scrape before this one counts too.
    assert!(
        server.sample(
            &after,
            r#"core_requests_total{operation="-",status="200",representation="metrics"}"#
        ) >= 1.0
    );
}

#[test]
fn every_answer_says_nosniff_and_the_docs_pages_carry_a_policy() {
    let server = start("nosniff", "127.0.0.1:0", &[]);
    let authorization = format!("Bearer {}", server.token);
    let answers = [
        server.post(RETRIEVE, &[], r#"{"path": "/", "level": 1}"#),
        server.post(PERSIST, &[], r#"{"keywords": [{}]}"#),
        server.send(
            "POST",
            RETRIEVE,
            &[("Content-Type", "application/json")],
            "{}",
        ),
        server.send("GET", "/nowhere", &[("Authorization", &authorization)], ""),
        server.send("GET", RETRIEVE, &[], ""),
        server.send("GET", "/healthz", &[], ""),
        server.send("GET", "/metrics", &[], ""),
        server.send("GET", "/openapi.yaml", &[], ""),
        server.send("GET", "/docs", &[], ""),
        server.send("GET", "/redoc", &[], ""),
    ];
    let statuses: Vec<u16> = answers.iter().map(|(status, _, _)| *status).collect();
    assert_eq!(statuses, [200, 400, 401, 404, 405, 200, 200, 200, 200, 200]);
    for (status, headers, _) in &answers {
        assert_eq!(
            header(headers, "x-content-type-options"),
            Some("nosniff"),
            "{status}"
        );
    }
    for (_, headers, body) in &answers[8..] {
        let policy = header(headers, "content-security-policy").expect("a policy");
        assert!(
            policy.starts_with("default-src 'none'; script-src 'sha256-"),
            "{policy}"
        );
        assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(
            body.contains("<script"),
            "the page runs scripts its policy names"
        );
    }
}

#[test]
fn metrics_need_a_token_when_the_setting_says_so() {
    let server = start("token", "127.0.0.1:0", &["--metrics-access", "token"]);
    let (status, _, body) = server.send("GET", "/metrics", &[], "");
    assert_eq!(status, 401, "{body}");
    let body: Value = serde_json::from_str(&body).expect("an error body");
    assert_eq!(body["status"], "ERROR");
    let authorization = format!("Bearer {}", server.token);
    let (status, _, _) = server.send("GET", "/metrics", &[("Authorization", &authorization)], "");
    assert_eq!(status, 200);
}

#[test]
fn metrics_are_kept_to_loopback_clients_by_default() {
    // This machine's address on the way out (no packet is sent): a client from it is not on the
    // loopback interface.
    let outward = UdpSocket::bind("0.0.0.0:0")
        .and_then(|socket| socket.connect("192.0.2.1:9").map(|()| socket))
        .and_then(|socket| socket.local_addr())
        .map(|address| address.ip());
    let Ok(ip @ IpAddr::V4(_)) = outward else {
        eprintln!("skipped: this machine has no IPv4 address beside loopback");
        return;
    };
    if ip.is_loopback() || ip.is_unspecified() {
        eprintln!("skipped: this machine has no IPv4 address beside loopback");
        return;
    }
    let server = start("loopback", "0.0.0.0:0", &[]);
    let port: u16 = server
        .address
        .rsplit(':')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("a port");
    let (status, _, body) = server.send("GET", "/metrics", &[], "");
    assert_eq!(status, 200, "{body}");
    let outside = SocketAddr::new(ip, port).to_string();
    let (status, _, body) = send_to(&outside, "GET", "/metrics", &[], "");
    assert_eq!(status, 404, "{body}");
    // A forwarding header does not make a caller local, ...
    let spoofed = [
        ("X-Forwarded-For", "127.0.0.1"),
        ("Forwarded", "for=127.0.0.1"),
    ];
    let (status, _, body) = send_to(&outside, "GET", "/metrics", &spoofed, "");
    assert_eq!(status, 404, "{body}");
    // ... and a local proxy that forwards a request does not make its sender local either.
    for header in [
        "Forwarded",
        "X-Forwarded-For",
        "X-Forwarded-Host",
        "X-Real-IP",
    ] {
        let (status, _, body) = server.send("GET", "/metrics", &[(header, "203.0.113.9")], "");
        assert_eq!(status, 404, "{header}: {body}");
    }
    // The interface itself answers there.
    let (status, _, _) = send_to(&outside, "GET", "/healthz", &[], "");
    assert_eq!(status, 200);
}
