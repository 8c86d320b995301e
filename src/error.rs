//! Every way a request can fail, and the error record (ResponseType, D-05) it is answered with.

use core_api::types;
use core_api_support::{NotImplemented, Operation};
use poem::http::StatusCode;

use crate::repr::{DecodeError, EncodeError, ProblemClass};

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The body or the parameters are not a valid message.
    #[error("{0}")]
    Invalid(DecodeError),
    /// The request breaks a rule of the operation.
    #[error("{0}")]
    Rule(String),
    /// Items of the request break rules, so none is applied: one ERROR record each, answered in a
    /// ResponsesType where the operation documents one for 400 (messages persist, D-34).
    #[error("{}", .0.iter().filter_map(|record| record.description.as_deref()).collect::<Vec<_>>().join("; "))]
    Items(Vec<types::ResponseType>),
    /// The `Content-Type` is not one the operation takes.
    #[error("'{0}' is not a request media type of this operation")]
    UnsupportedMediaType(String),
    /// The `Accept` header admits none of the operation's answers.
    #[error("none of '{0}' is a media type of this operation's answer")]
    NotAcceptable(String),
    /// The body exceeds the limit.
    #[error("the request body exceeds {0} bytes")]
    PayloadTooLarge(usize),
    /// The body did not arrive within the body timeout (seconds, D-37).
    #[error("the request body did not arrive within {0} s")]
    RequestTimeout(u64),
    /// As many requests as the server takes at once are running (D-37); the caller may retry
    /// after `Retry-After`.
    #[error("{0} requests are running, the most this server takes at once; retry shortly")]
    Busy(usize),
    /// The caller sent more requests than the rate limit allows (D-37); it may send again after
    /// the duration (`Retry-After`, whole seconds).
    #[error("this caller sent more than {limit} requests a second; retry in {} s", retry_seconds(.retry))]
    TooManyRequests {
        /// The limit, requests a second.
        limit: u32,
        /// How long until the caller may send again.
        retry: std::time::Duration,
    },
    /// The database did not answer in time, or the connection to it was lost (D-37): 503 with
    /// `Retry-After`. The cause is kept for the log.
    #[error("the database is unavailable: {0}")]
    DatabaseUnavailable(#[source] sqlx::Error),
    /// The database has no room left to write (D-37): 507. The cause is kept for the log.
    #[error("the database has no room left to write: {0}")]
    StorageFull(#[source] sqlx::Error),
    /// The credential is missing or not good (D-03).
    #[error("{0}")]
    NotAuthorized(crate::auth::AuthFailure),
    /// The caller's roles do not grant the operation (D-04).
    #[error("the token's roles do not grant operation '{}'", .0.id)]
    Forbidden(&'static Operation),
    /// The addressed resource does not exist.
    #[error("{0}")]
    NotFound(String),
    /// An `Idempotency-Key` the caller used, within the retention, for another request (another
    /// operation, or other items): 422 (D-14).
    #[error(
        "the Idempotency-Key '{0}' was used for another request (another operation or other items) within the retention; send this request with a new key"
    )]
    IdempotencyKeyReused(String),
    /// A binary download's `Range` starts at or beyond its end (the binary's length).
    #[error("the range starts beyond the binary's {0} bytes")]
    RangeNotSatisfiable(u64),
    /// The path exists but not with this method.
    #[error("method {method} is not allowed; allowed: {allowed}")]
    MethodNotAllowed {
        /// The method used.
        method: String,
        /// The methods the path serves, comma-separated (also the `Allow` header).
        allowed: String,
    },
    /// The operation has no implementation yet.
    #[error("operation '{}' is not implemented yet", .0.id)]
    NotImplemented(&'static Operation),
    /// The database failed; the cause is kept for the log.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// A fault of the service.
    #[error("{0}")]
    Internal(String),
}

/// One row of [`ApiError`]'s table.
struct Answered {
    status: StatusCode,
    code: IssueCode,
    description: &'static str,
}

/// The issue codes of error bodies (D-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum IssueCode {
    /// An unknown internal error.
    Internal = 1000,
    /// Invalid input: wrong format.
    InvalidInput = 1001,
    /// A missing required value.
    MissingValue = 1002,
    /// A wrong data type.
    WrongType = 1003,
    /// Not authorized.
    NotAuthorized = 1004,
    /// No access to the endpoint.
    NoAccess = 1005,
    /// Not found.
    NotFound = 1006,
    /// Unsupported media type.
    UnsupportedMediaType = 1007,
    /// Method not allowed.
    MethodNotAllowed = 1008,
    /// Payload too large.
    PayloadTooLarge = 1009,
    /// Not acceptable.
    NotAcceptable = 1010,
    /// Not implemented.
    NotImplemented = 1011,
    /// Range not satisfiable.
    RangeNotSatisfiable = 1012,
    /// The request body did not arrive in time.
    RequestTimeout = 1013,
    /// The server is busy.
    Busy = 1014,
    /// The caller sent too many requests.
    TooManyRequests = 1015,
    /// The database is unavailable.
    DatabaseUnavailable = 1016,
    /// The database has no room left.
    StorageFull = 1017,
    /// An `Idempotency-Key` used for another request.
    IdempotencyKeyReused = 1018,
}

impl IssueCode {
    /// The `Retry-After` of an answer with this code, in seconds, where it has one.
    pub fn retry_after(self) -> Option<u64> {
        match self {
            IssueCode::Busy => Some(1),
            IssueCode::DatabaseUnavailable => Some(DATABASE_RETRY_SECONDS),
            _ => None,
        }
    }

    /// The issue's `description`.
    pub fn description(self) -> &'static str {
        match self {
            IssueCode::Internal => "Unknown internal error",
            IssueCode::InvalidInput => "Invalid input provided",
            IssueCode::MissingValue => "Missing required value",
            IssueCode::WrongType => "Wrong data type",
            IssueCode::NotAuthorized => "Not authorized",
            IssueCode::NoAccess => "No access to the endpoint",
            IssueCode::NotFound => "Not found",
            IssueCode::UnsupportedMediaType => "Unsupported media type",
            IssueCode::MethodNotAllowed => "Method not allowed",
            IssueCode::PayloadTooLarge => "Payload too large",
            IssueCode::NotAcceptable => "Not acceptable",
            IssueCode::NotImplemented => "Not implemented",
            IssueCode::RangeNotSatisfiable => "Range not satisfiable",
            IssueCode::RequestTimeout => "Request timeout",
            IssueCode::Busy => "Service unavailable",
            IssueCode::TooManyRequests => "Too many requests",
            IssueCode::DatabaseUnavailable => "Database unavailable",
            IssueCode::StorageFull => "Insufficient storage",
            IssueCode::IdempotencyKeyReused => "Unprocessable content",
        }
    }
}

impl From<NotImplemented> for ApiError {
    fn from(error: NotImplemented) -> ApiError {
        ApiError::NotImplemented(error.operation)
    }
}

impl From<crate::auth::AuthError> for ApiError {
    fn from(error: crate::auth::AuthError) -> ApiError {
        match error {
            crate::auth::AuthError::Failure(failure) => ApiError::NotAuthorized(failure),
            crate::auth::AuthError::Database(error) => ApiError::from(error),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    /// A database that is away or full fails the request with 503 or 507; any other database
    /// error is the service's fault (500).
    fn from(error: sqlx::Error) -> ApiError {
        match crate::storage::outage(&error) {
            Some(crate::storage::Outage::Unavailable) => ApiError::DatabaseUnavailable(error),
            Some(crate::storage::Outage::Full) => ApiError::StorageFull(error),
            None => ApiError::Database(error),
        }
    }
}

/// Whole seconds to wait, at least one: what `Retry-After` says.
pub fn retry_seconds(wait: &std::time::Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// How long a caller is told to wait when the database is unavailable, in seconds.
pub const DATABASE_RETRY_SECONDS: u64 = 5;

impl From<EncodeError> for ApiError {
    fn from(error: EncodeError) -> ApiError {
        ApiError::Internal(error.to_string())
    }
}

impl ApiError {
    /// A request that breaks the first rule of its schema, refused in the words decoding uses
    /// (decoding refuses it first; a module reaching this has a rule the schema does not state).
    pub fn broken_rule(schema: &'static core_api_support::Schema) -> ApiError {
        match crate::repr::constraints::first_rule_broken(schema) {
            Some(problem) => ApiError::Invalid(crate::repr::DecodeError::whole(problem)),
            None => ApiError::Internal(format!("schema {} states no rule", schema.name)),
        }
    }

    /// How this error is answered, in one table: the HTTP status, the issue code (D-06) and
    /// the record's `description`, the HTTP meaning (D-05).
    fn answered(&self) -> Answered {
        use IssueCode as C;
        use StatusCode as S;
        let (status, code, description) = match self {
            ApiError::Invalid(error) => {
                let code = match error.class() {
                    ProblemClass::InvalidInput => C::InvalidInput,
                    ProblemClass::MissingValue => C::MissingValue,
                    ProblemClass::WrongType => C::WrongType,
                };
                (S::BAD_REQUEST, code, "Invalid input provided")
            }
            ApiError::Rule(_) | ApiError::Items(_) => {
                (S::BAD_REQUEST, C::InvalidInput, "Invalid input provided")
            }
            ApiError::UnsupportedMediaType(_) => (
                S::UNSUPPORTED_MEDIA_TYPE,
                C::UnsupportedMediaType,
                "Unsupported media type",
            ),
            ApiError::NotAcceptable(_) => (S::NOT_ACCEPTABLE, C::NotAcceptable, "Not acceptable"),
            ApiError::PayloadTooLarge(_) => (
                S::PAYLOAD_TOO_LARGE,
                C::PayloadTooLarge,
                "Payload too large",
            ),
            ApiError::RequestTimeout(_) => {
                (S::REQUEST_TIMEOUT, C::RequestTimeout, "Request timeout")
            }
            ApiError::Busy(_) => (S::SERVICE_UNAVAILABLE, C::Busy, "Service unavailable"),
            ApiError::DatabaseUnavailable(_) => (
                S::SERVICE_UNAVAILABLE,
                C::DatabaseUnavailable,
                "Service unavailable",
            ),
            ApiError::TooManyRequests { .. } => (
                S::TOO_MANY_REQUESTS,
                C::TooManyRequests,
                "Too many requests",
            ),
            ApiError::StorageFull(_) => (
                S::INSUFFICIENT_STORAGE,
                C::StorageFull,
                "Insufficient storage",
            ),
            ApiError::NotAuthorized(_) => (S::UNAUTHORIZED, C::NotAuthorized, "Not authorized"),
            ApiError::Forbidden(_) => (S::FORBIDDEN, C::NoAccess, "No access to the endpoint"),
            ApiError::NotFound(_) => (S::NOT_FOUND, C::NotFound, "Not found"),
            ApiError::IdempotencyKeyReused(_) => (
                S::UNPROCESSABLE_ENTITY,
                C::IdempotencyKeyReused,
                "Unprocessable content",
            ),
            ApiError::RangeNotSatisfiable(_) => (
                S::RANGE_NOT_SATISFIABLE,
                C::RangeNotSatisfiable,
                "Range not satisfiable",
            ),
            ApiError::MethodNotAllowed { .. } => (
                S::METHOD_NOT_ALLOWED,
                C::MethodNotAllowed,
                "Method not allowed",
            ),
            ApiError::NotImplemented(_) => {
                (S::NOT_IMPLEMENTED, C::NotImplemented, "Not implemented")
            }
            ApiError::Database(_) | ApiError::Internal(_) => (
                S::INTERNAL_SERVER_ERROR,
                C::Internal,
                "An unknown internal error occurred",
            ),
        };
        Answered {
            status,
            code,
            description,
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.answered().status
    }

    /// The issue code.
    pub fn code(&self) -> IssueCode {
        self.answered().code
    }

    /// The record's `description`: the HTTP meaning (D-05).
    pub fn description(&self) -> &'static str {
        self.answered().description
    }

    /// The message shown to the caller; internal faults show only that there was one.
    pub fn message(&self) -> String {
        match self {
            ApiError::Database(_) | ApiError::Internal(_) => {
                "the request could not be completed; quote the supportId when reporting it"
                    .to_string()
            }
            ApiError::DatabaseUnavailable(_) => format!(
                "the database did not answer in time; nothing of this request was saved, send it again in {DATABASE_RETRY_SECONDS} s"
            ),
            ApiError::StorageFull(_) => {
                "the database has no room left to write; nothing of this request was saved"
                    .to_string()
            }
            other => crate::repr::text::printable(&other.to_string()),
        }
    }

    /// The error record of the body.
    pub fn record(&self, support_id: &str) -> types::ResponseType {
        let code = self.code();
        types::ResponseType {
            status: types::ResponseTypeStatus::Error,
            description: Some(self.description().to_string()),
            details: Some(types::Details {
                itm: vec![item("supportId", support_id)],
                ..Default::default()
            }),
            issues: vec![types::Issue {
                itm: vec![
                    item("code", &(code as u16).to_string()),
                    item("description", code.description()),
                ],
                itms: vec![types::Itms {
                    type_: Some("details".to_string()),
                    itm: vec![item("errorMessage", &self.message())],
                    ..Default::default()
                }],
            }],
            action: None,
            data_type: None,
            id: None,
            key: None,
            node_id: None,
            node_path: None,
            path: None,
            tid: None,
        }
    }
}

fn item(key: &str, value: &str) -> types::Itm {
    types::Itm {
        key: Some(key.to_string()),
        value: value.to_string(),
        loc: None,
        pos: None,
    }
}
