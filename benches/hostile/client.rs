//! A minimal HTTP/1.1 client over a plain socket, for the hostile cases: it sends exactly the
//! bytes a case asks for and reads answers on a kept-alive connection.

use std::{
    io::{self, Read, Write},
    net::TcpStream,
    time::Duration,
};

/// An answer: its status, head and body.
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The head, lower-cased.
    pub head: String,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

impl Reply {
    /// The value of a header of the answer, when present.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = format!("\r\n{}:", name.to_ascii_lowercase());
        let start = self.head.find(&name)? + name.len();
        let rest = &self.head[start..];
        Some(rest[..rest.find("\r\n").unwrap_or(rest.len())].trim())
    }
}

/// A kept-alive connection.
pub struct Connection {
    stream: TcpStream,
    /// Bytes read past the last answer.
    buffer: Vec<u8>,
}

impl Connection {
    /// Connects, with a read timeout of `timeout`.
    pub fn open(address: &str, timeout: Duration) -> io::Result<Connection> {
        let stream = TcpStream::connect(address)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            buffer: Vec::new(),
        })
    }

    /// Sends a POST with a body and reads its answer.
    pub fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> io::Result<Reply> {
        self.send("POST", path, headers, body)?;
        self.reply()
    }

    /// Sends a GET and reads its answer.
    pub fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> io::Result<Reply> {
        self.send("GET", path, headers, b"")?;
        self.reply()
    }

    /// Writes a request.
    pub fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> io::Result<()> {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: bench\r\n");
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if method == "POST" {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        self.stream.write_all(head.as_bytes())?;
        self.stream.write_all(body)
    }

    /// Reads one answer.
    pub fn reply(&mut self) -> io::Result<Reply> {
        let end = loop {
            if let Some(end) = find(&self.buffer, b"\r\n\r\n") {
                break end + 4;
            }
            self.fill()?;
        };
        let head = String::from_utf8_lossy(&self.buffer[..end]).to_ascii_lowercase();
        self.buffer.drain(..end);
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|status| status.parse().ok())
            .unwrap_or(0);
        let mut reply = Reply {
            status,
            head,
            body: Vec::new(),
        };
        if reply.header("transfer-encoding") == Some("chunked") {
            reply.body = self.chunked()?;
        } else {
            let length: usize = reply
                .header("content-length")
                .and_then(|length| length.parse().ok())
                .unwrap_or(0);
            while self.buffer.len() < length {
                self.fill()?;
            }
            reply.body = self.buffer.drain(..length).collect();
        }
        Ok(reply)
    }

    fn chunked(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(end) = find(&self.buffer, b"\r\n") {
                    break end;
                }
                self.fill()?;
            };
            let size = std::str::from_utf8(&self.buffer[..line_end])
                .ok()
                .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok())
                .ok_or_else(|| io::Error::other("a malformed chunk size"))?;
            while self.buffer.len() < line_end + 2 + size + 2 {
                self.fill()?;
            }
            body.extend_from_slice(&self.buffer[line_end + 2..line_end + 2 + size]);
            self.buffer.drain(..line_end + 2 + size + 2);
            if size == 0 {
                return Ok(body);
            }
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        let mut chunk = [0; 64 * 1024];
        let read = self.stream.read(&mut chunk)?;
        if read == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.buffer.extend_from_slice(&chunk[..read]);
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Whether the server closed a connection that sent `sent` and then nothing, waiting at most
/// `patience`: the time it took, or `None` when it was still open.
pub fn closed_within(stream: &mut TcpStream, patience: Duration) -> Option<Duration> {
    let started = std::time::Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let mut byte = [0; 1024];
    while started.elapsed() < patience {
        match stream.read(&mut byte) {
            Ok(0) => return Some(started.elapsed()),
            // An answer (for example a 408): the server is done with it once it closes.
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Some(started.elapsed()),
        }
    }
    None
}

/// The value of a percentile (0–100) of sorted times, in milliseconds.
pub fn percentile(sorted: &[Duration], percent: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = (sorted.len() * percent / 100).min(sorted.len() - 1);
    sorted[at].as_secs_f64() * 1000.0
}
