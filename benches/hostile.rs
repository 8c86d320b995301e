//! Hostile clients against the release server on the demo catalogue, each case as a hostile
//! client would try it over a plain socket: what the server answered, how long it took, and the
//! server's resident memory before and after (D-37).
//!
//! The server runs with `--header-timeout 2 --body-timeout 3 --max-in-flight 64`, so that the
//! timeout cases finish in seconds (the defaults are 10 s, 30 s and 512).
//!
//! `cargo bench --bench hostile` prints a table: case, answer, time, RSS before → after.

mod support;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";
const PERSIST: &str = "/api/core/v1/common/keywords/persist";
const TRANSFORM: &str = "/api/core/v1/common/transform";

/// The server's answer to one case: the status line's code, or what happened instead.
type Outcome = String;

fn main() {
    let folder = support::scratch("hostile");
    let url = format!("sqlite://{}/core.db", folder.display());
    let (mut child, address, token) = serve_demo(&url);
    let pid = child.id();
    type Case = (&'static str, fn(&str, &str) -> Outcome);
    let cases: [Case; 12] = [
        ("Content-Length 20 GB, 1 byte sent", declared_huge),
        ("1 GB chunked body, all sent before reading", chunked_huge),
        (
            "Content-Length 1000, 11 bytes sent, held open",
            stalled_body,
        ),
        ("headers trickled one line per second", trickled_head),
        ("500 connections trickling headers", many_trickling),
        (
            "65 requests at once, 64 in flight allowed",
            beyond_in_flight,
        ),
        ("XML with an external entity (XXE)", xxe),
        ("XML billion laughs", billion_laughs),
        ("JSON nested 100,000 deep", deep_json),
        ("invalid UTF-8 body", invalid_utf8),
        ("a batch of 200,000 items", huge_batch),
        ("an unknown bearer token", unknown_token),
    ];
    println!("hostile clients against core-server (release, demo catalogue):");
    println!("| case | answer | time | server RSS before → after |\n|---|---|---|---|");
    for (name, case) in cases {
        let before = support::resident_kib(pid);
        let started = Instant::now();
        let outcome = case(&address, &token);
        let time = started.elapsed();
        // Let what the case left behind (lingering sockets, timers) settle.
        std::thread::sleep(Duration::from_millis(500));
        let after = support::resident_kib(pid);
        println!(
            "| {name} | {outcome} | {:.2} s | {:.1} → {:.1} MB |",
            time.as_secs_f64(),
            before as f64 / 1024.0,
            after as f64 / 1024.0
        );
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&folder);
}

/// Starts the release server on the demo catalogue; its process, address and demo token.
fn serve_demo(url: &str) -> (Child, String, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port");
    let address = format!("127.0.0.1:{port}");
    let mut child = Command::new(support::binary())
        .args(["serve", "--demo", "--database-url", url, "--bind", &address])
        .args([
            "--header-timeout",
            "2",
            "--body-timeout",
            "3",
            "--max-in-flight",
            "64",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("core-server serve starts");
    let mut token = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut token)
        .expect("the demo token");
    for _ in 0..200 {
        if TcpStream::connect(&address).is_ok() {
            return (child, address, token.trim().to_string());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("core-server did not listen on {address}");
}

fn connect(address: &str) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connected");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    stream
}

/// What the server answered on a stream: its status code, or how the connection ended.
fn answer(stream: &mut TcpStream) -> Outcome {
    let mut head = Vec::new();
    let mut byte = [0; 1];
    loop {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            Ok(_) if head.is_empty() => return "closed, no answer".into(),
            Err(error) if head.is_empty() => return format!("no answer ({})", error.kind()),
            _ => break,
        }
        if head.ends_with(b"\r\n\r\n") {
            break;
        }
    }
    String::from_utf8_lossy(&head)
        .split(' ')
        .nth(1)
        .unwrap_or("?")
        .to_string()
}

/// Sends a whole request and reads the answer's status.
fn exchange(address: &str, head: &str, body: &[u8]) -> Outcome {
    let mut stream = connect(address);
    let sent = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body));
    match sent {
        Ok(()) => answer(&mut stream),
        Err(error) => format!("{} ({})", answer(&mut stream), error.kind()),
    }
}

fn post(address: &str, token: &str, path: &str, content_type: &str, body: &[u8]) -> Outcome {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    exchange(address, &head, body)
}

fn declared_huge(address: &str, token: &str) -> Outcome {
    let mut stream = connect(address);
    let _ = write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 20000000000\r\n\r\n{{"
    );
    answer(&mut stream)
}

fn chunked_huge(address: &str, token: &str) -> Outcome {
    let mut stream = connect(address);
    let _ = write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..1024 {
        let sent = write!(stream, "{:x}\r\n", chunk.len())
            .and_then(|()| stream.write_all(&chunk))
            .and_then(|()| stream.write_all(b"\r\n"));
        if sent.is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    answer(&mut stream)
}

fn stalled_body(address: &str, token: &str) -> Outcome {
    let mut stream = connect(address);
    let _ = write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"path\": \""
    );
    answer(&mut stream)
}

/// Sends a request's head one line per second until the server closes the connection.
fn trickle(mut stream: TcpStream) -> Outcome {
    let started = Instant::now();
    let _ = write!(stream, "POST {RETRIEVE} HTTP/1.1\r\n");
    stream
        .set_read_timeout(Some(Duration::from_millis(1)))
        .expect("a timeout");
    for line in 0..30 {
        std::thread::sleep(Duration::from_secs(1));
        if write!(stream, "X-Trickle-{line}: {line}\r\n").is_err() {
            break;
        }
        match stream.read(&mut [0; 256]) {
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            // Closed, reset, or an answer: the server is done with it.
            _ => break,
        }
    }
    format!("closed after {:.1} s", started.elapsed().as_secs_f64())
}

fn trickled_head(address: &str, _token: &str) -> Outcome {
    trickle(connect(address))
}

fn many_trickling(address: &str, _token: &str) -> Outcome {
    let streams: Vec<TcpStream> = (0..500).map(|_| connect(address)).collect();
    let threads: Vec<_> = streams
        .into_iter()
        .map(|stream| std::thread::spawn(move || trickle(stream)))
        .collect();
    let closed = threads
        .into_iter()
        .filter_map(|thread| thread.join().ok())
        .filter(|outcome| outcome.starts_with("closed"))
        .count();
    format!("{closed} of 500 closed")
}

fn beyond_in_flight(address: &str, token: &str) -> Outcome {
    // 64 requests hold their places while their bodies are awaited.
    let holding: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut stream = connect(address);
            let _ = write!(
                stream,
                "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
            );
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let outcome = post(
        address,
        token,
        RETRIEVE,
        "application/json",
        br#"{"path":"/"}"#,
    );
    drop(holding);
    outcome
}

fn xxe(address: &str, token: &str) -> Outcome {
    let body = br#"<?xml version="1.0"?><!DOCTYPE pim [<!ENTITY x SYSTEM "file:///etc/passwd">]><pim xmlns="urn:core-interface:v1"><kwds><kwd path="&x;"/></kwds></pim>"#;
    post(address, token, PERSIST, "application/xml", body)
}

fn billion_laughs(address: &str, token: &str) -> Outcome {
    let mut entities = String::from(r#"<!ENTITY l0 "lol">"#);
    for level in 1..10 {
        let previous = format!("&l{};", level - 1).repeat(10);
        entities.push_str(&format!(r#"<!ENTITY l{level} "{previous}">"#));
    }
    let body = format!(
        r#"<?xml version="1.0"?><!DOCTYPE pim [{entities}]><pim xmlns="urn:core-interface:v1"><kwds><kwd path="&l9;"/></kwds></pim>"#
    );
    post(address, token, PERSIST, "application/xml", body.as_bytes())
}

fn deep_json(address: &str, token: &str) -> Outcome {
    let body = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    post(
        address,
        token,
        TRANSFORM,
        "application/json",
        body.as_bytes(),
    )
}

fn invalid_utf8(address: &str, token: &str) -> Outcome {
    post(
        address,
        token,
        RETRIEVE,
        "application/json",
        b"{\"path\": \"/\xff\xfe\"}",
    )
}

fn huge_batch(address: &str, token: &str) -> Outcome {
    let items = vec![r#"{"path":"/x"}"#; 200_000].join(",");
    let body = format!(r#"{{"kwds":{{"kwd":[{items}]}}}}"#);
    post(address, token, PERSIST, "application/json", body.as_bytes())
}

fn unknown_token(address: &str, _token: &str) -> Outcome {
    post(
        address,
        "0000000000000000.00000000000000000000000000000000",
        RETRIEVE,
        "application/json",
        br#"{"path":"/"}"#,
    )
}
