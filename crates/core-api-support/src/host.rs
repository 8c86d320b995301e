//! The boundary between generated handlers and the hand-written server.

use std::future::Future;

use poem::{Body, Request, Response};
use serde::{Serialize, de::DeserializeOwned};

use crate::{operation::Operation, schema::Described};

/// The error of a generated default method: the operation has no implementation yet.
#[derive(Debug, Clone, Copy)]
pub struct NotImplemented {
    /// The operation that was called.
    pub operation: &'static Operation,
}

/// The body of a binary answer (`application/octet-stream`): its length, its validator and a way
/// to read any range of it, so that the server answers whole (200), in part (206) or not at all
/// (304) without holding the bytes.
pub struct Binary {
    /// The length in bytes.
    pub length: u64,
    /// The file name announced in `Content-Disposition`, when known.
    pub file_name: Option<String>,
    /// A strong validator of the bytes (`ETag`, without quotes), when known.
    pub etag: Option<String>,
    /// Where the bytes are read from.
    pub source: Box<dyn ByteSource>,
}

impl std::fmt::Debug for Binary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Binary")
            .field("length", &self.length)
            .field("file_name", &self.file_name)
            .field("etag", &self.etag)
            .finish_non_exhaustive()
    }
}

/// A success answer written as it is read (`x-streamed`): the answer with its one long
/// collection empty, and that collection's items in order, read while the answer is sent, so
/// that no answer is held whole whatever its size.
pub struct Streamed<T, I, E> {
    /// The answer, its streamed collection empty.
    pub envelope: T,
    /// Which of the operation's streamed collections (`x-streamed`, in document order) the items
    /// fill.
    pub collection: usize,
    /// The collection's items in depth-first pre-order; an error after the first item cuts the
    /// answer off.
    pub items: futures_util::stream::BoxStream<'static, Result<Entry<I>, E>>,
}

/// An item of a streamed collection and its depth in the collection's tree: 0 for an item of
/// the collection itself, one more for each child collection it is inside (a list's items are
/// all at 0).
#[derive(Debug)]
pub struct Entry<I> {
    /// How many child collections the item is inside.
    pub depth: usize,
    /// The item; one followed by its children holds its child collection, empty (`Some` of an
    /// empty list), where they go.
    pub item: I,
}

impl<I> Entry<I> {
    /// An item of the collection itself.
    pub fn top(item: I) -> Entry<I> {
        Entry { depth: 0, item }
    }
}

/// An item of a tree whose items differ in type from its children (a classification, then its
/// nodes): either one, written as itself.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum Either<L, R> {
    /// An item of the first type.
    Left(L),
    /// An item of the second type.
    Right(R),
}

impl<T: std::fmt::Debug, I, E> std::fmt::Debug for Streamed<T, I, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streamed")
            .field("envelope", &self.envelope)
            .finish_non_exhaustive()
    }
}

/// Bytes an answer streams: opened once, for the range the answer sends.
pub trait ByteSource: Send + 'static {
    /// The bytes `start..end` (end exclusive, within the length) as a body.
    fn open(self: Box<Self>, start: u64, end: u64) -> Body;
}

/// Bytes held in memory are their own source.
impl ByteSource for bytes::Bytes {
    fn open(self: Box<Self>, start: u64, end: u64) -> Body {
        let length = self.len();
        let clamp = |at: u64| usize::try_from(at).map_or(length, |at| at.min(length));
        Body::from_bytes(self.slice(clamp(start)..clamp(end)))
    }
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

    /// Writes a streamed success answer: the collection's items are written as they come, and
    /// an error before the first item is answered as any other.
    fn respond_stream<T, I>(
        &self,
        context: &Self::Context,
        value: Streamed<T, I, Self::Error>,
    ) -> impl Future<Output = Result<Response, Self::Error>> + Send
    where
        T: Serialize + Described + Send + 'static,
        I: Serialize + Send + 'static;

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
