//! The service: the state every operation works with. The operations themselves live in
//! `modules/`, one file per specification module, each implementing its generated trait.

use crate::{auth::Callers, metrics::Metrics, repr::Codec, settings::Settings, storage::Database};

/// The state shared by all requests.
#[derive(Debug)]
pub struct Service {
    /// The server's settings.
    pub settings: Settings,
    /// The representation engine, configured with the XML namespace and limits.
    pub codec: Codec,
    /// The database.
    pub database: Database,
    /// The callers this server verified (D-02).
    pub callers: Callers,
    /// The requests this server takes at once (`max_in_flight`, D-37): beyond them, 503.
    pub in_flight: std::sync::Arc<tokio::sync::Semaphore>,
    /// The counters `GET /metrics` serves.
    pub metrics: Metrics,
}

impl Service {
    /// A service over an open database.
    pub fn new(settings: Settings, database: Database) -> Service {
        let codec = Codec::new(settings.xml_namespace.clone(), settings.limits.clone());
        let in_flight = std::sync::Arc::new(tokio::sync::Semaphore::new(settings.max_in_flight));
        Service {
            settings,
            codec,
            database,
            callers: Callers::default(),
            in_flight,
            metrics: Metrics::default(),
        }
    }
}
