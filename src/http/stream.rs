//! Streamed answers (`x-streamed`, D-59): the items of the answer's long collection are written
//! as they are read, in pieces of about [`PIECE`] bytes, in chunked transfer.
//!
//! Nothing is sent before the first piece is written: a failure before it (no connection, an
//! unknown record, the first rows) is answered as any other, and an answer that fits in one piece
//! goes whole with its `Content-Length`. A longer one goes in chunked transfer: a failure after
//! its status line, of the database or of the writer, cuts the connection without the closing
//! chunk, so that no client takes the answer it has read for a whole one.

use core_api_support::{Described, Host, Streamed};
use futures_util::{StreamExt, stream::BoxStream};
use poem::{Body, Response};
use serde::Serialize;

use crate::{
    error::ApiError,
    repr::{
        Codec, EncodeError,
        stream::{Frame, Place},
    },
    service::{Context, Service},
};

/// About how many bytes of an answer are handed to the connection at once.
const PIECE: usize = 64 * 1024;

/// Answers a streamed success answer.
pub(super) async fn respond<T, I>(
    service: &Service,
    context: &Context,
    value: Streamed<T, I, ApiError>,
) -> Result<Response, ApiError>
where
    T: Serialize + Described + Send + 'static,
    I: Serialize + Described + Send + 'static,
{
    let Streamed {
        envelope,
        mut items,
    } = value;
    let Some(first) = items.next().await else {
        // No item: the whole answer, its collection empty, as any other.
        return service.respond(context, envelope);
    };
    let first = first?;
    let place = context
        .operation
        .response
        .streamed
        .and_then(|path| Place::find(T::SCHEMA, path))
        .ok_or_else(|| EncodeError {
            path: String::new(),
            reason: format!("{} has no streamed collection", context.operation.id),
        })?;
    let representation = context.response.representation;
    let codec = service.codec.clone();
    let mut item = Vec::new();
    codec.encode_item(representation, &first, &place, true, &mut item)?;
    let Frame { mut prefix, suffix } = codec.frame(
        representation,
        &envelope,
        T::SCHEMA,
        &place,
        (&first, &item),
    )?;
    prefix.extend_from_slice(&item);
    let mut pieces = Pieces {
        items,
        codec,
        place,
        representation,
        piece: prefix,
        suffix: Some(suffix),
    };
    // Nothing is sent before the first piece: an answer that fits in it goes whole, with its
    // length, and a failure before it is answered as any other.
    let first = pieces.next().await?;
    let answer = Response::builder().content_type(context.response.name);
    if pieces.suffix.is_none() {
        return Ok(answer.body(first));
    }
    Ok(answer.body(Body::from_bytes_stream(pieces.into_stream(first))))
}

/// What is left to write of a streamed answer.
struct Pieces<I> {
    items: BoxStream<'static, Result<I, ApiError>>,
    codec: Codec,
    place: Place,
    representation: core_api_support::Representation,
    /// The bytes written and not yet handed over.
    piece: Vec<u8>,
    /// The end of the answer, until it is written.
    suffix: Option<Vec<u8>>,
}

impl<I: Serialize + Send + 'static> Pieces<I> {
    /// The answer as pieces of bytes, from its `first`; an error ends it without its end.
    fn into_stream(self, first: Vec<u8>) -> BoxStream<'static, Result<Vec<u8>, std::io::Error>> {
        let rest = futures_util::stream::unfold(self, |mut pieces| async move {
            pieces.suffix.as_ref()?;
            match pieces.next().await {
                Ok(piece) => Some((Ok(piece), pieces)),
                Err(error) => {
                    tracing::error!(%error, "a streamed answer was cut off");
                    pieces.suffix = None;
                    Some((Err(std::io::Error::other(error.to_string())), pieces))
                }
            }
        });
        futures_util::stream::once(async { Ok(first) })
            .chain(rest)
            .boxed()
    }

    /// The next piece: items up to [`PIECE`] bytes, or the last ones and the end.
    async fn next(&mut self) -> Result<Vec<u8>, ApiError> {
        while self.piece.len() < PIECE {
            match self.items.next().await {
                Some(item) => self.codec.encode_item(
                    self.representation,
                    &item?,
                    &self.place,
                    false,
                    &mut self.piece,
                )?,
                None => {
                    let suffix = self.suffix.take().unwrap_or_default();
                    self.piece.extend_from_slice(&suffix);
                    return Ok(std::mem::take(&mut self.piece));
                }
            }
        }
        Ok(std::mem::replace(
            &mut self.piece,
            Vec::with_capacity(PIECE + PIECE / 4),
        ))
    }
}
