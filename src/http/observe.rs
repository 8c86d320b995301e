//! What operators see of each request: its id, kept from a well-formed `X-Request-Id` or made
//! anew, and echoed in the answer; a `request` span around its work, so every log line it causes
//! (a refusal's or a failure's `supportId` among them) carries the id; one access log line when
//! it is answered; and its count and latency in the metrics.

use std::time::Instant;

use bytes::Bytes;
use core_api::{document, operations};
use core_api_support::{Method, Operation, Representation};
use poem::{
    Body, Response,
    http::{HeaderMap, HeaderValue},
};

use crate::metrics::{self, Metrics};

/// The header that carries a request's id, both ways.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The longest request id taken from a client.
const MAX_REQUEST_ID: usize = 128;

/// The request's id: the client's `X-Request-Id` when it is well-formed (1 to 128 characters of
/// ASCII letters, digits and `-_.:/+=`), else a new UUID.
pub fn request_id(headers: &HeaderMap) -> String {
    headers
        .get(REQUEST_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|id| well_formed(id))
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string)
}

fn well_formed(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_REQUEST_ID
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-_.:/+=".contains(&byte))
}

/// The operation a request addresses by its method and path (aliases included), if any.
pub fn operation(method: &poem::http::Method, path: &str) -> Option<&'static Operation> {
    operations::ALL.iter().copied().find(|operation| {
        let method_matches = match operation.method {
            Method::Get => method == poem::http::Method::GET,
            Method::Post => method == poem::http::Method::POST,
        };
        method_matches && (operation.path == path || operation.aliases.contains(&path))
    })
}

/// The representation of an answer, from its media type: `xml`, `json` or `compact` for a
/// message (the document's media types), `yaml` (the document), `metrics`, `html` (the docs
/// pages), `binary` (a download), or `none` (no body).
fn representation(response: &Response) -> &'static str {
    let Some(media_type) = response.content_type() else {
        return "none";
    };
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    let message = document::ERROR_MEDIA
        .iter()
        .find(|media| media.essence.eq_ignore_ascii_case(essence));
    match message.map(|media| media.representation) {
        Some(Representation::Xml) => "xml",
        Some(Representation::Json) => "json",
        Some(Representation::Compact) => "compact",
        Some(Representation::Binary) => "binary",
        None if essence == "application/yaml" => "yaml",
        None if metrics::CONTENT_TYPE.starts_with(essence) => "metrics",
        None if essence == "text/html" => "html",
        None => "binary",
    }
}

/// The length of an answer's body, when it is known before it is sent (a streamed download's
/// is in its `Content-Length`).
fn body_length(response: &mut Response) -> Option<u64> {
    if let Some(length) = response
        .headers()
        .get(poem::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
    {
        return Some(length);
    }
    let body: http_body_util::combinators::BoxBody<Bytes, std::io::Error> =
        response.take_body().into();
    let length = hyper::body::Body::size_hint(&body).exact();
    response.set_body(Body::from(body));
    length
}

/// Ends a request: echoes its id, counts it, and writes its access log line (in the request's
/// span, which carries the id).
pub fn answered(
    metrics: &Metrics,
    request_id: &str,
    (method, path): (&poem::http::Method, &str),
    operation: Option<&'static Operation>,
    started: Instant,
    response: &mut Response,
) {
    if let Ok(value) = HeaderValue::from_str(request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    let took = started.elapsed();
    let status = response.status().as_u16();
    let representation = representation(response);
    let operation_id = operation.map(|operation| operation.id);
    metrics.request(operation_id, status, representation, took);
    let bytes = body_length(response);
    tracing::info!(
        target: "core_server::access",
        operation = operation_id.unwrap_or("-"),
        method = %method,
        path,
        status,
        duration_ms = took.as_secs_f64() * 1000.0,
        bytes,
        representation,
        "answered"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_kept_when_well_formed_and_made_otherwise() {
        let mut headers = HeaderMap::new();
        assert_eq!(request_id(&headers).len(), 36);
        headers.insert(REQUEST_ID_HEADER, HeaderValue::from_static("abc-123_x.y:z"));
        assert_eq!(request_id(&headers), "abc-123_x.y:z");
        for bad in ["", "with space", "quote\"", "ü"] {
            if let Ok(value) = HeaderValue::from_str(bad) {
                headers.insert(REQUEST_ID_HEADER, value);
                assert_ne!(request_id(&headers), bad);
            }
        }
        headers.insert(
            REQUEST_ID_HEADER,
            HeaderValue::from_str(&"a".repeat(129)).expect("a header value"),
        );
        assert_eq!(request_id(&headers).len(), 36);
    }

    #[test]
    fn operations_are_found_by_method_and_path_with_their_aliases() {
        let get = poem::http::Method::GET;
        let post = poem::http::Method::POST;
        assert_eq!(
            operation(&post, "/api/core/v1/common/keywords/retrieve").map(|op| op.id),
            Some("keywordsRetrieve")
        );
        assert!(operation(&get, "/api/core/v1/common/keywords/retrieve").is_none());
        assert!(operation(&post, "/nowhere").is_none());
        for operation_ in operations::ALL {
            for alias in operation_.aliases {
                let method = match operation_.method {
                    Method::Get => &get,
                    Method::Post => &post,
                };
                assert_eq!(
                    operation(method, alias).map(|op| op.id),
                    Some(operation_.id)
                );
            }
        }
    }
}
