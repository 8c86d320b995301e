//! The service's metrics, served at `GET /metrics` in the OpenMetrics text format that Prometheus
//! scrapes: requests by operation, status and representation; their latency per operation; batch
//! item outcomes; the database pool and the waits for a write transaction; the build.
//!
//! The counters live in this process: each instance of a deployment is scraped on its own.

use std::time::Duration;

use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode},
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
        info::Info,
    },
    registry::{Registry, Unit},
};

/// The media type of the exposition.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A request's labels: the operation id (`-` for a path no operation serves, or the service's
/// own endpoints), the status code, and the answer's representation.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    operation: String,
    status: u16,
    representation: String,
}

/// An operation id.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    operation: String,
}

/// A batch item's outcome: its operation and the status of its record.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ItemLabels {
    operation: String,
    status: String,
}

/// The connections of the database pool, by state.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    state: &'static str,
}

/// The metrics of one server.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<OperationLabels, Histogram, fn() -> Histogram>,
    items: Family<ItemLabels, Counter>,
    pool: Family<PoolLabels, Gauge>,
    write_wait: Histogram,
}

/// Latency buckets: 0.5 ms to about 16 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::with_prefix("core");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by operation id, status code and representation",
            requests.clone(),
        );
        let latency: Family<OperationLabels, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "request_duration",
            "Time from a request's arrival to its answer, by operation id",
            Unit::Seconds,
            latency.clone(),
        );
        let items = Family::<ItemLabels, Counter>::default();
        registry.register(
            "batch_items",
            "Batch items applied, by operation id and the status of their record",
            items.clone(),
        );
        let pool = Family::<PoolLabels, Gauge>::default();
        registry.register(
            "database_connections",
            "Connections of the database pool: open, idle, and the most it opens",
            pool.clone(),
        );
        let write_wait = latency_histogram();
        registry.register_with_unit(
            "database_write_wait",
            "Time a batch waited for its write transaction (a pool connection and, on SQLite, the write lock)",
            Unit::Seconds,
            write_wait.clone(),
        );
        registry.register(
            "build",
            "The running build",
            Info::new(vec![("version", env!("CARGO_PKG_VERSION"))]),
        );
        Metrics {
            registry,
            requests,
            latency,
            items,
            pool,
            write_wait,
        }
    }
}

impl Metrics {
    /// Counts an answered request and its latency.
    pub fn request(
        &self,
        operation: Option<&str>,
        status: u16,
        representation: &str,
        took: Duration,
    ) {
        let operation = operation.unwrap_or("-").to_string();
        self.requests
            .get_or_create(&RequestLabels {
                operation: operation.clone(),
                status,
                representation: representation.to_string(),
            })
            .inc();
        self.latency
            .get_or_create(&OperationLabels { operation })
            .observe(took.as_secs_f64());
    }

    /// Counts a batch item by the status of its record (`SUCCESS`, `WARNING`, `ERROR`).
    pub fn item(&self, operation: &str, status: &str) {
        self.items
            .get_or_create(&ItemLabels {
                operation: operation.to_string(),
                status: status.to_string(),
            })
            .inc();
    }

    /// Records how long a write transaction took to begin.
    pub fn write_wait(&self, took: Duration) {
        self.write_wait.observe(took.as_secs_f64());
    }

    /// The exposition, with the pool's current figures (`open`, `idle`, `max` connections).
    pub fn render(&self, pool: [(&'static str, u64); 3]) -> String {
        for (state, connections) in pool {
            self.pool
                .get_or_create(&PoolLabels { state })
                .set(i64::try_from(connections).unwrap_or(i64::MAX));
        }
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}
