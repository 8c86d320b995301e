//! Streamed answers (`x-streamed`, D-59): the items of the answer's long collection are written
//! as they are read, in pieces of about [`PIECE`] bytes, in chunked transfer.
//!
//! Nothing is sent before the first piece is written: a failure before it (no connection, an
//! unknown record, the first rows) is answered as any other, and an answer that fits in one piece
//! goes whole with its `Content-Length`. A longer one goes in chunked transfer: a failure after
//! its status line, of the database or of the writer, cuts the connection without the closing
//! chunk, so that no client takes the answer it has read for a whole one.

use std::sync::Arc;

use core_api_support::{Described, Entry, Host, Streamed};
use futures_util::{StreamExt, stream::BoxStream};
use poem::{Body, Response};
use serde::Serialize;

use super::frames::Kind;
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
    I: Serialize + Send + 'static,
{
    let Streamed {
        envelope,
        collection,
        mut items,
    } = value;
    let Some(first) = items.next().await else {
        // No item: the whole answer, its collection empty, as any other.
        return service.respond(context, envelope);
    };
    let first = first?;
    let (place, children) = places::<T>(context, collection)?;
    if first.depth != 0 {
        return Err(misplaced(context, "the first item is a child").into());
    }
    let representation = context.response.representation;
    let codec = service.codec.clone();
    let frame = frame_of::<T, I>(
        service,
        context,
        collection,
        &envelope,
        (&first.item, &place),
    )?;
    let (prefix, suffix) = (frame.prefix.clone(), frame.suffix.clone());
    let mut pieces = Pieces {
        items,
        codec,
        representation,
        children,
        levels: vec![Level {
            place,
            suffix,
            first: true,
        }],
        pending: Some(first),
        piece: prefix,
    };
    // Nothing is sent before the first piece: an answer that fits in it goes whole, with its
    // length, and a failure before it is answered as any other.
    let first = pieces.next().await?;
    let answer = Response::builder().content_type(context.response.name);
    if pieces.levels.is_empty() {
        return Ok(answer.body(first));
    }
    Ok(answer.body(Body::from_bytes_stream(pieces.into_stream(first))))
}

/// The answer cut around its first item: the frame kept for the same envelope (`frames`), or
/// the one its codec cuts.
fn frame_of<T: Serialize + Described, I: Serialize>(
    service: &Service,
    context: &Context,
    collection: usize,
    envelope: &T,
    (first, place): (&I, &Place),
) -> Result<Arc<Frame>, EncodeError> {
    let representation = context.response.representation;
    let cut = || {
        let mut item = Vec::new();
        let codec = &service.codec;
        codec.encode_item(representation, first, place, true, &mut item)?;
        codec.frame(representation, envelope, T::SCHEMA, place, (first, &item))
    };
    let kind = Kind {
        operation: context.operation.id,
        collection,
        representation,
    };
    match serde_json::to_vec(envelope) {
        Ok(key) => service.frames.frame(kind, key, cut),
        Err(_) => cut().map(Arc::new),
    }
}

/// The place of the streamed collection the answer fills, and of its items' children for a
/// tree.
fn places<T: Described>(
    context: &Context,
    collection: usize,
) -> Result<(Place, Option<&'static [&'static str]>), EncodeError> {
    let streamed = context
        .operation
        .response
        .streamed
        .get(collection)
        .ok_or_else(|| misplaced(context, "has no such streamed collection"))?;
    let place = Place::find(T::SCHEMA, streamed.path)
        .ok_or_else(|| misplaced(context, "has no streamed collection there"))?;
    if let Some(children) = streamed.children {
        place
            .children(children)
            .ok_or_else(|| misplaced(context, "has no child collection there"))?;
    }
    Ok((place, streamed.children))
}

/// The fault of a streamed answer that does not fit its operation's `x-streamed`.
fn misplaced(context: &Context, reason: &str) -> EncodeError {
    EncodeError {
        path: String::new(),
        reason: format!("{}: {reason}", context.operation.id),
    }
}

/// A collection being written: the streamed one, or an item's children inside it.
struct Level {
    /// Where its items go.
    place: Place,
    /// What comes after its last item.
    suffix: Vec<u8>,
    /// Whether no item of it was written yet.
    first: bool,
}

/// What is left to write of a streamed answer.
struct Pieces<I> {
    items: BoxStream<'static, Result<Entry<I>, ApiError>>,
    codec: Codec,
    representation: core_api_support::Representation,
    /// For a tree, the path of an item's child collection inside it.
    children: Option<&'static [&'static str]>,
    /// The collections open, the streamed one first, each item's children after; an item at
    /// depth d goes into the collection at d. Empty once the answer's end is written.
    levels: Vec<Level>,
    /// The last item read, not yet written: whether it has children is known from the next.
    pending: Option<Entry<I>>,
    /// The bytes written and not yet handed over.
    piece: Vec<u8>,
}

impl<I: Serialize + Send + 'static> Pieces<I> {
    /// The answer as pieces of bytes, from its `first`; an error ends it without its end.
    fn into_stream(self, first: Vec<u8>) -> BoxStream<'static, Result<Vec<u8>, std::io::Error>> {
        let rest = futures_util::stream::unfold(self, |mut pieces| async move {
            if pieces.levels.is_empty() {
                return None;
            }
            match pieces.next().await {
                Ok(piece) => Some((Ok(piece), pieces)),
                Err(error) => {
                    tracing::error!(%error, "a streamed answer was cut off");
                    pieces.levels.clear();
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
                Some(entry) => self.write(entry?)?,
                None => {
                    self.finish()?;
                    return Ok(std::mem::take(&mut self.piece));
                }
            }
        }
        Ok(std::mem::replace(
            &mut self.piece,
            Vec::with_capacity(PIECE + PIECE / 4),
        ))
    }

    /// Writes the pending item, now that `next` tells whether it has children, and keeps `next`.
    fn write(&mut self, next: Entry<I>) -> Result<(), EncodeError> {
        let depth = next.depth;
        let Some(pending) = self.pending.replace(next) else {
            return Err(self.fault("an item came after the answer's end"));
        };
        if depth > pending.depth + 1 {
            return Err(self.fault("an item is deeper than a child of the one before"));
        }
        if depth == pending.depth + 1 {
            return self.open(pending);
        }
        self.leaf(pending)?;
        self.close(depth + 1);
        Ok(())
    }

    /// Writes what comes before the children of `parent`, whose first child is pending, and opens
    /// its child collection.
    fn open(&mut self, parent: Entry<I>) -> Result<(), EncodeError> {
        let (Some(children), Some(child)) = (self.children, self.pending.as_ref()) else {
            return Err(self.fault("an item of a list has children"));
        };
        let Some(level) = self.levels.get_mut(parent.depth) else {
            return Err(EncodeError {
                path: String::new(),
                reason: "an item is deeper than the collections open".into(),
            });
        };
        let place = level.place.children(children).ok_or_else(|| EncodeError {
            path: children.join("/"),
            reason: "no child collection".into(),
        })?;
        let mut written = Vec::new();
        self.codec
            .encode_item(self.representation, &child.item, &place, true, &mut written)?;
        let Frame { prefix, suffix } = self.codec.frame_item(
            self.representation,
            (&parent.item, &level.place),
            &place,
            (&child.item, &written),
        )?;
        self.codec
            .separate(self.representation, level.first, &mut self.piece);
        level.first = false;
        self.piece.extend_from_slice(&prefix);
        self.levels.push(Level {
            place,
            suffix,
            first: true,
        });
        Ok(())
    }

    /// Writes `item`, which has no children, into its collection.
    fn leaf(&mut self, item: Entry<I>) -> Result<(), EncodeError> {
        let Some(level) = self.levels.get_mut(item.depth) else {
            return Err(EncodeError {
                path: String::new(),
                reason: "an item is deeper than the collections open".into(),
            });
        };
        self.codec.encode_item(
            self.representation,
            &item.item,
            &level.place,
            level.first,
            &mut self.piece,
        )?;
        level.first = false;
        Ok(())
    }

    /// Closes the collections from `keep` on, writing their ends: the answer's own at 0.
    fn close(&mut self, keep: usize) {
        while self.levels.len() > keep {
            if let Some(level) = self.levels.pop() {
                self.piece.extend_from_slice(&level.suffix);
            }
        }
    }

    /// Writes the last item and every end.
    fn finish(&mut self) -> Result<(), EncodeError> {
        if let Some(last) = self.pending.take() {
            self.leaf(last)?;
        }
        self.close(0);
        Ok(())
    }

    /// The fault of items out of order.
    fn fault(&self, reason: &str) -> EncodeError {
        EncodeError {
            path: String::new(),
            reason: reason.into(),
        }
    }
}
