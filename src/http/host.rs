//! The server's side of the generated handlers: every step of a request around the operation's
//! own logic (negotiation, body and query decoding, answer encoding, error bodies).

use core_api::{tables, types};
use core_api_support::{
    Binary, Described, Field, Host, Kind, Node, Operation, Representation, Streamed, Type,
};
use poem::{
    Body, Request, Response,
    http::{HeaderMap, HeaderValue, StatusCode, header},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Map, Value};

use super::{binary, limit, negotiate, stream};
use crate::{
    error::ApiError,
    repr::{DecodeError, Problem, path::Path, tree},
    service::{Context, Service},
};

impl Host for Service {
    type Context = Context;
    type Error = ApiError;

    async fn begin(
        &self,
        operation: &'static Operation,
        request: &Request,
    ) -> Result<Context, ApiError> {
        let headers = request.headers();
        // Credentials first: a caller who may not call learns nothing else, and no body is read.
        let authorization = headers
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes);
        let caller = self
            .callers
            .authenticate(&self.database, authorization)
            .await;
        // A request the admission could not count yet counts now: for its token, or for its
        // address when it has no valid one (D-37).
        if let Some(limit::Unverified(address)) = request.extensions().get::<limit::Unverified>() {
            let counted = match (&caller, crate::auth::selector(authorization)) {
                (Ok(_), Some(selector)) => limit::Caller::Token(selector.to_string()),
                _ => limit::Caller::Peer(*address),
            };
            let admitted = self.limiter.admit(counted);
            if let (Ok(_), Err(retry)) = (&caller, admitted) {
                return Err(ApiError::TooManyRequests {
                    limit: self.limiter.limit().per_second,
                    retry,
                });
            }
        }
        let caller = caller?;
        if !caller.may(operation) {
            return Err(ApiError::Forbidden(operation));
        }
        // A body declared larger than the limit is refused before any of it is read (D-37); an
        // operation without a body never reads one.
        let limit = self.settings.max_body_bytes;
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|length| length.to_str().ok())
            .and_then(|length| length.trim().parse::<u64>().ok());
        if operation.request.is_some() && declared.is_some_and(|length| length > limit as u64) {
            return Err(ApiError::PayloadTooLarge(limit));
        }
        let request_media = negotiate::request(operation, headers)?;
        let response = negotiate::response(
            operation,
            headers,
            request_media.map(|media| media.representation),
        )?;
        Ok(Context {
            operation,
            request: request_media,
            response,
            caller,
            conditions: binary::Conditions::of(operation, headers),
            idempotency_key: crate::modules::idempotency::key(operation, headers)?,
            replayed: std::sync::atomic::AtomicBool::new(false),
        })
    }

    async fn body<T>(&self, context: &Context, body: Body) -> Result<T, ApiError>
    where
        T: DeserializeOwned + Described + Send + 'static,
    {
        let bytes = self.read(body).await?;
        self.decode(context, &bytes)
    }

    async fn optional_body<T>(&self, context: &Context, body: Body) -> Result<Option<T>, ApiError>
    where
        T: DeserializeOwned + Described + Send + 'static,
    {
        let bytes = self.read(body).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        self.decode(context, &bytes).map(Some)
    }

    fn query<T>(&self, _context: &Context, request: &Request) -> Result<T, ApiError>
    where
        T: DeserializeOwned + Described,
    {
        let value = query_tree(request.uri().query().unwrap_or_default(), T::SCHEMA)
            .map_err(ApiError::Invalid)?;
        tree::check(&value, T::SCHEMA, self.settings.limits.max_depth)
            .map_err(ApiError::Invalid)?;
        crate::repr::typed(value).map_err(ApiError::Invalid)
    }

    fn respond<T>(&self, context: &Context, value: T) -> Result<Response, ApiError>
    where
        T: Serialize + Described,
    {
        let bytes = self
            .codec
            .encode_typed(context.response.representation, value, T::SCHEMA)?;
        let mut answer = Response::builder().content_type(context.response.name);
        if context.replayed.load(std::sync::atomic::Ordering::Relaxed) {
            answer = answer.header(crate::modules::idempotency::REPLAYED_HEADER, "true");
        }
        Ok(answer.body(bytes))
    }

    async fn respond_stream<T, I>(
        &self,
        context: &Context,
        value: Streamed<T, I, ApiError>,
    ) -> Result<Response, ApiError>
    where
        T: Serialize + Described + Send + 'static,
        I: Serialize + Send + 'static,
    {
        stream::respond(self, context, value).await
    }

    fn respond_binary(&self, context: &Context, value: Binary) -> Result<Response, ApiError> {
        binary::respond(context.response.name, &context.conditions, value)
    }

    fn fail(&self, operation: &'static Operation, request: &Request, error: ApiError) -> Response {
        self.error_response(Some(operation), request.headers(), &error)
    }
}

impl Service {
    /// Reads a body up to the configured limit.
    async fn read(&self, body: Body) -> Result<bytes::Bytes, ApiError> {
        let limit = self.settings.max_body_bytes;
        let timeout = self.settings.body_timeout;
        tokio::time::timeout(timeout, body.into_bytes_limit(limit))
            .await
            .map_err(|_| ApiError::RequestTimeout(timeout.as_secs()))?
            .map_err(|error| match error {
                poem::error::ReadBodyError::PayloadTooLarge => ApiError::PayloadTooLarge(limit),
                other => {
                    ApiError::Invalid(DecodeError::whole(Problem::Malformed(other.to_string())))
                }
            })
    }

    /// Decodes a body in the request's representation into a typed value.
    fn decode<T: DeserializeOwned + Described>(
        &self,
        context: &Context,
        bytes: &[u8],
    ) -> Result<T, ApiError> {
        let Some(media) = context.request else {
            return Err(ApiError::UnsupportedMediaType(
                "(no Content-Type)".to_string(),
            ));
        };
        self.codec
            .decode_typed(media.representation, bytes, T::SCHEMA)
            .map_err(ApiError::Invalid)
    }

    /// The error answer: the record (or, where the document says so for this status, a
    /// ResponsesType holding it), in the negotiated representation.
    pub fn error_response(
        &self,
        operation: Option<&'static Operation>,
        headers: &HeaderMap,
        error: &ApiError,
    ) -> Response {
        let support_id = uuid::Uuid::new_v4().to_string();
        let status = error.status();
        if status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED {
            tracing::error!(support_id, operation = operation.map(|op| op.id), %error, "request failed");
        } else {
            tracing::info!(support_id, operation = operation.map(|op| op.id), %error, "request refused");
        }
        let media = negotiate::error(headers);
        let mut record = error.record(&support_id);
        let envelope = operation
            .and_then(|operation| operation.body_schema(status.as_u16()))
            .is_some_and(|schema| std::ptr::eq(schema, &tables::RESPONSES_TYPE));
        let encoded = if envelope {
            // Inside a ResponsesType the record reads like an item record: its description says
            // what is wrong with the message and where.
            record.description = Some(error.message());
            let response = match error {
                ApiError::Items(records) => records.clone(),
                _ => vec![record],
            };
            let body = types::ResponsesType {
                schema_version: core_api::document::SCHEMA_VERSION.parse().ok(),
                meta: None,
                responses: Some(types::Responses { response }),
            };
            self.encode_error(media.representation, &body)
        } else {
            self.encode_error(media.representation, &record)
        };
        let mut response = match encoded {
            Ok(bytes) => Response::builder()
                .status(status)
                .content_type(media.name)
                .body(bytes),
            Err(reason) => {
                tracing::error!(support_id, %reason, "cannot encode an error body");
                Response::builder().status(status).body(())
            }
        };
        if let ApiError::MethodNotAllowed { allowed, .. } = error
            && let Ok(value) = HeaderValue::from_str(allowed)
        {
            response.headers_mut().insert(header::ALLOW, value);
        }
        if let ApiError::RangeNotSatisfiable(length) = error
            && let Ok(value) = HeaderValue::from_str(&format!("bytes */{length}"))
        {
            response.headers_mut().insert(header::CONTENT_RANGE, value);
        }
        let retry = match error {
            ApiError::TooManyRequests { retry, .. } => Some(crate::error::retry_seconds(retry)),
            other => other.code().retry_after(),
        };
        if let Some(seconds) = retry {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let ApiError::NotAuthorized(_) = error {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }

    fn encode_error<T: Serialize + Described>(
        &self,
        representation: Representation,
        value: &T,
    ) -> Result<Vec<u8>, String> {
        let tree = serde_json::to_value(value).map_err(|error| error.to_string())?;
        self.codec
            .encode(representation, tree, T::SCHEMA)
            .map_err(|error| error.to_string())
    }
}

/// The tree of a query string: each parameter typed by its property in the query schema.
fn query_tree(
    query: &str,
    schema: &'static core_api_support::Schema,
) -> Result<Value, DecodeError> {
    let Kind::Object(fields) = schema.resolve().kind else {
        return Ok(Value::Object(Map::new()));
    };
    let mut object = Map::new();
    for (name, text) in form_urlencoded_pairs(query)? {
        let Some(field) = fields.iter().find(|field| field.name == name) else {
            return Err(DecodeError::whole(Problem::Unknown {
                what: "parameter",
                name,
            }));
        };
        if object.contains_key(&name) {
            return Err(DecodeError::whole(Problem::Duplicate(name)));
        }
        object.insert(name, parameter(&text, field)?);
    }
    Ok(Value::Object(object))
}

fn parameter(text: &str, field: &Field) -> Result<Value, DecodeError> {
    let path = Path::new().child(field.name);
    match (field.ty, field.node) {
        (Type::Scalar(scalar), Node::Element | Node::Attribute) => {
            tree::parse_scalar(text, scalar, &path)
        }
        _ => Err(DecodeError::at(
            path,
            Problem::Malformed("not a scalar parameter".into()),
        )),
    }
}

/// Splits `a=1&b=x%20y` into decoded pairs.
fn form_urlencoded_pairs(query: &str) -> Result<Vec<(String, String)>, DecodeError> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((percent_decode(name)?, percent_decode(value)?))
        })
        .collect()
}

fn percent_decode(text: &str) -> Result<String, DecodeError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(index + 1..index + 3)
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                    .ok_or_else(|| {
                        DecodeError::whole(Problem::Malformed(format!(
                            "bad percent-encoding in {text:?}"
                        )))
                    })?;
                out.push(hex);
                index += 2;
            }
            byte => out.push(byte),
        }
        index += 1;
    }
    String::from_utf8(out).map_err(|error| {
        DecodeError::whole(Problem::InvalidUtf8 {
            offset: error.utf8_error().valid_up_to(),
        })
    })
}
