//! Every operation in the representation the caller chooses: XML, default JSON or compact JSON.
//!
//! [`Client`] wraps the progenitor [`crate::Client`] (its `reqwest` client, base URL and safe
//! retries) and has one method per operation ([`calls`], generated), which takes and answers the
//! same types as the progenitor method of that name. Requests are written, and answers read, by
//! `core-repr`, the representation engine the server runs, driven by the tables generated from
//! the same document (`crate::tables`, `crate::operations`); a request goes in the client's
//! representation for requests and the answer is asked for in its representation for answers,
//! wherever the operation lists them (else in default JSON, else in the one it lists, as briefings
//! retrieve answers XML only). An error answer is read in whatever representation it came in.

mod calls;

use core_api_support::{MediaType, Operation};
use core_repr::{Codec, Limits};
use progenitor_client::{ClientHooks, ClientInfo, OperationInfo};
use serde::{Serialize, de::DeserializeOwned};

use crate::types;

/// The representations: `Xml`, `Json` (default JSON), `Compact` (compact JSON); `Binary` is only
/// a download's.
pub use core_api_support::Representation;

/// A client of every operation in chosen representations.
#[derive(Debug, Clone)]
pub struct Client {
    inner: crate::Client,
    codec: Codec,
    requests: Representation,
    answers: Representation,
    observer: Option<Observer>,
}

/// One exchange as it went over the wire, shown to an observer ([`Client::observed`]).
#[derive(Debug, Clone, Copy)]
pub struct Exchange<'a> {
    /// The operation id.
    pub operation: &'static str,
    /// The request's media type and body, if it had one.
    pub request: Option<(&'a str, &'a [u8])>,
    /// The answer's status.
    pub status: u16,
    /// The answer's `Content-Type` (empty when it had none) and body.
    pub answer: (&'a str, &'a [u8]),
}

/// What sees every exchange of a client: logs, or checks such as an XML Schema's.
#[derive(Clone)]
pub struct Observer(std::sync::Arc<dyn Fn(&Exchange<'_>) + Send + Sync>);

impl std::fmt::Debug for Observer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Observer")
    }
}

impl Client {
    /// A client sending requests and asking for answers in `representation`.
    pub fn new(inner: crate::Client, representation: Representation) -> Client {
        Client {
            inner,
            codec: Codec::new(core_tables::XML_NAMESPACE_DEFAULT, Limits::default()),
            requests: representation,
            answers: representation,
            observer: None,
        }
    }

    /// The same client, showing every exchange to `observer` once its answer is read.
    pub fn observed(mut self, observer: impl Fn(&Exchange<'_>) + Send + Sync + 'static) -> Client {
        self.observer = Some(Observer(std::sync::Arc::new(observer)));
        self
    }

    /// The same client, sending requests in `representation`.
    pub fn requests(mut self, representation: Representation) -> Client {
        self.requests = representation;
        self
    }

    /// The same client, asking for answers in `representation`.
    pub fn answers(mut self, representation: Representation) -> Client {
        self.answers = representation;
        self
    }

    /// The progenitor client underneath (default JSON only).
    pub fn inner(&self) -> &crate::Client {
        &self.inner
    }

    /// Sends a call and reads its answer as the message of the operation's success schema.
    async fn message<B: Serialize, T: DeserializeOwned>(
        &self,
        operation: &'static Operation,
        name: &'static str,
        query: &[(&str, Option<String>)],
        body: Option<&B>,
    ) -> Result<T, Error> {
        let answer = self.send(operation, name, query, body).await?;
        let schema = operation.response.schema.ok_or(Error::Decode {
            status: answer.status,
            reason: "the operation answers no message".into(),
        })?;
        let representation = answer.representation(operation)?;
        self.codec
            .decode(representation, &answer.bytes, schema)
            .map_err(|error| error.to_string())
            .and_then(|tree| serde_json::from_value(tree).map_err(|error| error.to_string()))
            .map_err(|reason| Error::Decode {
                status: answer.status,
                reason,
            })
    }

    /// Sends a call whose answer is a binary.
    async fn binary<B: Serialize>(
        &self,
        operation: &'static Operation,
        name: &'static str,
        query: &[(&str, Option<String>)],
        body: Option<&B>,
    ) -> Result<Binary, Error> {
        let answer = self.send(operation, name, query, body).await?;
        Ok(Binary {
            status: answer.status,
            media_type: answer.media_type,
            bytes: answer.bytes,
        })
    }

    /// Writes the request, sends it through the progenitor client's hooks (retries, keys),
    /// and answers a success, or the error the answer describes.
    async fn send<B: Serialize>(
        &self,
        operation: &'static Operation,
        name: &'static str,
        query: &[(&str, Option<String>)],
        body: Option<&B>,
    ) -> Result<Answer, Error> {
        let method = match operation.method {
            core_api_support::Method::Get => reqwest::Method::GET,
            core_api_support::Method::Post => reqwest::Method::POST,
        };
        let url = format!("{}{}", self.inner.baseurl(), operation.path);
        let pairs: Vec<(&str, &str)> = query
            .iter()
            .filter_map(|(key, value)| Some((*key, value.as_deref()?)))
            .collect();
        let mut request = self.inner.client().request(method, url).query(&pairs);
        let mut sent: Option<(&'static str, bytes::Bytes)> = None;
        if let Some(media) = chosen(operation.response.media, self.answers) {
            request = request.header(reqwest::header::ACCEPT, media.name);
        }
        if let (Some(body), Some(described)) = (body, &operation.request) {
            let media = chosen(described.media, self.requests).ok_or_else(|| {
                Error::Encode("the operation lists no media type for its request".into())
            })?;
            let tree =
                serde_json::to_value(body).map_err(|error| Error::Encode(error.to_string()))?;
            let bytes = self
                .codec
                .encode(media.representation, tree, described.schema)
                .map_err(|error| Error::Encode(error.to_string()))?;
            let bytes = bytes::Bytes::from(bytes);
            request = request
                .header(reqwest::header::CONTENT_TYPE, media.name)
                .body(bytes.clone());
            sent = Some((media.name, bytes));
        }
        let request = request.build().map_err(Error::Communication)?;
        let info = OperationInfo { operation_id: name };
        let response = ClientHooks::exec(&self.inner, request, &info)
            .await
            .map_err(Error::Communication)?;
        let answer = Answer::read(response).await?;
        if let Some(Observer(observer)) = &self.observer {
            observer(&Exchange {
                operation: operation.id,
                request: sent.as_ref().map(|(media, bytes)| (*media, bytes.as_ref())),
                status: answer.status,
                answer: (
                    answer.media_type.as_deref().unwrap_or_default(),
                    answer.bytes.as_ref(),
                ),
            });
        }
        if (200..300).contains(&answer.status) {
            Ok(answer)
        } else {
            Err(self.refusal(operation, answer))
        }
    }

    /// The error an error answer describes, read in its representation.
    fn refusal(&self, operation: &'static Operation, answer: Answer) -> Error {
        let status = answer.status;
        let schema = operation
            .body_schema(status)
            .unwrap_or(&crate::tables::RESPONSE_TYPE);
        let representation = match answer.representation(operation) {
            Ok(representation) => representation,
            Err(error) => return error,
        };
        let tree = match self.codec.decode(representation, &answer.bytes, schema) {
            Ok(tree) => tree,
            Err(error) => {
                return Error::Decode {
                    status,
                    reason: error.to_string(),
                };
            }
        };
        let body = if schema.name == crate::tables::RESPONSES_TYPE.name {
            serde_json::from_value(tree).map(ErrorBody::Responses)
        } else {
            serde_json::from_value(tree).map(ErrorBody::Response)
        };
        match body {
            Ok(body) => Error::Answer {
                status,
                representation,
                body,
            },
            Err(error) => Error::Decode {
                status,
                reason: error.to_string(),
            },
        }
    }
}

/// The media type of `listed` for `wanted`; else default JSON; else the first listed.
fn chosen(listed: &'static [MediaType], wanted: Representation) -> Option<&'static MediaType> {
    listed
        .iter()
        .find(|media| media.representation == wanted)
        .or_else(|| {
            listed
                .iter()
                .find(|media| media.representation == Representation::Json)
        })
        .or_else(|| listed.first())
}

/// An answer as it came.
struct Answer {
    status: u16,
    media_type: Option<String>,
    bytes: bytes::Bytes,
}

impl Answer {
    async fn read(response: reqwest::Response) -> Result<Answer, Error> {
        let status = response.status().as_u16();
        let media_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        let bytes = response.bytes().await.map_err(Error::Communication)?;
        Ok(Answer {
            status,
            media_type,
            bytes,
        })
    }

    /// The representation its `Content-Type` names: one of the operation's answers or of the
    /// document's error bodies.
    fn representation(&self, operation: &'static Operation) -> Result<Representation, Error> {
        let media_type = self.media_type.as_deref().unwrap_or_default();
        let essence = media_type.split(';').next().unwrap_or_default().trim();
        operation
            .response
            .media
            .iter()
            .chain(core_tables::ERROR_MEDIA)
            .find(|media| media.essence.eq_ignore_ascii_case(essence))
            .map(|media| media.representation)
            .filter(|representation| *representation != Representation::Binary)
            .ok_or_else(|| Error::Decode {
                status: self.status,
                reason: format!("an answer in '{media_type}', which is no representation"),
            })
    }
}

/// A binary answer (a download), with its status (200, 206 or 304).
#[derive(Debug, Clone)]
pub struct Binary {
    /// The status.
    pub status: u16,
    /// Its `Content-Type`.
    pub media_type: Option<String>,
    /// Its bytes.
    pub bytes: bytes::Bytes,
}

/// An error answer's body, typed by the schema the document gives its status.
#[derive(Debug, Clone)]
pub enum ErrorBody {
    /// The error record of most refusals.
    Response(types::ResponseType),
    /// One record per problem (a 400 of transform or messages persist).
    Responses(types::ResponsesType),
}

/// Why a call gave no answer of its type.
#[derive(Debug)]
pub enum Error {
    /// The request could not be sent, or its answer not read.
    Communication(reqwest::Error),
    /// The request could not be written in the representation.
    Encode(String),
    /// The server refused the call with an error answer, read into its type.
    Answer {
        /// The status.
        status: u16,
        /// The representation it came in.
        representation: Representation,
        /// Its body.
        body: ErrorBody,
    },
    /// The answer does not read as the document describes it.
    Decode {
        /// The status.
        status: u16,
        /// What did not read.
        reason: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Communication(error) => write!(formatter, "communication error: {error}"),
            Error::Encode(reason) => write!(formatter, "the request cannot be written: {reason}"),
            Error::Answer {
                status,
                representation,
                body,
            } => write!(
                formatter,
                "error answer {status} ({representation:?}): {body:?}"
            ),
            Error::Decode { status, reason } => {
                write!(formatter, "the answer ({status}) does not read: {reason}")
            }
        }
    }
}

impl std::error::Error for Error {}
