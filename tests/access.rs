//! Access an operator can trust (D-02), through the binary as an operator uses it, on SQLite and,
//! when `CORE_TEST_POSTGRES_URL` is set, PostgreSQL: the demo's database and token stay the
//! demo's; tokens expire, are listed without their secret, revoked by id, and their last use is
//! recorded; a role loses a grant; an import never revives a revoked token and may give one by
//! its hash; the token's user is recorded as the editor of glossary entries and the sender of
//! messages, whatever the message says.

mod support;

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    time::Duration,
};

use serde_json::{Value, json};
use support::{Server, core_server, exchange, serve_with};

/// The databases a test runs on: a fresh SQLite file, and a fresh PostgreSQL schema when
/// `CORE_TEST_POSTGRES_URL` is set.
fn backends(name: &str) -> Vec<String> {
    let folder = std::env::temp_dir().join(format!("core-access-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let mut urls = vec![format!("sqlite://{}/core.db", folder.display())];
    if let Ok(base) = std::env::var("CORE_TEST_POSTGRES_URL") {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let url = runtime
            .block_on(core_server::testing::fresh_postgres_schema(&base))
            .expect("a fresh schema");
        urls.push(url);
    } else {
        eprintln!("PostgreSQL skipped: CORE_TEST_POSTGRES_URL is not set");
    }
    urls
}

/// Posts a JSON body with a token; the status and body.
fn post(address: &str, token: &str, path: &str, body: &Value) -> (u16, String) {
    let body = body.to_string();
    let request = format!(
        "POST /api/core/v1/{path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(address, &request)
}

/// The status of a keywords retrieve of the whole tree with a token, and the paths it answers.
fn keywords(address: &str, token: &str) -> (u16, Vec<String>) {
    let (status, body) = post(
        address,
        token,
        "common/keywords/retrieve",
        &json!({"path": "/", "level": -1}),
    );
    let paths = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|body| body["kwds"]["kwd"].as_array().cloned())
        .into_iter()
        .flatten()
        .filter_map(|kwd| kwd["path"].as_str().map(str::to_string))
        .collect();
    (status, paths)
}

/// `serve --demo` and the token it prints.
fn demo(url: &str) -> (Server, String, String) {
    let (mut server, address) = serve_with(url, &["--demo"]);
    let mut token = String::new();
    BufReader::new(server.0.stdout.take().expect("stdout"))
        .read_line(&mut token)
        .expect("the demo token");
    (server, address, token.trim().to_string())
}

/// Stops a server as an operator does (SIGTERM), so that it writes what it keeps in memory.
fn stop(mut server: Server) {
    let stopped = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(stopped.success());
    let status = server.0.wait().expect("the server ends");
    assert!(status.success(), "{status:?}");
}

/// A subcommand that must succeed; its standard output.
fn run(args: &[&str], url: &str) -> String {
    let output = core_server(args, url);
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The JSON lines of `token list`.
fn tokens(url: &str) -> Vec<Value> {
    run(&["token", "list"], url)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

#[test]
fn the_demo_has_a_database_of_its_own_by_default() {
    let folder = std::env::temp_dir().join(format!("core-access-default-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let mut child = Command::new(support::binary())
        .current_dir(&folder)
        .env_remove("CORE_DATABASE_URL")
        .args(["serve", "--demo", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr");
    let server = Server(child);
    let listening = BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
        .any(|line| line.contains("listening on http://"));
    assert!(listening);
    assert!(folder.join("data/core-server-demo.db").exists());
    assert!(!folder.join("data/core-server.db").exists());
    drop(server);
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn the_demo_token_answers_only_a_demo_whose_changes_survive_a_restart() {
    for url in backends("demo") {
        let (server, address, token) = demo(&url);
        let (status, paths) = keywords(&address, &token);
        assert_eq!(status, 200);
        assert!(paths.contains(&"/Season/Summer".to_string()), "{paths:?}");
        let renamed = json!({"kwds": {"kwd": [{"path": "/Season/Summer", "name": {"itm": [{"loc": "de_DE", "value": "Hochsommer"}]}}]}});
        let (status, body) = post(&address, &token, "common/keywords/persist", &renamed);
        assert!(status == 200 && body.contains("SUCCESS"), "{body}");
        let created = json!({"kwds": {"kwd": [{"parentPath": "/Season", "name": {"itm": [{"value": "Monsoon"}]}}]}});
        let (status, body) = post(&address, &token, "common/keywords/persist", &created);
        assert!(status == 200 && body.contains("SUCCESS"), "{body}");
        stop(server);
        // The demo again: what was changed stays (the catalogue is not loaded over it).
        let (server, address, again) = demo(&url);
        assert_eq!(again, token);
        let (status, paths) = keywords(&address, &token);
        assert_eq!(status, 200);
        assert!(paths.contains(&"/Season/Monsoon".to_string()), "{paths:?}");
        let whole = json!({"path": "/", "level": -1});
        let (_, body) = post(&address, &token, "common/keywords/retrieve", &whole);
        assert!(body.contains("Hochsommer"), "{body}");
        stop(server);
        // The same database served without --demo: the public token is refused, others work.
        let issued = run(
            &["token", "issue", "--user", "owner", "--role", "admin"],
            &url,
        );
        let (server, address) = serve_with(&url, &[]);
        assert_eq!(keywords(&address, &token).0, 401);
        assert_eq!(keywords(&address, issued.trim()).0, 200);
        drop(server);
    }
}

#[test]
fn the_demo_refuses_a_database_another_command_made() {
    for url in backends("refuse") {
        run(
            &["token", "issue", "--user", "owner", "--role", "admin"],
            &url,
        );
        let refused = Command::new(support::binary())
            .args([
                "serve",
                "--demo",
                "--bind",
                "127.0.0.1:0",
                "--database-url",
                &url,
            ])
            .output()
            .expect("the binary runs");
        assert!(!refused.status.success());
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(
            said.contains("--demo refuses this database: `core-server token` made it"),
            "{said}"
        );
        assert!(refused.stdout.is_empty(), "no token printed");
        let listed = tokens(&url);
        assert_eq!(listed.len(), 1, "the demo planted nothing: {listed:?}");
        assert_eq!(listed[0]["user"], "owner");
    }
}

#[test]
fn tokens_expire_are_listed_without_secrets_and_revoked_by_id() {
    for url in backends("lifecycle") {
        let short = run(
            &[
                "token",
                "issue",
                "--user",
                "brief",
                "--role",
                "admin",
                "--expires-in",
                "2s",
            ],
            &url,
        );
        let standing = run(
            &["token", "issue", "--user", "kept", "--role", "admin"],
            &url,
        );
        let forever = Command::new(support::binary())
            .args(["token", "issue", "--user", "idle", "--database-url", &url])
            .env("CORE_TOKEN_EXPIRES_IN", "never")
            .output()
            .expect("the binary runs");
        assert!(forever.status.success(), "{forever:?}");
        let (short, standing) = (short.trim(), standing.trim());
        let (server, address) = serve_with(&url, &[]);
        // Read once while valid (so the server keeps the caller), then after the expiry.
        assert_eq!(keywords(&address, short).0, 200);
        assert_eq!(keywords(&address, standing).0, 200);
        std::thread::sleep(Duration::from_millis(2_500));
        assert_eq!(
            keywords(&address, short).0,
            401,
            "an expired token, kept in memory"
        );
        assert_eq!(keywords(&address, standing).0, 200);
        stop(server);
        let listed = tokens(&url);
        let text = serde_json::to_string(&listed).expect("JSON");
        for secret in [short, standing] {
            let (_, secret) = secret.split_once('.').expect("a token");
            assert!(!text.contains(secret), "no secret in {text}");
            assert!(!text.contains(&core_server::auth::hash_secret(secret)));
        }
        let names: Vec<&str> = listed.iter().filter_map(|t| t["user"].as_str()).collect();
        assert_eq!(names, ["brief", "kept", "idle"]);
        for token in &listed {
            let mut keys: Vec<&str> = token
                .as_object()
                .expect("an object")
                .keys()
                .map(String::as_str)
                .collect();
            keys.sort_unstable();
            assert_eq!(
                keys,
                [
                    "created", "expires", "id", "lastUsed", "revoked", "roles", "user"
                ]
            );
        }
        assert_eq!(listed[1]["roles"], json!(["admin"]));
        // The default lifetime (90 days) against one of 2 s, and `never`.
        let created = listed[1]["created"].as_str().expect("created");
        let expires = listed[1]["expires"].as_str().expect("an expiry by default");
        assert!(
            expires[..4].parse::<u32>().expect("a year") >= created[..4].parse().expect("a year")
        );
        assert!(expires > created && listed[0]["expires"].as_str() < Some(expires));
        assert_eq!(listed[2]["expires"], Value::Null);
        // Last use: written when the server stopped; none for a token never used.
        assert!(
            listed[1]["lastUsed"]
                .as_str()
                .is_some_and(|used| used > created),
            "{listed:?}"
        );
        assert_eq!(listed[2]["lastUsed"], Value::Null);
        // Revoked by the id the list shows.
        let id = listed[1]["id"].to_string();
        run(&["token", "revoke", "--id", &id], &url);
        assert!(
            !core_server(&["token", "revoke", "--id", &id], &url)
                .status
                .success()
        );
        let (server, address) = serve_with(&url, &[]);
        assert_eq!(keywords(&address, standing).0, 401);
        drop(server);
        assert!(tokens(&url)[1]["revoked"].is_string());
    }
}

#[test]
fn a_role_loses_a_grant() {
    for url in backends("role") {
        run(
            &[
                "role", "grant", "editor", "--module", "Common", "--module", "PIM",
            ],
            &url,
        );
        let token = run(
            &["token", "issue", "--user", "ed", "--role", "editor"],
            &url,
        );
        let (server, address) = serve_with(&url, &[]);
        assert_eq!(keywords(&address, token.trim()).0, 200);
        run(&["role", "revoke", "editor", "--module", "Common"], &url);
        // Within the revision check (250 ms) every server holds the change.
        std::thread::sleep(Duration::from_millis(600));
        assert_eq!(keywords(&address, token.trim()).0, 403);
        drop(server);
        let again = core_server(&["role", "revoke", "editor", "--module", "Common"], &url);
        assert!(
            !again.status.success(),
            "a grant the role does not have is refused"
        );
        assert!(String::from_utf8_lossy(&again.stderr).contains("does not grant"));
    }
}

#[test]
fn an_import_never_revives_a_revoked_token_and_takes_one_by_its_hash() {
    for url in backends("import") {
        let folder = std::env::temp_dir().join(format!("core-access-doc-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a folder");
        let (selector, secret) = ("0123456789abcdef", "ab".repeat(16));
        let document = json!({"tokens": [
            {"user": "hashed", "roles": ["admin"], "selector": selector,
             "secretSha256": core_server::auth::hash_secret(&secret)},
            {"user": "whole", "roles": ["admin"], "token": format!("fedcba9876543210.{}", "cd".repeat(16)),
             "expiresAt": "2999-01-01T00:00:00.000Z"},
        ]});
        let file = folder.join("tokens.json");
        std::fs::write(&file, document.to_string()).expect("the document");
        let file = file.to_string_lossy().to_string();
        run(&["import", &file], &url);
        let token = format!("{selector}.{secret}");
        let whole = format!("fedcba9876543210.{}", "cd".repeat(16));
        let (server, address) = serve_with(&url, &[]);
        assert_eq!(
            keywords(&address, &token).0,
            200,
            "a token given by its hash"
        );
        assert_eq!(keywords(&address, &whole).0, 200);
        drop(server);
        assert_eq!(tokens(&url)[1]["expires"], "2999-01-01T00:00:00.000Z");
        run(&["token", "revoke", &token], &url);
        run(&["token", "revoke", "--user", "whole"], &url);
        run(&["import", &file], &url);
        let (server, address) = serve_with(&url, &[]);
        assert_eq!(keywords(&address, &token).0, 401, "still revoked");
        assert_eq!(keywords(&address, &whole).0, 401, "still revoked");
        drop(server);
        let wrong = json!({"tokens": [{"user": "x", "selector": selector, "token": token}]});
        std::fs::write(folder.join("wrong.json"), wrong.to_string()).expect("a document");
        let refused = core_server(
            &["import", &folder.join("wrong.json").to_string_lossy()],
            &url,
        );
        assert!(!refused.status.success());
        let _ = std::fs::remove_dir_all(&folder);
    }
}

#[test]
fn the_token_user_edits_glossary_entries_and_sends_messages() {
    for url in backends("audit") {
        let (server, address, token) = demo(&url);
        let entry = json!({"glossaryEntries": {"glossaryEntry": [{
            "parentTid": "GL-TEXTILES", "loc": "en_GB", "type": "term",
            "meta": {"itm": [{"key": "value", "value": "felt"}, {"key": "lastEditedUsername", "value": "mallory"}, {"key": "lastEditedDate", "value": "2001-01-01T00:00:00.000Z"}]},
            "links": {"itms": [{"loc": "de_DE", "itm": [{"key": "value", "value": "Filz"}, {"key": "lastEditedUsername", "value": "mallory"}]}]}
        }]}});
        let (status, body) = post(&address, &token, "common/glossaryEntries/persist", &entry);
        assert!(status == 200 && body.contains("SUCCESS"), "{body}");
        let message = json!({"messages": [{"tid": "M-AUDIT", "subject": "Hi", "recipientRole": "editors", "senderApplication": "app"}]});
        let (status, body) = post(&address, &token, "common/messages/persist", &message);
        assert!(status == 200 && body.contains("SUCCESS"), "{body}");
        stop(server);
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let edits: Vec<(String, String)> = runtime.block_on(async {
            sqlx::any::install_default_drivers();
            let pool = sqlx::AnyPool::connect(&url).await.expect("a pool");
            sqlx::query_as(
                "SELECT last_edited_username, last_edited_date FROM glossary_entries WHERE value = 'felt' \
                 UNION ALL SELECT t.last_edited_username, t.last_edited_date FROM glossary_translations t \
                 JOIN glossary_entries e ON e.id = t.entry_id WHERE e.value = 'felt'",
            )
            .fetch_all(&pool)
            .await
            .expect("the entry and its translation")
        });
        assert_eq!(edits.len(), 2);
        for (user, date) in &edits {
            assert_eq!(user, "demo", "the token's user, not the message's");
            assert!(date.as_str() > "2026", "the time of the edit: {date}");
        }
        let listed = run(&["messages", "list", "--role", "editors"], &url);
        let message: Value = serde_json::from_str(listed.trim()).expect("one JSON line");
        assert_eq!(message["senderUser"], "demo");
        assert_eq!(message["senderApplication"], "app");
    }
}
