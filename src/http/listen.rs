//! The connection loop: accepts TCP connections and serves each with hyper under the transport
//! limits of D-37, which poem's own `Server` does not offer.
//!
//! - At most [`Transport::max_connections`] connections are open at once; one more is closed as
//!   soon as it is accepted, before anything is read from it.
//! - A connection with no request running is closed once it has been idle for the header timeout:
//!   counted from the accept, this bounds the wait for the first request head (protocol detection
//!   and the HTTP/2 preface included); afterwards it bounds a kept-alive HTTP/1.1 or HTTP/2
//!   connection between requests ([`Activity`]). hyper's own `header_read_timeout` bounds each
//!   later HTTP/1.1 head as well.
//! - An answer the client stops taking is cut off: a connection whose answers have made no
//!   progress (no frame produced, no byte written) for the send timeout is closed.
//! - HTTP/2: at most [`Transport::max_streams`] streams at once per connection, and keep-alive
//!   pings that close a connection whose peer has gone away while a request runs.
//! - The in-flight permit of a request ([`Held`], taken in `app.rs`) lives until its answer has
//!   been handed to hyper but for its last [`PIECE`] (and what the buffers hold then), or the
//!   answer is dropped.
//! - A connection the server closes is drained before its socket is released (`Lingering`): a
//!   client still sending a body the server refused (413) reads the answer instead of a reset.
//! - At shutdown no connection is accepted any more; running requests get the grace period, idle
//!   connections are closed at once.

use std::{
    convert::Infallible,
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::{
    body::{Body as HttpBody, Frame, SizeHint},
    service::service_fn,
};
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::conn::auto,
};
use poem::{
    Endpoint, Request, Response,
    endpoint::BoxEndpoint,
    web::{LocalAddr, RemoteAddr},
};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{OwnedSemaphorePermit, Semaphore, watch},
    task::JoinSet,
};

/// How long a closed connection is drained, at most, before its socket is released.
const LINGER: Duration = Duration::from_secs(2);
/// How many bytes a closed connection is drained of, at most.
const LINGER_BYTES: usize = 64 * 1024 * 1024;
/// How long an idle connection closed by the server gets to end gracefully (an HTTP/2 GOAWAY).
const CLOSING: Duration = Duration::from_secs(1);
/// How often an HTTP/2 connection is pinged while it is in use, and how long the answer may take.
const PING_INTERVAL: Duration = Duration::from_secs(30);
const PING_TIMEOUT: Duration = Duration::from_secs(20);

/// The transport settings of the loop.
#[derive(Debug, Clone, Copy)]
pub struct Transport {
    /// How long a connection may wait for a request head with no request running: from the
    /// accept to the first head, and between requests of a kept-alive connection.
    pub header_timeout: Duration,
    /// How long an answer may make no progress because the client does not take it.
    pub send_timeout: Duration,
    /// How long running requests get to finish once shutdown begins.
    pub shutdown_grace: Duration,
    /// How many connections are open at once, at most.
    pub max_connections: usize,
    /// How many HTTP/2 streams one connection carries at once, at most.
    pub max_streams: u32,
}

/// What keeps a request's place among the requests in flight: put into the response's
/// extensions by the application, and held by the answer's body ([`Answer`]) until hyper has
/// taken its last piece.
#[derive(Clone)]
pub struct Held(pub Arc<OwnedSemaphorePermit>);

/// Serves `endpoint` on `listener` until `shutdown` resolves, then stops as D-37 says.
pub async fn serve(
    listener: TcpListener,
    endpoint: BoxEndpoint<'static, Response>,
    transport: Transport,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let endpoint = Arc::new(endpoint);
    let local = listener.local_addr()?;
    let (stopping, stop) = watch::channel(false);
    let slots = Arc::new(Semaphore::new(transport.max_connections));
    let mut refusals = Refusals::default();
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
            // Finished connections are reaped as the loop goes, so the set stays small.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        match accepted {
            Ok((stream, remote)) => match Arc::clone(&slots).try_acquire_owned() {
                Ok(slot) => {
                    connections.spawn(connection(
                        Lingering::new(stream, slot),
                        local,
                        remote,
                        Arc::clone(&endpoint),
                        transport,
                        stop.clone(),
                    ));
                }
                // Beyond the cap: closed at once, nothing read.
                Err(_) => {
                    drop(stream);
                    refusals.count(transport.max_connections);
                }
            },
            // Out of file descriptors, or a connection reset before it was accepted: the
            // listener itself is fine, so wait a little rather than spin or stop.
            Err(error) => {
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    drop(listener);
    let _ = stopping.send(true);
    let finished = tokio::time::timeout(transport.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        tracing::warn!(
            remaining = connections.len(),
            "requests still running after the grace period are cut off"
        );
        connections.shutdown().await;
    }
    Ok(())
}

/// Connections refused beyond the cap, logged at most once a second.
#[derive(Default)]
struct Refusals {
    since: Option<Instant>,
    refused: u64,
}

impl Refusals {
    fn count(&mut self, cap: usize) {
        self.refused += 1;
        if self
            .since
            .is_none_or(|since| since.elapsed() >= Duration::from_secs(1))
        {
            tracing::warn!(
                cap,
                refused = self.refused,
                "connections refused: as many as the server keeps are open"
            );
            self.since = Some(Instant::now());
            self.refused = 0;
        }
    }
}

/// Serves one connection: HTTP/1.1 (or HTTP/2 when the client starts with its preface).
async fn connection(
    stream: Lingering,
    local: SocketAddr,
    remote: SocketAddr,
    endpoint: Arc<BoxEndpoint<'static, Response>>,
    transport: Transport,
    mut stop: watch::Receiver<bool>,
) {
    let activity = Arc::clone(&stream.activity);
    let local = LocalAddr(local.into());
    let remote = RemoteAddr(remote.into());
    let requests = Arc::clone(&activity);
    let service = service_fn(move |request| {
        let endpoint = Arc::clone(&endpoint);
        let running = Running::begin(&requests);
        let request = Request::from((
            request,
            local.clone(),
            remote.clone(),
            poem::http::uri::Scheme::HTTP,
        ));
        async move {
            let response = endpoint.get_response(request).await;
            let mut response = poem::http::Response::from(response);
            let held = response.extensions_mut().remove::<Held>();
            Ok::<_, Infallible>(response.map(|body| Answer::new(body, running, held)))
        }
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(transport.header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(transport.max_streams)
        .keep_alive_interval(PING_INTERVAL)
        .keep_alive_timeout(PING_TIMEOUT);
    let serving = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    tokio::pin!(serving);
    tokio::select! {
        _ = &mut serving => {}
        end = activity.expired(transport) => match end {
            // Nothing is running: the client may end it (HTTP/2 hears a GOAWAY).
            Expiry::Idle => {
                serving.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(CLOSING, serving).await;
            }
            // The client does not take its answer: it is cut off.
            Expiry::Stalled => tracing::info!(
                timeout_s = transport.send_timeout.as_secs(),
                "an answer the client did not take is cut off"
            ),
        },
        () = async {
            let _ = stop.wait_for(|stopping| *stopping).await;
        } => {
            serving.as_mut().graceful_shutdown();
            let _ = serving.await;
        }
    }
}

/// What a connection is doing, for its timeouts: how many requests are running (from their
/// head to the last byte of their answer), how many answers are being sent, and when anything
/// last happened (a request began or ended, an answer produced a frame or a byte was written).
struct Activity {
    born: Instant,
    requests: AtomicUsize,
    answers: AtomicUsize,
    /// Nanoseconds from `born` to the last event.
    last: AtomicU64,
}

/// Why a connection's time is up.
enum Expiry {
    /// No request ran for the header timeout.
    Idle,
    /// Answers made no progress for the send timeout.
    Stalled,
}

impl Activity {
    fn new() -> Arc<Activity> {
        Arc::new(Activity {
            born: Instant::now(),
            requests: AtomicUsize::new(0),
            answers: AtomicUsize::new(0),
            last: AtomicU64::new(0),
        })
    }

    /// Something happened now.
    fn touch(&self) {
        let now = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last.fetch_max(now, Ordering::Relaxed);
    }

    /// Resolves when the connection has been idle for the header timeout, or its answers have
    /// stalled for the send timeout; while a handler runs (a request without an answer yet) the
    /// connection has no deadline: the body timeout and the database's bound the handler.
    async fn expired(&self, transport: Transport) -> Expiry {
        loop {
            let last = self.born + Duration::from_nanos(self.last.load(Ordering::Relaxed));
            let (requests, answers) = (
                self.requests.load(Ordering::Relaxed),
                self.answers.load(Ordering::Relaxed),
            );
            let (deadline, expiry) = if requests == 0 {
                (last + transport.header_timeout, Some(Expiry::Idle))
            } else if answers > 0 {
                (last + transport.send_timeout, Some(Expiry::Stalled))
            } else {
                (Instant::now() + transport.header_timeout, None)
            };
            if let Some(expiry) = expiry
                && Instant::now() >= deadline
            {
                return expiry;
            }
            tokio::time::sleep_until(deadline.into()).await;
        }
    }
}

/// A request running on a connection, from its head until its answer ends (or is dropped).
struct Running(Arc<Activity>);

impl Running {
    fn begin(activity: &Arc<Activity>) -> Running {
        activity.requests.fetch_add(1, Ordering::Relaxed);
        activity.touch();
        Running(Arc::clone(activity))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// The most an answer hands hyper at once. hyper takes a frame when its write buffer has room
/// and drops the body once it has taken the last one, so a body that gives its bytes in pieces
/// lives, with its place in flight, until all but the last piece and what the buffers hold have
/// been written.
const PIECE: usize = 64 * 1024;

/// An answer's body, holding its request's place among the requests running on the connection
/// and in flight on the server until it ends, and giving its data in pieces of at most
/// [`PIECE`] bytes.
struct Answer {
    body: BoxBody<Bytes, io::Error>,
    /// What is left of the data frame being handed out.
    rest: Bytes,
    running: Running,
    _held: Option<Held>,
}

impl Answer {
    fn new(body: BoxBody<Bytes, io::Error>, running: Running, held: Option<Held>) -> Answer {
        running.0.answers.fetch_add(1, Ordering::Relaxed);
        running.0.touch();
        Answer {
            body,
            rest: Bytes::new(),
            running,
            _held: held,
        }
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        self.running.0.answers.fetch_sub(1, Ordering::Relaxed);
    }
}

impl HttpBody for Answer {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = &mut *self;
        if this.rest.is_empty() {
            match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.rest = data,
                    Err(frame) => {
                        this.running.0.touch();
                        return Poll::Ready(Some(Ok(frame)));
                    }
                },
                other => {
                    if other.is_ready() {
                        this.running.0.touch();
                    }
                    return other;
                }
            }
        }
        this.running.0.touch();
        let piece = this.rest.split_to(this.rest.len().min(PIECE));
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.body.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower() + rest);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

/// A connection's socket that, when dropped, is drained for a while before it is closed: closing
/// a socket with unread data makes the kernel reset the connection, and the client then loses
/// the answer it has not read yet (a 413 to a body still being sent). It holds the connection's
/// place under the cap until then, and counts every byte written as progress.
struct Lingering {
    stream: Option<TcpStream>,
    slot: Option<OwnedSemaphorePermit>,
    activity: Arc<Activity>,
}

impl Lingering {
    fn new(stream: TcpStream, slot: OwnedSemaphorePermit) -> Lingering {
        let _ = stream.set_nodelay(true);
        Lingering {
            stream: Some(stream),
            slot: Some(slot),
            activity: Activity::new(),
        }
    }

    fn stream(&mut self) -> io::Result<Pin<&mut TcpStream>> {
        match &mut self.stream {
            Some(stream) => Ok(Pin::new(stream)),
            None => Err(io::Error::from(io::ErrorKind::NotConnected)),
        }
    }

    /// Counts a write that took bytes as progress.
    fn wrote(&self, polled: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        if let Poll::Ready(Ok(written)) = &polled
            && *written > 0
        {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncRead for Lingering {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_read(cx, buf),
            Err(error) => Poll::Ready(Err(error)),
        }
    }
}

impl AsyncWrite for Lingering {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match this.stream() {
            Ok(stream) => stream.poll_write(cx, buf),
            Err(error) => Poll::Ready(Err(error)),
        };
        this.wrote(polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match this.stream() {
            Ok(stream) => stream.poll_write_vectored(cx, bufs),
            Err(error) => Poll::Ready(Err(error)),
        };
        this.wrote(polled)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_flush(cx),
            Err(error) => Poll::Ready(Err(error)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_shutdown(cx),
            Err(error) => Poll::Ready(Err(error)),
        }
    }
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let (Some(mut stream), slot) = (self.stream.take(), self.slot.take()) else {
            return;
        };
        // Outside a runtime (never, in the server) the socket is simply closed.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            use tokio::io::AsyncWriteExt;
            // The connection's place under the cap is given back once its socket is closed.
            let _slot = slot;
            // Our side is finished: the client sees the end of the answer, then stops sending.
            let _ = stream.shutdown().await;
            let mut buffer = vec![0; 16 * 1024];
            let mut drained = 0;
            let _ = tokio::time::timeout(LINGER, async {
                while drained < LINGER_BYTES {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(read) => drained += read,
                    }
                }
            })
            .await;
        });
    }
}
