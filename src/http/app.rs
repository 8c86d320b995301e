//! The application: the generated router of every operation, the service's own endpoints
//! (`/openapi.yaml`, `/openapi.json`, `/docs`, `/redoc`, `/healthz`, `/metrics`), error bodies for requests no
//! operation takes (unknown path: 404; known path, other method: 405 with `Allow`), and around
//! every request its id, access log line and metrics (`observe`).

use std::{sync::Arc, time::Instant};

use core_api::{document, operations};
use core_api_support::Method;
use poem::{
    Endpoint, EndpointExt, IntoResponse, Request, Response, endpoint::make_sync, get,
    http::StatusCode,
};

use tracing::Instrument;

use super::{deviation, docs, limit, listen::Held, observe};
use crate::{
    error::ApiError,
    metrics,
    service::Service,
    settings::{Deviation, MetricsAccess},
};

/// The path of the YAML document.
pub const OPENAPI_YAML_PATH: &str = "/openapi.yaml";
/// The path of the JSON document.
pub const OPENAPI_JSON_PATH: &str = "/openapi.json";
/// The media type of the XML Schema documents.
const XSD_CONTENT_TYPE: &str = "application/xml";
/// The path of the health check.
pub const HEALTH_PATH: &str = "/healthz";
/// The path of the metrics (`metrics.rs`).
pub const METRICS_PATH: &str = "/metrics";

/// Builds the application endpoint.
pub fn app(service: Arc<Service>) -> impl Endpoint<Output = Response> {
    let namespace = service.settings.xml_namespace.clone();
    let pages = docs::pages(&namespace);
    let health = Arc::clone(&service);
    let metrics = Arc::clone(&service);
    let fallback = Arc::clone(&service);
    core_api::router(service)
        .at(
            OPENAPI_YAML_PATH,
            document_endpoint(document::OPENAPI_YAML, &namespace, "application/yaml"),
        )
        .at(
            OPENAPI_JSON_PATH,
            document_endpoint(document::OPENAPI_JSON, &namespace, "application/json"),
        )
        .at(
            format!("/{}", document::XSD_NAME),
            document_endpoint(
                document::XSD,
                &quick_xml::escape::escape(&namespace),
                XSD_CONTENT_TYPE,
            ),
        )
        .at(
            format!("/{}", document::XSD_UNQUALIFIED_NAME),
            document_endpoint(document::XSD_UNQUALIFIED, &namespace, XSD_CONTENT_TYPE),
        )
        .at(
            HEALTH_PATH,
            get(poem::endpoint::make(move |_| {
                let service = Arc::clone(&health);
                async move { healthz(&service).await }
            })),
        )
        .at(docs::SWAGGER_UI_PATH, pages.swagger_ui)
        .at(docs::REDOC_PATH, pages.redoc)
        .at(
            METRICS_PATH,
            get(poem::endpoint::make(move |request| {
                let service = Arc::clone(&metrics);
                async move { scrape(&service, &request).await }
            })),
        )
        .around(move |endpoint, request: Request| {
            let service = Arc::clone(&fallback);
            let started = Instant::now();
            let request_id = observe::request_id(request.headers());
            let span = tracing::info_span!("request", request_id = %request_id);
            async move {
                let method = request.method().clone();
                let path = request.uri().path().to_string();
                let operation = observe::operation(&method, &path);
                let mut response = admit(&service, endpoint, request, (&method, &path)).await;
                if let Some(operation) = operation {
                    let deviation = service.settings.deviation;
                    response = deviation::apply(deviation, operation, response).await;
                }
                // No answer is to be read as anything but its declared media type.
                if service.settings.deviation != Some(Deviation::Sniffable) {
                    response.headers_mut().insert(
                        poem::http::header::X_CONTENT_TYPE_OPTIONS,
                        poem::http::HeaderValue::from_static("nosniff"),
                    );
                }
                observe::answered(
                    &service.metrics,
                    &request_id,
                    (&method, &path),
                    operation,
                    started,
                    &mut response,
                );
                Ok(response)
            }
            .instrument(span)
        })
}

/// Takes a request within the caller's rate limit and the bound of requests in flight and
/// answers it, turning what the router refused into an error body. The health check is always
/// answered; every other request is held to its caller's rate (`limit`), then takes a place in
/// flight that its answer keeps until it is written (`listen::Held`).
async fn admit<E: Endpoint>(
    service: &Service,
    endpoint: Arc<E>,
    request: Request,
    (method, path): (&poem::http::Method, &str),
) -> Response {
    let mut request = request;
    let held = if request.uri().path() == HEALTH_PATH {
        None
    } else {
        let limited = match caller(service, &request) {
            verified @ limit::Caller::Token(_) => service.limiter.admit(verified),
            limit::Caller::Peer(address) => {
                request.extensions_mut().insert(limit::Unverified(address));
                service.limiter.check(&limit::Caller::Peer(address))
            }
        };
        if let Err(retry) = limited {
            let limited = ApiError::TooManyRequests {
                limit: service.limiter.limit().per_second,
                retry,
            };
            return service.error_response(None, request.headers(), &limited);
        }
        match Arc::clone(&service.in_flight).try_acquire_owned() {
            Ok(permit) => Some(Held(Arc::new(permit))),
            Err(_) => {
                let busy = ApiError::Busy(service.settings.max_in_flight);
                return service.error_response(None, request.headers(), &busy);
            }
        }
    };
    let headers = request.headers().clone();
    let mut response = match endpoint.call(request).await {
        Ok(response) => response.into_response(),
        Err(error) => {
            let error = routing_error(error.status(), method.to_string(), path, error.to_string());
            service.error_response(None, &headers, &error)
        }
    };
    if let Some(held) = held {
        response.extensions_mut().insert(held);
    }
    response
}

/// Who a request counts for under the rate limit: the token, when this server has verified it
/// already (no database work), else the peer's address.
fn caller(service: &Service, request: &Request) -> limit::Caller {
    let authorization = request
        .headers()
        .get(poem::http::header::AUTHORIZATION)
        .map(poem::http::HeaderValue::as_bytes);
    match service.callers.kept(authorization) {
        Some(selector) => limit::Caller::Token(selector),
        None => limit::Caller::Peer(
            request
                .remote_addr()
                .as_socket_addr()
                .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |address| address.ip()),
        ),
    }
}

/// The headers a proxy adds to a request it forwards: in loopback mode, a request that carries
/// one came through a proxy and so, maybe, from beyond this machine.
const FORWARDING_HEADERS: [&str; 4] = [
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-real-ip",
];

/// `GET /metrics`, to the callers `--metrics-access` admits: loopback peers only (others get
/// 404, as if nothing were served there), callers with a valid token, or everybody. In loopback
/// mode the peer's own address decides: a forwarding header never admits a request, and one that
/// carries such a header is refused, since a proxy on this machine sent it on someone's behalf.
async fn scrape(service: &Service, request: &Request) -> Response {
    let admitted = match service.settings.metrics_access {
        MetricsAccess::Open => Ok(()),
        MetricsAccess::Loopback => {
            let loopback = request
                .remote_addr()
                .as_socket_addr()
                .is_some_and(|address| address.ip().is_loopback());
            let forwarded = FORWARDING_HEADERS
                .iter()
                .any(|name| request.headers().contains_key(*name));
            if loopback && !forwarded {
                Ok(())
            } else {
                Err(ApiError::NotFound(format!(
                    "no operation at {METRICS_PATH}"
                )))
            }
        }
        MetricsAccess::Token => {
            let authorization = request
                .headers()
                .get(poem::http::header::AUTHORIZATION)
                .map(poem::http::HeaderValue::as_bytes);
            service
                .callers
                .authenticate(&service.database, authorization)
                .await
                .map(|_| ())
                .map_err(ApiError::from)
        }
    };
    if let Err(error) = admitted {
        return service.error_response(None, request.headers(), &error);
    }
    let pool = service.database.connections();
    Response::builder()
        .content_type(metrics::CONTENT_TYPE)
        .body(service.metrics.render(pool))
}

/// Serves the document, showing the configured XML namespace (D-53).
fn document_endpoint(text: &str, namespace: &str, content_type: &'static str) -> poem::RouteMethod {
    let served: Arc<str> = if namespace == document::XML_NAMESPACE_DEFAULT {
        text.into()
    } else {
        text.replace(document::XML_NAMESPACE_DEFAULT, namespace)
            .into()
    };
    get(make_sync(move |_| {
        Response::builder()
            .content_type(content_type)
            .body(served.to_string())
    }))
}

/// The error for a request the router did not take.
fn routing_error(status: StatusCode, method: String, path: &str, reason: String) -> ApiError {
    match status {
        StatusCode::NOT_FOUND => ApiError::NotFound(format!("no operation at {path}")),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::MethodNotAllowed {
            method,
            allowed: allowed_methods(path),
        },
        status if status.is_client_error() => ApiError::Rule(reason),
        _ => ApiError::Internal(reason),
    }
}

/// The methods a path serves, for the `Allow` header.
fn allowed_methods(path: &str) -> String {
    let mut methods: Vec<&str> = operations::ALL
        .iter()
        .filter(|operation| operation.path == path || operation.aliases.contains(&path))
        .map(|operation| match operation.method {
            Method::Get => "GET",
            Method::Post => "POST",
        })
        .collect();
    if methods.is_empty() {
        methods.push("GET");
    }
    methods.sort_unstable();
    methods.dedup();
    methods.join(", ")
}

/// `GET /healthz`: whether the database answers, asked at most once a second and within a
/// second (`service::Health`), so that the check is cheap however often it is called and a load
/// balancer hears 503 quickly when the database is away.
async fn healthz(service: &Service) -> Response {
    if service.health.check(&service.database).await {
        Response::builder()
            .content_type("application/json")
            .body(r#"{"status":"ok"}"#)
    } else {
        Response::builder()
            .status(StatusCode::SERVICE_UNAVAILABLE)
            .content_type("application/json")
            .body(r#"{"status":"unavailable"}"#)
    }
}
