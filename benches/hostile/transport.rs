//! Sockets and bodies: what a client that sends too much, too little or too slowly costs.

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::{Duration, Instant},
};

use super::{Case, Outcome, Served, Which, client};

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";
const PERSIST: &str = "/api/core/v1/common/keywords/persist";
const TRANSFORM: &str = "/api/core/v1/common/transform";

/// How long a case waits for the server to close a socket it left silent.
const PATIENCE: Duration = Duration::from_secs(15);

/// The transport cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case::new("200 connections that send nothing", Which::Bounded, silent),
        Case::new("one byte sent, then nothing", Which::Bounded, one_byte),
        Case::new(
            "the HTTP/2 preface, then no frame",
            Which::Bounded,
            http2_preface,
        ),
        Case::new(
            "257 silent connections, 256 allowed, then a request",
            Which::Bounded,
            beyond_connections,
        ),
        Case::new(
            "Content-Length 20 GB, 1 byte sent",
            Which::Bounded,
            declared_huge,
        ),
        Case::new(
            "1 GB chunked body, all sent before reading",
            Which::Bounded,
            chunked_huge,
        ),
        Case::new(
            "Content-Length 1000, 11 bytes sent, held open",
            Which::Bounded,
            stalled_body,
        ),
        Case::new(
            "headers trickled one line per second",
            Which::Bounded,
            |server| trickle(connect(&server.address)),
        ),
        Case::new(
            "200 connections trickling headers",
            Which::Bounded,
            many_trickling,
        ),
        Case::new(
            "65 requests at once, 64 in flight allowed",
            Which::Bounded,
            beyond_in_flight,
        ),
        Case::new("XML with an external entity (XXE)", Which::Bounded, xxe),
        Case::new("XML billion laughs", Which::Bounded, billion_laughs),
        Case::new("JSON nested 100,000 deep", Which::Bounded, deep_json),
        Case::new("invalid UTF-8 body", Which::Bounded, invalid_utf8),
        Case::new("a batch of 200,000 items", Which::Bounded, huge_batch),
    ]
}

pub fn connect(address: &str) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connected");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("a timeout");
    stream
}

/// What the server answered on a stream: its status code, or how the connection ended.
pub fn answer(stream: &mut TcpStream) -> Outcome {
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

/// Posts a body with the demo token, on a connection of its own.
pub fn post(server: &Served, path: &str, content_type: &str, body: &[u8]) -> Outcome {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        server.token,
        body.len()
    );
    exchange(&server.address, &head, body)
}

/// Opens `count` connections, sends `sent` on each, and counts those the server closes within
/// [`PATIENCE`], with the time the last one took.
fn left_silent(server: &Served, count: usize, sent: &[u8]) -> Outcome {
    let mut streams: Vec<TcpStream> = (0..count)
        .filter_map(|_| TcpStream::connect(&server.address).ok())
        .collect();
    let opened = streams.len();
    for stream in &mut streams {
        let _ = stream.write_all(sent);
    }
    let started = Instant::now();
    let threads: Vec<_> = streams
        .into_iter()
        .map(|mut stream| {
            std::thread::spawn(move || {
                client::closed_within(&mut stream, PATIENCE.saturating_sub(started.elapsed()))
            })
        })
        .collect();
    let closed: Vec<Duration> = threads
        .into_iter()
        .filter_map(|thread| thread.join().ok().flatten())
        .collect();
    match closed.iter().max() {
        Some(last) => format!(
            "{} of {opened} closed by the server, the last after {:.1} s",
            closed.len(),
            last.as_secs_f64()
        ),
        None => format!("0 of {opened} closed after {} s", PATIENCE.as_secs()),
    }
}

fn silent(server: &Served) -> Outcome {
    left_silent(server, 200, b"")
}

fn one_byte(server: &Served) -> Outcome {
    left_silent(server, 1, b"P")
}

fn http2_preface(server: &Served) -> Outcome {
    left_silent(server, 1, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
}

/// Fills the connection cap with silent connections, then asks for one more and sends a request
/// on it; afterwards, once the silent ones are gone, one more request.
fn beyond_connections(server: &Served) -> Outcome {
    let holding: Vec<TcpStream> = (0..256)
        .filter_map(|_| TcpStream::connect(&server.address).ok())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let extra = match client::Connection::open(&server.address, Duration::from_secs(5)) {
        Ok(mut connection) => {
            let token = format!("Bearer {}", server.token);
            match connection.post(
                RETRIEVE,
                &[
                    ("Authorization", &token),
                    ("Content-Type", "application/json"),
                ],
                br#"{"path":"/"}"#,
            ) {
                Ok(reply) => format!("answered {}", reply.status),
                Err(error) => format!("refused ({})", error.kind()),
            }
        }
        Err(error) => format!("not connected ({})", error.kind()),
    };
    let extra_time = started.elapsed();
    drop(holding);
    std::thread::sleep(Duration::from_millis(300));
    let after = post(server, RETRIEVE, "application/json", br#"{"path":"/"}"#);
    format!(
        "connection 257: {extra} in {:.0} ms; once the 256 are closed: {after}",
        extra_time.as_secs_f64() * 1000.0
    )
}

fn declared_huge(server: &Served) -> Outcome {
    let mut stream = connect(&server.address);
    let _ = write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 20000000000\r\n\r\n{{",
        server.token
    );
    answer(&mut stream)
}

fn chunked_huge(server: &Served) -> Outcome {
    let mut stream = connect(&server.address);
    let _ = write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.token
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

fn stalled_body(server: &Served) -> Outcome {
    let mut stream = connect(&server.address);
    let _ = write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"path\": \"",
        server.token
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

fn many_trickling(server: &Served) -> Outcome {
    let streams: Vec<TcpStream> = (0..200).map(|_| connect(&server.address)).collect();
    let threads: Vec<_> = streams
        .into_iter()
        .map(|stream| std::thread::spawn(move || trickle(stream)))
        .collect();
    let closed = threads
        .into_iter()
        .filter_map(|thread| thread.join().ok())
        .filter(|outcome| outcome.starts_with("closed"))
        .count();
    format!("{closed} of 200 closed")
}

fn beyond_in_flight(server: &Served) -> Outcome {
    // 64 requests hold their places while their bodies are awaited.
    let holding: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut stream = connect(&server.address);
            let _ = write!(
                stream,
                "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
                 Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{",
                server.token
            );
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let outcome = post(server, RETRIEVE, "application/json", br#"{"path":"/"}"#);
    drop(holding);
    outcome
}

fn xxe(server: &Served) -> Outcome {
    let body = br#"<?xml version="1.0"?><!DOCTYPE pim [<!ENTITY x SYSTEM "file:///etc/passwd">]><pim xmlns="urn:core-interface:v1"><kwds><kwd path="&x;"/></kwds></pim>"#;
    post(server, PERSIST, "application/xml", body)
}

fn billion_laughs(server: &Served) -> Outcome {
    let mut entities = String::from(r#"<!ENTITY l0 "lol">"#);
    for level in 1..10 {
        let previous = format!("&l{};", level - 1).repeat(10);
        entities.push_str(&format!(r#"<!ENTITY l{level} "{previous}">"#));
    }
    let body = format!(
        r#"<?xml version="1.0"?><!DOCTYPE pim [{entities}]><pim xmlns="urn:core-interface:v1"><kwds><kwd path="&l9;"/></kwds></pim>"#
    );
    post(server, PERSIST, "application/xml", body.as_bytes())
}

fn deep_json(server: &Served) -> Outcome {
    let body = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    post(server, TRANSFORM, "application/json", body.as_bytes())
}

fn invalid_utf8(server: &Served) -> Outcome {
    post(
        server,
        RETRIEVE,
        "application/json",
        b"{\"path\": \"/\xff\xfe\"}",
    )
}

fn huge_batch(server: &Served) -> Outcome {
    let items = vec![r#"{"path":"/x"}"#; 200_000].join(",");
    let body = format!(r#"{{"kwds":{{"kwd":[{items}]}}}}"#);
    post(server, PERSIST, "application/json", body.as_bytes())
}
