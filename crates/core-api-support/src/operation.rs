//! What the document states about one operation, generated as `static` metadata so that the
//! server never restates a path, a media type or a status code by hand.

use crate::schema::Schema;

/// One operation of the document.
#[derive(Debug)]
pub struct Operation {
    /// The `operationId`.
    pub id: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path.
    pub path: &'static str,
    /// Further paths served by the same operation (`x-path-aliases`).
    pub aliases: &'static [&'static str],
    /// The module: the operation's tag (`Common`, `CM`, `PIM`, `PEO`, `DAM`).
    pub module: &'static str,
    /// The `summary`.
    pub summary: &'static str,
    /// The request body, if the operation takes one.
    pub request: Option<RequestBody>,
    /// The schema of the query parameters, if the operation takes any.
    pub query: Option<&'static Schema>,
    /// The body of the success (200) answer.
    pub response: ResponseBody,
    /// Every answer the document lists for the operation, by ascending status code.
    pub responses: &'static [StatusBody],
    /// For a batch operation, the collection of its items (the request's `x-batch` array).
    pub batch: Option<Batch>,
}

/// The collection of a batch operation's items: one result record each (D-14).
#[derive(Debug)]
pub struct Batch {
    /// Its place in the request, in element names (`kwds/kwd`, `links/itms/itms`).
    pub path: &'static str,
    /// The schema of each item.
    pub items: &'static Schema,
}

/// One documented answer of an operation.
#[derive(Debug)]
pub struct StatusBody {
    /// The status code.
    pub status: u16,
    /// The schema of its body; `None` for a binary body.
    pub schema: Option<&'static Schema>,
}

/// The HTTP methods the document uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
}

/// A request body of an operation.
#[derive(Debug)]
pub struct RequestBody {
    /// Whether the body must be present.
    pub required: bool,
    /// Its schema.
    pub schema: &'static Schema,
    /// The media types it may use, in document order.
    pub media: &'static [MediaType],
}

/// The body of an operation's success answer.
#[derive(Debug)]
pub struct ResponseBody {
    /// Its schema; `None` for a binary answer.
    pub schema: Option<&'static Schema>,
    /// The media types it may use, in document order.
    pub media: &'static [MediaType],
    /// For an answer written as it is read (`x-streamed`), the collections it may stream, in
    /// document order; empty for an answer written whole.
    pub streamed: &'static [StreamedCollection],
}

/// A long collection of an answer written as it is read (`x-streamed`).
#[derive(Debug)]
pub struct StreamedCollection {
    /// Its place in property names from the answer's root (`kwds`, `kwd`).
    pub path: &'static [&'static str],
    /// For a tree, the collection inside each item that holds the item's children, in property
    /// names from the item (`nodes`, `node`), the same inside every child; none for a list.
    pub children: Option<&'static [&'static str]>,
}

/// A media type as the document names it.
#[derive(Debug)]
pub struct MediaType {
    /// The name exactly as in the document (`application/xml; charset=UTF-8`), which is also the
    /// `Content-Type` the server answers with.
    pub name: &'static str,
    /// The name without parameters (`application/xml`).
    pub essence: &'static str,
    /// Which representation of the message tree it carries.
    pub representation: Representation,
}

/// The representations a body can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Representation {
    /// The XML form.
    Xml,
    /// The default JSON form.
    Json,
    /// The compact JSON form.
    Compact,
    /// Raw bytes (`application/octet-stream`).
    Binary,
}

impl Operation {
    /// The schema of the body the document lists for a status code.
    pub fn body_schema(&self, status: u16) -> Option<&'static Schema> {
        self.responses
            .iter()
            .find(|response| response.status == status)
            .and_then(|response| response.schema)
    }
}
