//! Hostile clients against the release server on the demo catalogue, each case tried as a
//! hostile or careless client would, over a plain socket: what the server answered, how long it
//! took, and the server's resident memory before and after (D-37).
//!
//! Three servers take part:
//! - `bounded`: `--header-timeout 2 --body-timeout 3 --max-in-flight 64 --max-connections 256
//!   --rate-limit 0`, so that the timeout cases finish in seconds (the defaults are 10 s, 30 s,
//!   512 and 4,096) and the load cases are not rate-limited;
//! - `defaults`: every limit at its default, for the floods (the rate limit among them);
//! - `postgres`: the bounded server on PostgreSQL, for the case of the database stopped under
//!   it; only when `CORE_TEST_POSTGRES_URL` is set and `pg_ctlcluster` can stop and start the
//!   server (it is restarted whatever happens).
//!
//! `cargo bench --bench hostile` prints a table: case, answer, time, RSS before → after.
//! `CORE_BENCH_BINARY=<path>` runs the cases against another build (flags it does not know are
//! left out, so an older build can be measured the same way); `CORE_BENCH_ONLY=<text>` runs the
//! cases whose name contains the text.

mod support;

#[path = "hostile/client.rs"]
mod client;
#[path = "hostile/database.rs"]
mod database;
#[path = "hostile/floods.rs"]
mod floods;
#[path = "hostile/lists.rs"]
mod lists;
#[path = "hostile/load.rs"]
mod load;
#[path = "hostile/transport.rs"]
mod transport;

use std::{
    io::{BufRead, BufReader},
    net::TcpStream,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// What a case saw: the answer, or how the connection ended.
pub type Outcome = String;

/// A server taking part.
pub struct Served {
    child: Child,
    /// Its address.
    pub address: String,
    /// The demo's token.
    pub token: String,
    /// The database URL it serves.
    pub database: String,
}

impl Served {
    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which server a case runs against.
#[derive(Clone, Copy)]
pub enum Which {
    /// The bounded server (short timeouts, no rate limit).
    Bounded,
    /// The server with every default.
    Defaults,
    /// The bounded server on PostgreSQL.
    Postgres,
}

/// One case.
pub struct Case {
    /// What the client does.
    pub name: String,
    /// The server it does it to.
    pub which: Which,
    /// The case itself.
    pub run: Box<dyn Fn(&Served) -> Outcome>,
}

impl Case {
    /// A case against `which`.
    pub fn new(
        name: impl Into<String>,
        which: Which,
        run: impl Fn(&Served) -> Outcome + 'static,
    ) -> Case {
        Case {
            name: name.into(),
            which,
            run: Box::new(run),
        }
    }
}

/// The bounded server's settings.
pub const BOUNDED: &[&str] = &[
    "--header-timeout",
    "2",
    "--body-timeout",
    "3",
    "--max-in-flight",
    "64",
    "--max-connections",
    "256",
    "--rate-limit",
    "0",
];

fn main() {
    let folder = support::scratch("hostile");
    let bootstrap = load::big_asset_document(&folder);
    let binary = std::env::var("CORE_BENCH_BINARY").unwrap_or_else(|_| support::binary().into());
    let known = known_flags(&binary);
    let only = std::env::var("CORE_BENCH_ONLY").ok();
    let cases: Vec<Case> = [
        transport::cases(),
        lists::cases(),
        floods::cases(),
        load::cases(),
        database::cases(),
    ]
    .into_iter()
    .flatten()
    .filter(|case| only.as_deref().is_none_or(|only| case.name.contains(only)))
    .collect();
    let sqlite = |name: &str| format!("sqlite://{}/{name}.db", folder.display());
    let bounded = serve(&binary, &known, &sqlite("bounded"), BOUNDED, &bootstrap);
    let defaults = serve(&binary, &known, &sqlite("defaults"), &[], &bootstrap);
    let postgres =
        database::postgres_url().map(|url| serve(&binary, &known, &url, BOUNDED, &bootstrap));
    println!("hostile clients against core-server (release, demo catalogue; {binary}):");
    println!("| case | answer | time | server RSS before → after |\n|---|---|---|---|");
    for case in cases {
        let server = match case.which {
            Which::Bounded => &bounded,
            Which::Defaults => &defaults,
            Which::Postgres => match &postgres {
                Some(server) => server,
                None => {
                    println!("| {} | skipped: {} | | |", case.name, database::SKIPPED);
                    continue;
                }
            },
        };
        let before = support::resident_kib(server.pid());
        let started = Instant::now();
        let outcome = (case.run)(server);
        let time = started.elapsed();
        // Let what the case left behind (lingering sockets, timers) settle.
        std::thread::sleep(Duration::from_millis(500));
        let after = support::resident_kib(server.pid());
        println!(
            "| {} | {outcome} | {:.2} s | {:.1} → {:.1} MB |",
            case.name,
            time.as_secs_f64(),
            before as f64 / 1024.0,
            after as f64 / 1024.0
        );
    }
    drop((bounded, defaults, postgres));
    let _ = std::fs::remove_dir_all(&folder);
}

/// The `serve` flags a build knows, from its help text.
fn known_flags(binary: &str) -> String {
    Command::new(binary)
        .args(["serve", "--help"])
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default()
}

/// Starts a server on the demo catalogue and `bootstrap`, with the `settings` the build knows.
fn serve(binary: &str, known: &str, url: &str, settings: &[&str], bootstrap: &Path) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port");
    let address = format!("127.0.0.1:{port}");
    let mut arguments: Vec<&str> = Vec::new();
    for pair in settings.chunks(2) {
        if known.contains(pair[0]) {
            arguments.extend(pair);
        }
    }
    let mut child = Command::new(binary)
        .args(["serve", "--demo", "--database-url", url, "--bind", &address])
        .arg("--bootstrap")
        .arg(bootstrap)
        .args(&arguments)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("core-server serve starts");
    let mut token = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut token)
        .expect("the demo token");
    for _ in 0..600 {
        if TcpStream::connect(&address).is_ok() {
            return Served {
                child,
                address,
                token: token.trim().to_string(),
                database: url.to_string(),
            };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("core-server did not listen on {address}");
}
