//! The connection loop: accepts TCP connections and serves each with hyper under the transport
//! limits of D-37, which poem's own `Server` does not offer.
//!
//! - A request's head must arrive within the header timeout, counted from when the connection
//!   starts waiting for it: a client trickling its headers is cut off, and so is a keep-alive
//!   connection left idle that long (hyper's `header_read_timeout`).
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
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use hyper::service::service_fn;
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
    sync::watch,
    task::JoinSet,
};

/// How long a closed connection is drained, at most, before its socket is released.
const LINGER: Duration = Duration::from_secs(2);
/// How many bytes a closed connection is drained of, at most.
const LINGER_BYTES: usize = 64 * 1024 * 1024;

/// The transport settings of the loop.
#[derive(Debug, Clone, Copy)]
pub struct Transport {
    /// How long the head of a request may take to arrive (and a keep-alive connection may idle).
    pub header_timeout: Duration,
    /// How long running requests get to finish once shutdown begins.
    pub shutdown_grace: Duration,
}

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
            Ok((stream, remote)) => {
                connections.spawn(connection(
                    stream,
                    local,
                    remote,
                    Arc::clone(&endpoint),
                    transport,
                    stop.clone(),
                ));
            }
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

/// Serves one connection: HTTP/1.1 (or HTTP/2 when the client starts with its preface).
async fn connection(
    stream: TcpStream,
    local: SocketAddr,
    remote: SocketAddr,
    endpoint: Arc<BoxEndpoint<'static, Response>>,
    transport: Transport,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let local = LocalAddr(local.into());
    let remote = RemoteAddr(remote.into());
    let service = service_fn(move |request| {
        let endpoint = Arc::clone(&endpoint);
        let request = Request::from((
            request,
            local.clone(),
            remote.clone(),
            poem::http::uri::Scheme::HTTP,
        ));
        async move {
            let response = endpoint.get_response(request).await;
            Ok::<_, Infallible>(poem::http::Response::from(response))
        }
    });
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(transport.header_timeout);
    let io = TokioIo::new(Lingering(Some(stream)));
    let serving = builder.serve_connection_with_upgrades(io, service);
    tokio::pin!(serving);
    tokio::select! {
        _ = &mut serving => {}
        () = async {
            let _ = stop.wait_for(|stopping| *stopping).await;
        } => {
            serving.as_mut().graceful_shutdown();
            let _ = serving.await;
        }
    }
}

/// A connection's socket that, when dropped, is drained for a while before it is closed: closing
/// a socket with unread data makes the kernel reset the connection, and the client then loses
/// the answer it has not read yet (a 413 to a body still being sent).
struct Lingering(Option<TcpStream>);

impl Lingering {
    fn stream(&mut self) -> io::Result<Pin<&mut TcpStream>> {
        match &mut self.0 {
            Some(stream) => Ok(Pin::new(stream)),
            None => Err(io::Error::from(io::ErrorKind::NotConnected)),
        }
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
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_write(cx, buf),
            Err(error) => Poll::Ready(Err(error)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().stream() {
            Ok(stream) => stream.poll_write_vectored(cx, bufs),
            Err(error) => Poll::Ready(Err(error)),
        }
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
        let Some(mut stream) = self.0.take() else {
            return;
        };
        // Outside a runtime (never, in the server) the socket is simply closed.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            use tokio::io::AsyncWriteExt;
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
