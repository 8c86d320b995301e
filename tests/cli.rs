//! The binary, as the README runs it: `core-server serve` starts, creates its SQLite file, and
//! serves the document and the operations.

mod support;

use std::process::Command;

use support::{core_server, exchange, serve, serve_with};

#[test]
fn serve_survives_a_closed_stderr() {
    let folder =
        std::env::temp_dir().join(format!("core-server-cli-closed-{}", std::process::id()));
    let (server, address) = serve(&format!("sqlite://{}/core.db", folder.display()));
    // `serve` has dropped the read end of stderr: later log lines fail to write.
    for _ in 0..3 {
        let (status, _) = exchange(
            &address,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(status, 200);
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn serve_starts_and_answers() {
    let folder = std::env::temp_dir().join(format!("core-server-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/data/core.db", folder.display());
    let (_server, address) = serve(&url);
    assert!(
        folder.join("data/core.db").exists(),
        "the SQLite file and its folder are created"
    );

    let (status, body) = exchange(
        &address,
        "GET /openapi.yaml HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200);
    // The published document: the authored one plus the derived compact-JSON schemas.
    let document = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generated/core-api/openapi.yaml"
    ))
    .expect("document");
    assert!(
        body == document,
        "the served document is not the published one"
    );

    let (status, body) = exchange(
        &address,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));

    let components = |authorization: &str| {
        format!(
            "POST /api/core/v1/common/components/retrieve HTTP/1.1\r\nHost: x\r\n{authorization}Content-Length: 0\r\nConnection: close\r\n\r\n"
        )
    };
    let (status, body) = exchange(&address, &components(""));
    assert_eq!(status, 401);
    assert!(body.contains("missing bearer token"), "{body}");

    // `token issue` prints the token alone on stdout; the running server accepts it at once.
    let token = core_server(
        &["token", "issue", "--user", "ops", "--role", "admin"],
        &url,
    );
    assert!(token.status.success());
    let stdout = String::from_utf8(token.stdout).expect("UTF-8");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let token = stdout.trim();
    let bearer = format!("Authorization: Bearer {token}\r\n");
    let (status, body) = exchange(&address, &components(&bearer));
    assert_eq!(status, 404);
    assert!(body.contains("no component is configured"), "{body}");
    let revoke = core_server(&["token", "revoke", token], &url);
    assert!(
        revoke.status.success(),
        "{}",
        String::from_utf8_lossy(&revoke.stderr)
    );
    assert!(revoke.stdout.is_empty());
    // The running server sees the revocation within the bound of D-02.
    let revoked = std::time::Instant::now();
    let (status, body) = loop {
        let (status, body) = exchange(&address, &components(&bearer));
        if status == 401 || revoked.elapsed() > core_server::auth::REVISION_CHECK * 2 {
            break (status, body);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_eq!(status, 401);
    assert!(body.contains("unknown or revoked token"), "{body}");
    let again = core_server(&["token", "revoke", token], &url);
    assert!(!again.status.success(), "revoking twice is an error");
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn an_unsupported_database_url_is_refused_with_a_message() {
    let output = Command::new(env!("CARGO_BIN_EXE_core-server"))
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--database-url",
            "mysql://localhost/db",
        ])
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unsupported database URL"), "{stderr}");
}

#[test]
fn import_loads_a_document_and_refuses_a_broken_one_whole() {
    let folder = std::env::temp_dir().join(format!("core-server-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let url = format!("sqlite://{}/core.db", folder.display());
    let good = folder.join("good.json");
    std::fs::write(
        &good,
        r#"{"locales": [{"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}],
            "tokens": [{"user": "ci", "roles": ["admin"], "token": "0123456789abcdef.0123456789abcdef0123456789abcdef"}]}"#,
    )
    .expect("writes");
    for _ in 0..2 {
        let output = core_server(&["import", &good.display().to_string()], &url);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(stderr.contains("records inserted or updated"), "{stderr}");
        // Not a terminal: one line per kind of record the document has, once it is written.
        assert!(
            stderr.contains("core-server: locales: 1 written"),
            "{stderr}"
        );
        assert!(
            stderr.contains("core-server: access: 1 written"),
            "{stderr}"
        );
        assert!(!stderr.contains("keywords:"), "{stderr}");
    }
    let broken = folder.join("broken.json");
    std::fs::write(
        &broken,
        r#"{"locales": [{"tid": "deDE", "language": "de", "country": "DE", "name": "x"}]}"#,
    )
    .expect("writes");
    let output = core_server(&["import", &broken.display().to_string()], &url);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr
            .contains("nothing was imported: locales[0] (deDE): tid: must be <language>_<COUNTRY>"),
        "{stderr}"
    );

    // `serve --bootstrap` loads before it listens: the declared token works at once.
    let good = good.display().to_string();
    let (server, address) = serve_with(&url, &["--bootstrap", &good]);
    let request = "POST /api/core/v1/common/components/retrieve HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer 0123456789abcdef.0123456789abcdef0123456789abcdef\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    let (status, _) = exchange(&address, request);
    assert_eq!(status, 404, "authorized; no component is configured");
    drop(server);
    let _ = std::fs::remove_dir_all(&folder);
}

/// The README's run command: `serve --demo` loads the demo catalogue and prints its token alone on
/// standard output; the token answers with data; a restart keeps the data and does not duplicate
/// the demo.
#[test]
fn serve_demo_loads_the_catalogue_once_and_prints_a_working_token() {
    use std::io::{BufRead, BufReader};
    let folder = std::env::temp_dir().join(format!("core-server-demo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/data/core.db", folder.display());
    let mut keywords = Vec::new();
    for _ in 0..2 {
        let (mut server, address) = serve_with(&url, &["--demo"]);
        let stdout = server.0.stdout.take().expect("stdout");
        let token = BufReader::new(stdout)
            .lines()
            .next()
            .and_then(Result::ok)
            .expect("a token line");
        let body = r#"{"path": "/", "level": -1, "retrieveLinks": true}"#;
        let request = format!(
            "POST /api/core/v1/common/keywords/retrieve HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let (status, body) = exchange(&address, &request);
        assert_eq!(status, 200, "{body}");
        let body: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        let paths: Vec<String> = body["kwds"]["kwd"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|kwd| kwd["path"].as_str().map(str::to_string))
            .collect();
        assert!(paths.contains(&"/Season/Summer".to_string()), "{paths:?}");
        keywords.push(paths);
        drop(server);
    }
    assert_eq!(
        keywords[0], keywords[1],
        "a restart neither loses nor duplicates"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn the_demo_document_reads_and_has_every_attribute_type() {
    let document = core_server::bootstrap::demo().expect("the demo document reads");
    assert!(document.locales.len() >= 3 && document.glossaries.len() >= 2);
    let types: std::collections::BTreeSet<&str> = document
        .attribute_definitions
        .iter()
        .map(|definition| definition.type_.as_str())
        .collect();
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        ["boolean", "date", "number", "ref", "table", "text"],
        "an attribute definition of every type"
    );
}

/// `messages list` prints what `messages/persist` stored, one JSON object per line (D-44).
#[test]
fn messages_list_prints_the_stored_messages() {
    let folder = std::env::temp_dir().join(format!("core-server-messages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    let token = core_server(
        &["token", "issue", "--user", "ops", "--role", "admin"],
        &url,
    );
    let token = String::from_utf8(token.stdout).expect("UTF-8");
    let (server, address) = serve(&url);
    let body = r#"{"messages": [{"tid": "M-1", "subject": "Hello", "recipientRole": "editors"}]}"#;
    let request = format!(
        "POST /api/core/v1/common/messages/persist HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        token.trim(),
        body.len()
    );
    let (status, answer) = exchange(&address, &request);
    assert_eq!(status, 200, "{answer}");
    drop(server);
    let listed = core_server(&["messages", "list", "--role", "editors"], &url);
    assert!(listed.status.success());
    let stdout = String::from_utf8(listed.stdout).expect("UTF-8");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["tid"], "M-1");
    assert_eq!(lines[0]["subject"], "Hello");
    assert_eq!(lines[0]["severity"], "INFO");
    assert_eq!(
        lines[0]["senderUser"], "ops",
        "the token's user, recorded by the server"
    );
    let none = core_server(&["messages", "list", "--user", "nobody"], &url);
    assert!(none.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&folder);
}
