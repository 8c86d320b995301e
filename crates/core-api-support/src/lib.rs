//! Hand-written support for the server code that `cargo xtask codegen` generates from
//! `openapi/core-v1.yaml` into `generated/core-api`.
//!
//! The generated crate holds data (schema tables, operation metadata) and glue (one trait per
//! specification module, a poem router); this crate holds the types that data is made of and the
//! [`Host`] trait through which generated handlers reach the hand-written server: authentication,
//! body codecs and error rendering. It plays the part `progenitor-client` plays for a progenitor
//! client.

#[cfg(feature = "host")]
pub mod host;
pub mod list;
pub mod message;
pub mod operation;
pub mod schema;

#[cfg(feature = "host")]
pub use host::{Binary, ByteSource, Either, Entry, Host, NotImplemented, Streamed};
pub use message::{fill, matches, stated};
pub use operation::{
    Batch, MediaType, Method, Operation, Representation, RequestBody, ResponseBody, StatusBody,
    StreamedCollection,
};
pub use schema::{
    Compact, Condition, DefaultValue, Described, Field, Kind, Node, Rule, RuleKind, Scalar, Schema,
    Test, Type, XmlRoot,
};
