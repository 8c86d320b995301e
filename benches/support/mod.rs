//! What the HTTP benchmarks share: a release `core-server` importing a document into a SQLite
//! file and serving it on a free port, requests over a plain socket (the whole answer read), and
//! the server's memory from `/proc`.

#![allow(dead_code)]

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// The token every benchmark document issues to itself (an admin).
pub const TOKEN: &str = "be4c4be4c4be4c4b.be4c4be4c4be4c4bbe4c4be4c4be4c4b";

/// The server binary cargo built for the benchmark.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_core-server")
}

/// A scratch folder for one benchmark and size, emptied.
pub fn scratch(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("core-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a scratch folder");
    folder
}

/// Imports a bootstrap document (written to `folder`) into a SQLite file there; answers the
/// database URL.
pub fn import(folder: &Path, document: &serde_json::Value) -> String {
    let database = format!("sqlite://{}/bench.db", folder.display());
    import_to(folder, &database, document);
    database
}

/// Imports a bootstrap document (written to `folder`) into the database at `database`.
pub fn import_to(folder: &Path, database: &str, document: &serde_json::Value) {
    let file = folder.join("bench.json");
    std::fs::write(&file, document.to_string()).expect("the document is written");
    let started = Instant::now();
    let imported = Command::new(binary())
        .args(["import", "--database-url", database])
        .arg(&file)
        .stdout(Stdio::null())
        .status()
        .expect("core-server import runs");
    assert!(
        imported.success(),
        "the import into {} failed",
        folder.display()
    );
    eprintln!(
        "{} imported in {:.1} s",
        folder.display(),
        started.elapsed().as_secs_f64()
    );
}

/// Starts `core-server serve` on a free port; answers the process and the port once it listens.
pub fn serve(database: &str) -> (Child, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port");
    let mut child = Command::new(binary())
        // Benchmarks send requests as fast as they are answered.
        .env("CORE_RATE_LIMIT", "0")
        .args(["serve", "--database-url", database, "--bind"])
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("core-server serve starts");
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (child, port);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("core-server did not listen on {port}");
}

/// An answer: its status, the length of its body, and the body when it was kept.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The length of the body's content.
    pub length: usize,
    /// The body (empty unless asked for).
    pub body: Vec<u8>,
}

/// Posts `body` to `path` with the benchmark's token and reads the whole answer; keeps the body
/// when `keep` (a large download is only counted).
pub fn post(port: u16, path: &str, body: &str, accept: &str, keep: bool) -> Answer {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connected");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nAccept: {accept}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("sent");
    // The head, then the body counted (and kept when asked) as it arrives.
    let mut head = Vec::new();
    let mut buffer = vec![0; 1 << 16];
    let mut rest = loop {
        let read = stream.read(&mut buffer).expect("the answer is read");
        assert!(read > 0, "the connection closed before the head ended");
        head.extend_from_slice(&buffer[..read]);
        if let Some(end) = head.windows(4).position(|window| window == b"\r\n\r\n") {
            break head.split_off(end + 4);
        }
    };
    let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0);
    let chunked = text.contains("transfer-encoding: chunked");
    if chunked || keep {
        stream.read_to_end(&mut rest).expect("the body is read");
        let length = if chunked {
            dechunked_length(&rest)
        } else {
            rest.len()
        };
        return Answer {
            status,
            length,
            body: if keep { rest } else { Vec::new() },
        };
    }
    let mut length = rest.len();
    loop {
        let read = stream.read(&mut buffer).expect("the body is read");
        if read == 0 {
            break;
        }
        length += read;
    }
    Answer {
        status,
        length,
        body: Vec::new(),
    }
}

/// The length of a chunked body's content.
fn dechunked_length(mut body: &[u8]) -> usize {
    let mut total = 0;
    loop {
        let Some(line_end) = body.windows(2).position(|window| window == b"\r\n") else {
            return total;
        };
        let size = std::str::from_utf8(&body[..line_end])
            .ok()
            .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok())
            .unwrap_or(0);
        if size == 0 {
            return total;
        }
        total += size;
        body = &body[(line_end + 2 + size + 2).min(body.len())..];
    }
}

/// The peak resident memory of a process, in KiB (`VmHWM` of `/proc/<pid>/status`; 0 where
/// there is no `/proc`).
pub fn peak_kib(pid: u32) -> u64 {
    read_kib(pid, "VmHWM:")
}

/// The resident memory of a process now, in KiB (`VmRSS`).
pub fn resident_kib(pid: u32) -> u64 {
    read_kib(pid, "VmRSS:")
}

/// The anonymous resident memory of a process now, in KiB (`RssAnon`: what it allocated,
/// without the files it maps).
pub fn anon_kib(pid: u32) -> u64 {
    read_kib(pid, "RssAnon:")
}

fn read_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Stops a server and removes its folder.
pub fn stop(child: Child, folder: &Path) {
    end(child);
    let _ = std::fs::remove_dir_all(folder);
}

/// Stops a server, keeping its folder (for the next server on the same database).
pub fn end(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The median and fastest of a set of times.
pub fn median_and_fastest(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[0])
}

/// The sizes a benchmark runs at: the comma-separated list in the variable `name`, else
/// `default`.
pub fn sizes(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .filter_map(|size| size.trim().parse().ok())
        .collect()
}

/// A keyword tree: ten roots, ten children per keyword, breadth first, `count` in all, each named
/// in two locales; the benchmark's token.
pub fn keyword_tree(count: usize) -> serde_json::Value {
    let mut paths: Vec<String> = (0..10.min(count)).map(|root| format!("/k{root}")).collect();
    let mut parent = 0;
    while paths.len() < count {
        for child in 0..10 {
            if paths.len() == count {
                break;
            }
            let path = format!("{}/k{child}", paths[parent]);
            paths.push(path);
        }
        parent += 1;
    }
    let keywords: Vec<serde_json::Value> = paths
        .into_iter()
        .map(|path| {
            let name = path.rsplit('/').next().unwrap_or_default().to_string();
            serde_json::json!({"path": path, "names": {"en_GB": format!("{name} (en)"), "de_DE": format!("{name} (de)")}})
        })
        .collect();
    serde_json::json!({
        "locales": [
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"},
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"}
        ],
        "keywords": keywords,
        "tokens": [{"user": "bench", "roles": ["admin"], "token": TOKEN}]
    })
}
