//! Transport limits over real sockets (D-37): a body declared too large is refused before it is
//! sent, a chunked body too large gets its 413 read by the client (not lost to a reset), a
//! request head trickled in, or a keep-alive connection left idle, is cut off after the header
//! timeout, a body that stalls gets 408 after the body timeout, and a request beyond the bound
//! of requests in flight gets 503 with `Retry-After`.

mod support;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    time::{Duration, Instant},
};

use support::{Server, serve_with};

const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";

/// A demo server with a header timeout of one second; its token.
fn server(folder: &str) -> (Server, String, String) {
    server_with(folder, &[])
}

/// A demo server with a header timeout of one second and more arguments; its token.
fn server_with(folder: &str, arguments: &[&str]) -> (Server, String, String) {
    let folder = std::env::temp_dir().join(format!("core-server-{folder}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let url = format!("sqlite://{}/core.db", folder.display());
    let mut all = vec!["--demo", "--header-timeout", "1"];
    all.extend_from_slice(arguments);
    let (mut server, address) = serve_with(&url, &all);
    let stdout = server.0.stdout.take().expect("stdout");
    let mut token = String::new();
    BufReader::new(stdout)
        .read_line(&mut token)
        .expect("the demo token");
    (server, address, token.trim().to_string())
}

/// The status line's code of what the server answered, reading until the head is complete.
fn status(stream: &mut TcpStream) -> u16 {
    head(stream)
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

/// The head of what the server answered.
fn head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Sends a whole keywords retrieve of the roots on a kept-alive connection (waiting up to five
/// seconds for answers).
fn retrieve(stream: &mut TcpStream, token: &str) {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("a timeout");
    let body = r#"{"path": "/"}"#;
    write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("a request");
}

/// Sends the head of a keywords retrieve announcing a 100-byte body, and 10 bytes of it.
fn stalled(address: &str, token: &str) -> TcpStream {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"path\": "
    )
    .expect("the head and part of the body");
    stream
}

#[test]
fn a_body_that_stalls_gets_408_after_the_body_timeout() {
    let (_server, address, token) = server_with("stall", &["--body-timeout", "1"]);
    let started = Instant::now();
    let mut stream = stalled(&address, &token);
    let head = head(&mut stream);
    let waited = started.elapsed();
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(4),
        "answered after {waited:?}, the body timeout being 1 s"
    );
    let mut body = String::new();
    let _ = stream.read_to_string(&mut body);
    assert!(body.contains(r#""value":"1013""#), "{body}");
}

#[test]
fn a_request_beyond_the_bound_in_flight_gets_503_with_retry_after() {
    let (_server, address, token) = server_with("busy", &["--max-in-flight", "1"]);
    // One request holds the only place while its body is awaited.
    let _holding = stalled(&address, &token);
    std::thread::sleep(Duration::from_millis(200));
    let mut stream = TcpStream::connect(&address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("a timeout");
    let body = r#"{"path": "/"}"#;
    write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("a request");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 1\r\n"),
        "{answer}"
    );
    assert!(answer.contains(r#""value":"1014""#), "{answer}");
    // The health check is answered all the same.
    let mut health = TcpStream::connect(&address).expect("connects");
    write!(
        health,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .expect("sent");
    assert_eq!(status(&mut health), 200);
}

#[test]
fn a_body_declared_too_large_is_refused_before_it_is_sent() {
    let (_server, address, token) = server("declared");
    let mut stream = TcpStream::connect(&address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("a timeout");
    let started = Instant::now();
    write!(
        stream,
        "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: 20000000000\r\n\r\n{{"
    )
    .expect("sends the head and one byte");
    assert_eq!(status(&mut stream), 413);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "answered at once"
    );
}

#[test]
fn a_chunked_body_too_large_gets_its_413_read_every_time() {
    let (_server, address, token) = server("chunked");
    for attempt in 0..10 {
        let mut stream = TcpStream::connect(&address).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("a timeout");
        write!(
            stream,
            "POST {RETRIEVE} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .expect("the head");
        // As a simple client does: the whole body (32 MiB, over the 10 MiB limit) is sent
        // before the answer is read. A server that closed with the rest unread would reset the
        // connection, and the answer waiting in the client's buffer would be lost with it.
        let chunk = vec![b' '; 64 * 1024];
        for _ in 0..512 {
            let sent = write!(stream, "{:x}\r\n", chunk.len())
                .and_then(|()| stream.write_all(&chunk))
                .and_then(|()| stream.write_all(b"\r\n"));
            if sent.is_err() {
                break;
            }
        }
        let _ = stream.write_all(b"0\r\n\r\n");
        assert_eq!(status(&mut stream), 413, "attempt {attempt}");
    }
}

#[test]
fn a_trickled_head_is_cut_off_after_the_header_timeout() {
    let (_server, address, token) = server("trickle");
    let mut stream = TcpStream::connect(&address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("a timeout");
    let started = Instant::now();
    write!(stream, "POST {RETRIEVE} HTTP/1.1\r\n").expect("the request line");
    let lines = [
        "Host: x\r\n".to_string(),
        format!("Authorization: Bearer {token}\r\n"),
        "Content-Type: application/json\r\n".to_string(),
    ];
    let mut closed = None;
    'trickle: for _ in 0..10 {
        for line in &lines {
            if stream.write_all(line.as_bytes()).is_err() {
                closed = Some(started.elapsed());
                break 'trickle;
            }
            let waited = Instant::now();
            while waited.elapsed() < Duration::from_millis(400) {
                match stream.read(&mut [0; 1024]) {
                    Ok(0) => {
                        closed = Some(started.elapsed());
                        break 'trickle;
                    }
                    Ok(_) => {}
                    Err(error)
                        if error.kind() == std::io::ErrorKind::WouldBlock
                            || error.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => {
                        closed = Some(started.elapsed());
                        break 'trickle;
                    }
                }
            }
        }
    }
    let closed = closed.expect("the server closed the connection");
    assert!(
        closed >= Duration::from_millis(900) && closed < Duration::from_secs(4),
        "closed after {closed:?}, the header timeout being 1 s"
    );
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let (_server, address, token) = server("idle");
    let mut stream = TcpStream::connect(&address).expect("connects");
    retrieve(&mut stream, &token);
    assert_eq!(status(&mut stream), 200);
    let answered = Instant::now();
    // The rest of the answer, then the end of the connection.
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    let idle = answered.elapsed();
    assert!(
        idle >= Duration::from_millis(900) && idle < Duration::from_secs(4),
        "closed after {idle:?} idle, the header timeout being 1 s"
    );
}

/// How long the server took to close a connection that sent `sent` and then nothing: none
/// when it was still open after `patience`.
fn closed_after(mut stream: TcpStream, sent: &[u8], patience: Duration) -> Option<Duration> {
    let started = Instant::now();
    stream.write_all(sent).expect("sent");
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .expect("a timeout");
    while started.elapsed() < patience {
        match stream.read(&mut [0; 1024]) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(error)
                if error.kind() == std::io::ErrorKind::WouldBlock
                    || error.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return Some(started.elapsed()),
        }
    }
    None
}

#[test]
fn a_connection_without_a_request_head_is_closed_after_the_header_timeout() {
    let (_server, address, _token) = server("silent");
    // Nothing, one byte, and the HTTP/2 preface without a frame: before hyper knows the protocol
    // and after it has chosen HTTP/2, the first head is awaited for the header timeout alone.
    let sent: [&[u8]; 3] = [b"", b"P", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"];
    let waits: Vec<_> = sent
        .iter()
        .map(|sent| {
            let stream = TcpStream::connect(&address).expect("connects");
            let sent = sent.to_vec();
            std::thread::spawn(move || closed_after(stream, &sent, Duration::from_secs(8)))
        })
        .collect();
    for (wait, sent) in waits.into_iter().zip(sent) {
        let closed = wait.join().expect("a thread");
        let closed = closed.unwrap_or_else(|| panic!("{sent:?}: still open after 8 s"));
        assert!(
            closed >= Duration::from_millis(900) && closed < Duration::from_secs(4),
            "{sent:?}: closed after {closed:?}, the header timeout being 1 s"
        );
    }
}

#[test]
fn a_connection_beyond_the_cap_is_closed_at_once() {
    let (_server, address, token) = server_with("cap", &["--max-connections", "2"]);
    let mut first = TcpStream::connect(&address).expect("connects");
    let _second = TcpStream::connect(&address).expect("connects");
    std::thread::sleep(Duration::from_millis(100));
    let third = TcpStream::connect(&address).expect("the kernel accepts it");
    let closed = closed_after(third, b"", Duration::from_millis(800));
    assert!(
        closed.is_some_and(|closed| closed < Duration::from_millis(500)),
        "the third connection was closed at once, not after the header timeout: {closed:?}"
    );
    // The first two hold their places: a request on the first is answered.
    retrieve(&mut first, &token);
    assert_eq!(status(&mut first), 200);
}

/// A client that reads nothing, with a small receive buffer (as a slow client far away has), so
/// that a large answer stalls in the server.
async fn slow_reader(address: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket.set_recv_buffer_size(4096).expect("a small buffer");
    socket
        .connect(address.parse().expect("an address"))
        .await
        .expect("connects")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_keeps_its_place_in_flight_until_it_is_taken_or_cut_off() {
    use tokio::io::AsyncWriteExt;
    let (_server, address, token) =
        server_with("slow", &["--max-in-flight", "1", "--send-timeout", "2"]);
    // A transform whose answer (about 9 MB of XML) is far more than the sockets hold.
    let text = "x".repeat(9_000);
    let kwds: Vec<String> = (0..1000)
        .map(|id| format!(r#"{{"id":{id},"meta":{{"itm":[{{"key":"k","value":"{text}"}}]}}}}"#))
        .collect();
    let body = format!(r#"{{"kwds":{{"kwd":[{}]}}}}"#, kwds.join(","));
    let mut slow = slow_reader(&address).await;
    let head = format!(
        "POST /api/core/v1/common/transform HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nAccept: application/xml\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    slow.write_all(head.as_bytes()).await.expect("the head");
    slow.write_all(body.as_bytes()).await.expect("the body");
    tokio::time::sleep(Duration::from_millis(700)).await;
    let other = |address: String, token: String| {
        tokio::task::spawn_blocking(move || {
            let mut health = TcpStream::connect(&address).expect("connects");
            let body = r#"{"mode": "ALL"}"#;
            write!(
                health,
                "POST /api/core/v1/common/locales/retrieve HTTP/1.1\r\nHost: x\r\n\
                 Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .expect("sent");
            status(&mut health)
        })
    };
    // The unread answer holds the only place: another request is refused.
    let refused = other(address.clone(), token.clone()).await;
    assert_eq!(refused.expect("a thread"), 503);
    // Once the answer has made no progress for the send timeout, it is cut off.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let answered = other(address.clone(), token.clone()).await;
    assert_eq!(answered.expect("a thread"), 200);
    drop(slow);
}
