//! Load that holds the server's resources: writers keeping the write lock busy while others read,
//! clients that never read their large answers, and byte ranges of a large binary.

use std::{
    io::Write,
    net::TcpStream,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use super::{Case, Outcome, Served, Which, client, transport};

const PERSIST: &str = "/api/core/v1/common/keywords/persist";
const RETRIEVE: &str = "/api/core/v1/common/keywords/retrieve";
const LOCALES: &str = "/api/core/v1/common/locales/retrieve";
const TRANSFORM: &str = "/api/core/v1/common/transform";
const BIG: &str = "/api/core/v1/dam/assets/versions/bin?assetTid=HOSTILE-BIG";

/// The size of the large binary: 16 MiB.
const BIG_SIZE: usize = 16 << 20;

/// The load cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "4 writers of 1,000-keyword batches non-stop, 2 readers, 10 s",
            Which::Bounded,
            writers_and_readers,
        ),
        Case::new(
            "65 clients never reading a 6 MB answer, 64 in flight allowed",
            Which::Bounded,
            slow_readers,
        ),
        Case::new(
            "200 × Range: bytes=-1 of a 16 MiB binary",
            Which::Bounded,
            |server| ranges(server, "bytes=-1"),
        ),
        Case::new(
            "200 × Range: bytes=0-0 of a 16 MiB binary",
            Which::Bounded,
            |server| ranges(server, "bytes=0-0"),
        ),
    ]
}

/// Writes the bootstrap document every server loads besides the demo: one asset whose version
/// is [`BIG_SIZE`] bytes, as a file beside it.
pub fn big_asset_document(folder: &Path) -> PathBuf {
    let file = folder.join("big.bin");
    let mut writer = std::io::BufWriter::new(std::fs::File::create(&file).expect("a file"));
    let block: Vec<u8> = (0..1 << 20).map(|at| (at % 251) as u8).collect();
    for _ in 0..BIG_SIZE / block.len() {
        writer.write_all(&block).expect("written");
    }
    writer.flush().expect("flushed");
    let document = serde_json::json!({
        "assets": [{"tid": "HOSTILE-BIG", "versions": [{"versionNumber": 1,
            "mediaType": "application/octet-stream", "fileName": "big.bin",
            "content": {"file": "big.bin"}}]}]
    });
    let path = folder.join("hostile.json");
    std::fs::write(&path, document.to_string()).expect("the document is written");
    path
}

fn headers(token: &str) -> [(&'static str, String); 3] {
    [
        ("Authorization", format!("Bearer {token}")),
        ("Content-Type", "application/json".into()),
        ("Accept", "application/json".into()),
    ]
}

fn borrowed<'a>(headers: &'a [(&'static str, String); 3]) -> Vec<(&'static str, &'a str)> {
    headers
        .iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}

/// Four clients send batches of 1,000 new keywords as fast as they are answered while two
/// clients read (keywords and locales retrieve); the readers' latencies and failures.
fn writers_and_readers(server: &Served) -> Outcome {
    let stop = Arc::new(AtomicBool::new(false));
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_millis())
        .unwrap_or_default();
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let (address, token, stop) = (server.address.clone(), server.token.clone(), Arc::clone(&stop));
            std::thread::spawn(move || -> (usize, usize) {
                let headers = headers(&token);
                let headers = borrowed(&headers);
                let (mut batches, mut failed) = (0, 0);
                let Ok(mut connection) = client::Connection::open(&address, Duration::from_secs(120)) else {
                    return (0, 1);
                };
                let root = format!("Hostile{run}w{writer}");
                let _ = connection.post(
                    PERSIST,
                    &headers,
                    format!(r#"{{"kwds":{{"kwd":[{{"name":{{"itm":[{{"value":"{root}"}}]}}}}]}}}}"#).as_bytes(),
                );
                while !stop.load(Ordering::Relaxed) {
                    let items: Vec<String> = (0..1000)
                        .map(|index| {
                            format!(r#"{{"parentPath":"/{root}","name":{{"itm":[{{"value":"b{batches}i{index}"}}]}}}}"#)
                        })
                        .collect();
                    let body = format!(r#"{{"kwds":{{"kwd":[{}]}}}}"#, items.join(","));
                    match connection.post(PERSIST, &headers, body.as_bytes()) {
                        Ok(reply) if reply.status == 200 => batches += 1,
                        Ok(_) => failed += 1,
                        Err(_) => {
                            failed += 1;
                            match client::Connection::open(&address, Duration::from_secs(120)) {
                                Ok(fresh) => connection = fresh,
                                Err(_) => break,
                            }
                        }
                    }
                }
                (batches, failed)
            })
        })
        .collect();
    let readers: Vec<_> = (0..2)
        .map(|reader| {
            let (address, token, stop) = (
                server.address.clone(),
                server.token.clone(),
                Arc::clone(&stop),
            );
            std::thread::spawn(move || -> (Vec<Duration>, usize) {
                let headers = headers(&token);
                let headers = borrowed(&headers);
                let (mut times, mut failed) = (Vec::new(), 0);
                let mut connection =
                    client::Connection::open(&address, Duration::from_secs(120)).ok();
                while !stop.load(Ordering::Relaxed) {
                    let Some(open) = connection.as_mut() else {
                        failed += 1;
                        connection =
                            client::Connection::open(&address, Duration::from_secs(120)).ok();
                        continue;
                    };
                    let started = Instant::now();
                    let reply = if reader == 0 {
                        open.post(RETRIEVE, &headers, br#"{"path":"/Season","level":1}"#)
                    } else {
                        open.post(LOCALES, &headers, br#"{"mode":"ALL"}"#)
                    };
                    times.push(started.elapsed());
                    match reply {
                        Ok(reply) if reply.status == 200 => {}
                        Ok(_) => failed += 1,
                        Err(_) => {
                            failed += 1;
                            connection = None;
                        }
                    }
                }
                (times, failed)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(10));
    stop.store(true, Ordering::Relaxed);
    let (mut batches, mut batch_failures) = (0, 0);
    for writer in writers {
        if let Ok((done, failed)) = writer.join() {
            batches += done;
            batch_failures += failed;
        }
    }
    let (mut times, mut failures) = (Vec::new(), 0);
    for reader in readers {
        if let Ok((took, failed)) = reader.join() {
            times.extend(took);
            failures += failed;
        }
    }
    times.sort();
    format!(
        "reads {} ({failures} failed): p50 {:.1} ms, p99 {:.1} ms, max {:.0} ms; batches {batches} ({batch_failures} failed)",
        times.len(),
        client::percentile(&times, 50),
        client::percentile(&times, 99),
        client::percentile(&times, 100),
    )
}

/// A transform body whose answer is about 6 MB: 1,000 keywords with a 6,000-character `meta`.
fn large_transform() -> Vec<u8> {
    let text = "x".repeat(6_000);
    let kwds: Vec<String> = (0..1000)
        .map(|id| format!(r#"{{"id":{id},"meta":{{"itm":[{{"key":"k","value":"{text}"}}]}}}}"#))
        .collect();
    format!(r#"{{"kwds":{{"kwd":[{}]}}}}"#, kwds.join(",")).into_bytes()
}

/// 65 clients send a transform whose answer is large and never read it; then a 66th asks for
/// the locales. With the in-flight bound covering whole answers the 65th and the 66th are
/// refused (503) and the server holds at most 64 answers.
fn slow_readers(server: &Served) -> Outcome {
    let body = large_transform();
    let head = format!(
        "POST {TRANSFORM} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\n\
         Accept: application/xml\r\nContent-Length: {}\r\n\r\n",
        server.token,
        body.len()
    );
    let holding: Vec<TcpStream> = (0..65)
        .filter_map(|_| {
            let mut stream = TcpStream::connect(&server.address).ok()?;
            stream.write_all(head.as_bytes()).ok()?;
            stream.write_all(&body).ok()?;
            Some(stream)
        })
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    let held = super::support::resident_kib(server.pid());
    let probe = transport::post(server, LOCALES, "application/json", br#"{"mode":"ALL"}"#);
    let outcome = format!(
        "{} held; a 66th request: {probe}; server RSS while held {:.0} MB",
        holding.len(),
        held as f64 / 1024.0
    );
    drop(holding);
    outcome
}

/// 200 requests for one byte range of the large binary, one after the other: the mean time and
/// the server's CPU time per request (`/proc/<pid>/stat`).
fn ranges(server: &Served, range: &str) -> Outcome {
    let headers = headers(&server.token);
    let mut headers = borrowed(&headers);
    headers.retain(|(name, _)| *name == "Authorization");
    headers.push(("Range", range));
    let Ok(mut connection) = client::Connection::open(&server.address, Duration::from_secs(60))
    else {
        return "not connected".into();
    };
    let cpu = || cpu_ms(server.pid());
    let (cpu_before, started) = (cpu(), Instant::now());
    let mut statuses = std::collections::BTreeMap::new();
    let mut bytes = 0;
    for _ in 0..200 {
        match connection.post(BIG, &headers, b"") {
            Ok(reply) => {
                bytes += reply.body.len();
                *statuses.entry(reply.status).or_insert(0) += 1;
            }
            Err(_) => *statuses.entry(0).or_insert(0) += 1,
        }
    }
    let mean = started.elapsed().as_secs_f64() * 1000.0 / 200.0;
    let cpu_per = (cpu() - cpu_before) / 200.0;
    format!(
        "{statuses:?}, {bytes} bytes in all; mean {mean:.2} ms, server CPU {cpu_per:.2} ms a request"
    )
}

/// The CPU time a process has used, in milliseconds (user and system).
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|at| fields.get(*at)?.parse::<f64>().ok())
        .sum();
    ticks * 10.0
}
