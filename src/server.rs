//! Starting and stopping the HTTP server, for the binary and for tests.

use std::{net::SocketAddr, sync::Arc};

use poem::EndpointExt;
use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};

use crate::{
    http::{
        app::app,
        listen::{self, Transport},
    },
    service::Service,
    settings::Settings,
    storage::{Database, StorageError},
};

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The database could not be opened.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The bootstrap document could not be loaded (nothing of it was).
    #[error(transparent)]
    Bootstrap(#[from] crate::bootstrap::BootstrapError),
    /// `--demo` was given a database another command made.
    #[error(transparent)]
    Origin(#[from] crate::auth::origin::OriginError),
    /// The address could not be bound, or serving failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// A server running in the background.
pub struct RunningServer {
    /// The address it listens on (the real port when 0 was asked for).
    pub address: SocketAddr,
    /// Its database, for tests and tools that set up users and data beside it.
    pub database: Database,
    /// The token of the demo catalogue, when it was loaded (`--demo`).
    pub demo_token: Option<String>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
    service: Arc<Service>,
    recorder: JoinHandle<()>,
}

impl RunningServer {
    /// Stops accepting requests, lets running ones finish (within the settings' grace period),
    /// then closes the database: on SQLite the write-ahead log is folded into the file and
    /// removed, so a stopped server leaves only its database file.
    pub async fn stop(self) -> Result<(), ServeError> {
        let _ = self.stop.send(());
        self.recorder.abort();
        let served = match self.task.await {
            Ok(result) => result.map_err(|source| ServeError::Io {
                context: "serving".into(),
                source,
            }),
            Err(error) => Err(ServeError::Io {
                context: "the server task".into(),
                source: std::io::Error::other(error),
            }),
        };
        if let Err(error) = self.service.callers.flush_uses(&self.database).await {
            tracing::warn!(%error, "the last uses of tokens could not be written");
        }
        self.database.close().await;
        served
    }
}

/// How many HTTP/2 streams one connection carries at once (D-37): the bound of requests in
/// flight is the server's, this one keeps a single connection from taking all of it.
pub const MAX_STREAMS: u32 = 32;

/// Opens the database, binds the address and serves in the background.
pub async fn start(settings: Settings) -> Result<RunningServer, ServeError> {
    let options = crate::storage::Options {
        timeout: settings.database_timeout,
        postgres_connections: settings.database_connections,
        sqlite_max_pages: settings.sqlite_max_pages,
        stream_timeout: settings.stream_timeout,
    };
    let database = Database::connect_with(&settings.database_url, options).await?;
    let mut demo_token = None;
    if settings.demo {
        if crate::auth::origin::claim_for_demo(&database).await? {
            let (loaded, _) = crate::bootstrap::load_demo(&database).await?;
            tracing::info!(records = loaded.records, "demo catalogue loaded");
        }
        demo_token = crate::bootstrap::demo_token();
    } else {
        crate::auth::origin::claim(&database, "serve").await?;
    }
    if let Some(file) = &settings.bootstrap {
        let loaded = crate::bootstrap::load_file(&database, file).await?;
        tracing::info!(file = %file.display(), records = loaded.records, "bootstrap loaded");
    }
    let bind = settings.bind;
    let transport = Transport {
        header_timeout: settings.header_timeout,
        send_timeout: settings.send_timeout,
        shutdown_grace: settings.shutdown_grace,
        max_connections: descriptors::connections(settings.max_connections),
        max_streams: MAX_STREAMS,
    };
    let service = Arc::new(Service::new(settings, database.clone()));
    let recorder = tokio::spawn(housekeeping(Arc::clone(&service)));
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|source| ServeError::Io {
            context: format!("binding {bind}"),
            source,
        })?;
    let address = listener.local_addr().unwrap_or(bind);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(listen::serve(
        listener,
        app(Arc::clone(&service)).boxed(),
        transport,
        async {
            let _ = stopped.await;
        },
    ));
    Ok(RunningServer {
        address,
        database,
        demo_token,
        stop,
        task,
        service,
        recorder,
    })
}

/// The server's housekeeping every [`LAST_USE_FLUSH`](crate::auth::LAST_USE_FLUSH): writes the
/// uses of tokens, so that no request writes one (the last ones are written when the server
/// stops), and deletes `Idempotency-Key` answers past their retention.
async fn housekeeping(service: Arc<Service>) {
    let mut every = tokio::time::interval(crate::auth::LAST_USE_FLUSH);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(error) = service.callers.flush_uses(&service.database).await {
            tracing::warn!(%error, "the uses of tokens could not be written; tried again later");
        }
        if let Err(error) = crate::modules::idempotency::purge(&service.database).await {
            tracing::warn!(%error, "expired idempotency keys could not be deleted; tried again later");
        }
    }
}

/// The file descriptors a server needs: one per connection besides those of the database, the
/// log and the listener.
mod descriptors {
    /// The descriptors kept for everything but connections.
    const RESERVED: u64 = 256;

    /// How many connections the server can keep open: `wanted`, once the process's limit on
    /// open files is raised as far as it may go, or what that limit leaves room for (with a
    /// warning), so that the cap refuses connections before `accept` starts to fail.
    pub(super) fn connections(wanted: usize) -> usize {
        let Some(limit) = raise(wanted as u64 + RESERVED) else {
            return wanted;
        };
        let room = usize::try_from(limit.saturating_sub(RESERVED)).unwrap_or(usize::MAX);
        if room < wanted {
            tracing::warn!(
                wanted,
                open_files = limit,
                max_connections = room.max(1),
                "the limit on open files leaves room for fewer connections than --max-connections"
            );
            return room.max(1);
        }
        wanted
    }

    /// Raises the soft limit on open files towards `wanted` (within the hard limit); the soft
    /// limit in force afterwards, or `None` where it cannot be read.
    #[cfg(unix)]
    fn raise(wanted: u64) -> Option<u64> {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `limit` is a valid, writable `rlimit` for the duration of the call.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        if limit.rlim_cur < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted.min(limit.rlim_max),
                rlim_max: limit.rlim_max,
            };
            // SAFETY: `raised` is a valid `rlimit`; the call only reads it.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                limit = raised;
            }
        }
        Some(limit.rlim_cur)
    }

    #[cfg(not(unix))]
    fn raise(_wanted: u64) -> Option<u64> {
        None
    }
}
