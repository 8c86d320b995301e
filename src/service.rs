//! The service: the state every operation works with. The operations themselves live in
//! `modules/`, one file per specification module, each implementing its generated trait.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use crate::{
    auth::Callers,
    http::{frames::Frames, limit::Limiter},
    metrics::Metrics,
    repr::Codec,
    settings::Settings,
    storage::Database,
};

/// What `begin` learned about a request.
#[derive(Debug)]
pub struct Context {
    /// The operation called.
    pub operation: &'static core_api_support::Operation,
    /// The media type of the request body, when known.
    pub request: Option<&'static core_api_support::MediaType>,
    /// The media type of the answer.
    pub response: &'static core_api_support::MediaType,
    /// Who is calling: for per-item access rights.
    pub caller: Arc<crate::auth::Caller>,
    /// The headers a binary answer is conditional on (`Range`, `If-Range`, `If-None-Match`).
    pub conditions: crate::http::binary::Conditions,
    /// The `Idempotency-Key` of a batch request, when it sent one (D-14).
    pub idempotency_key: Option<String>,
    /// Set when the answer is the stored one of an earlier request with the same key: the
    /// answer then says `Idempotent-Replayed: true`.
    pub replayed: std::sync::atomic::AtomicBool,
}

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
    pub in_flight: Arc<tokio::sync::Semaphore>,
    /// The requests each caller may send (`rate_limit`, D-37): beyond them, 429.
    pub limiter: Limiter,
    /// The last answer of the health check.
    pub health: Health,
    /// The counters `GET /metrics` serves.
    pub metrics: Metrics,
    /// The frames of the latest streamed answers, for the next ones like them.
    pub frames: Frames,
}

impl Service {
    /// A service over an open database.
    pub fn new(settings: Settings, database: Database) -> Service {
        let codec = Codec::new(settings.xml_namespace.clone(), settings.limits.clone());
        let in_flight = Arc::new(tokio::sync::Semaphore::new(settings.max_in_flight));
        let limiter = Limiter::new(settings.rate_limit);
        Service {
            callers: Callers::new(settings.demo),
            settings,
            codec,
            database,
            in_flight,
            limiter,
            health: Health::default(),
            metrics: Metrics::default(),
            frames: Frames::default(),
        }
    }
}

/// How long a health check's answer is reused: the database is asked at most this often,
/// however often the check is called.
const HEALTH_KEPT: Duration = Duration::from_secs(1);

/// How long the health check waits for the database: a load balancer hears 503 within a second.
const HEALTH_TIMEOUT: Duration = Duration::from_millis(800);

/// The health check's last answer, and the lock that keeps its probes one at a time.
#[derive(Debug, Default)]
pub struct Health {
    last: std::sync::Mutex<Option<(Instant, bool)>>,
    probe: tokio::sync::Mutex<()>,
}

impl Health {
    /// Whether the database answers: the answer of a probe made within the last second, or of
    /// a new probe (one at a time; callers arriving meanwhile wait for its answer, within the
    /// probe's own bound).
    pub async fn check(&self, database: &Database) -> bool {
        if let Some(healthy) = self.recent() {
            return healthy;
        }
        let Ok(_probe) = tokio::time::timeout(HEALTH_TIMEOUT, self.probe.lock()).await else {
            return false;
        };
        if let Some(healthy) = self.recent() {
            return healthy;
        }
        let healthy = match tokio::time::timeout(HEALTH_TIMEOUT, database.ping()).await {
            Ok(Ok(())) => true,
            Ok(Err(error)) => {
                tracing::error!(%error, "health check: the database does not answer");
                false
            }
            Err(_) => {
                tracing::error!(
                    timeout_ms = HEALTH_TIMEOUT.as_millis() as u64,
                    "health check: the database did not answer in time"
                );
                false
            }
        };
        *self.lock() = Some((Instant::now(), healthy));
        healthy
    }

    fn recent(&self) -> Option<bool> {
        self.lock()
            .filter(|(at, _)| at.elapsed() < HEALTH_KEPT)
            .map(|(_, healthy)| healthy)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Instant, bool)>> {
        self.last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
