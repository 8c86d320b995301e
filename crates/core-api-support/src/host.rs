//! The boundary between generated handlers and the hand-written server.

use std::future::Future;

use poem::{Body, Request, Response};
use serde::{Serialize, de::DeserializeOwned};

use crate::{operation::Operation, schema::Schema};

/// A generated type that knows its schema table, so codecs can map it to XML and compact JSON.
pub trait Described {
    /// The table of the component schema the type was generated from.
    const SCHEMA: &'static Schema;
}

/// The error of a generated default method: the operation has no implementation yet.
#[derive(Debug, Clone, Copy)]
pub struct NotImplemented {
    /// The operation that was called.
    pub operation: &'static Operation,
}

/// The body of a binary answer (`application/octet-stream`).
#[derive(Debug, Clone)]
pub struct Binary {
    /// The bytes.
    pub content: bytes::Bytes,
    /// The file name announced in `Content-Disposition`, when known.
    pub file_name: Option<String>,
}

/// What generated handlers need from the server: every step of a request that is not the
/// operation's own logic. Each handler runs `begin`, reads its input, calls the module trait
/// method and writes the answer; any error goes to `fail`.
pub trait Host: Send + Sync + 'static {
    /// Per-request state produced by `begin` (caller identity, negotiated representations).
    type Context: Send + Sync + 'static;
    /// The error every step and every operation returns.
    type Error: From<NotImplemented> + Send + 'static;

    /// Authenticates and authorizes the caller and negotiates representations, before any body is
    /// read.
    fn begin(
        &self,
        operation: &'static Operation,
        request: &Request,
    ) -> impl Future<Output = Result<Self::Context, Self::Error>> + Send;

    /// Reads and decodes a required request body.
    fn body<T>(
        &self,
        context: &Self::Context,
        body: Body,
    ) -> impl Future<Output = Result<T, Self::Error>> + Send
    where
        T: DeserializeOwned + Described + Send + 'static;

    /// Reads and decodes an optional request body; an empty body is `None`.
    fn optional_body<T>(
        &self,
        context: &Self::Context,
        body: Body,
    ) -> impl Future<Output = Result<Option<T>, Self::Error>> + Send
    where
        T: DeserializeOwned + Described + Send + 'static;

    /// Decodes the query parameters.
    fn query<T>(&self, context: &Self::Context, request: &Request) -> Result<T, Self::Error>
    where
        T: DeserializeOwned + Described;

    /// Encodes a success answer in the negotiated representation; takes the answer so that it
    /// can be dropped as soon as it is encoded.
    fn respond<T>(&self, context: &Self::Context, value: T) -> Result<Response, Self::Error>
    where
        T: Serialize + Described;

    /// Writes a binary success answer.
    fn respond_binary(
        &self,
        context: &Self::Context,
        value: Binary,
    ) -> Result<Response, Self::Error>;

    /// Renders an error as the documented error body.
    fn fail(
        &self,
        operation: &'static Operation,
        request: &Request,
        error: Self::Error,
    ) -> Response;
}
