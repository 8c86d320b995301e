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
}

impl RunningServer {
    /// Stops accepting requests, lets running ones finish (within the settings' grace period),
    /// then closes the database: on SQLite the write-ahead log is folded into the file and
    /// removed, so a stopped server leaves only its database file.
    pub async fn stop(self) -> Result<(), ServeError> {
        let _ = self.stop.send(());
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
        self.database.close().await;
        served
    }
}

/// Opens the database, binds the address and serves in the background.
pub async fn start(settings: Settings) -> Result<RunningServer, ServeError> {
    let database = Database::connect(&settings.database_url).await?;
    let mut demo_token = None;
    if settings.demo {
        let (loaded, token) = crate::bootstrap::load_demo(&database).await?;
        tracing::info!(records = loaded.records, "demo catalogue loaded");
        demo_token = token;
    }
    if let Some(file) = &settings.bootstrap {
        let loaded = crate::bootstrap::load_file(&database, file).await?;
        tracing::info!(file = %file.display(), records = loaded.records, "bootstrap loaded");
    }
    let bind = settings.bind;
    let transport = Transport {
        header_timeout: settings.header_timeout,
        shutdown_grace: settings.shutdown_grace,
    };
    let service = Arc::new(Service::new(settings, database.clone()));
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
        app(service).boxed(),
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
    })
}
