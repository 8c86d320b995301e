//! The frames of streamed answers, kept for the next answer of the same kind (issue 33).
//!
//! Cutting an answer around its first item (`Codec::frame`) writes the whole envelope through
//! the tree and searches the result: about a tenth of a short streamed read (keywords,
//! channels). A frame depends on its envelope alone: the first item is cut out of it, and
//! every item after it goes between the same prefix and suffix. Answers of one operation share
//! their envelope for as long as its `messageTime` (to the millisecond) is the same, so under
//! load most answers find their frame kept, and an idle server only pays for the envelope's
//! JSON, the key. One frame is kept per [`Kind`], so what is kept is bounded by the operations.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
};

use core_api_support::Representation;

use crate::repr::stream::Frame;

/// Which answers may share a frame: an operation's, for one of its streamed collections, in one
/// representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Kind {
    /// The operation's id.
    pub operation: &'static str,
    /// The streamed collection the answer fills (an index into the operation's `x-streamed`).
    pub collection: usize,
    /// The representation of the answer.
    pub representation: Representation,
}

/// A kept frame and the envelope it was cut from, as JSON.
#[derive(Debug)]
struct Kept {
    envelope: Vec<u8>,
    frame: Arc<Frame>,
}

/// The last frame cut for each kind of streamed answer.
#[derive(Debug, Default)]
pub struct Frames {
    kept: Mutex<HashMap<Kind, Kept>>,
}

impl Frames {
    /// The frame of an answer of `kind` whose envelope is `envelope` (its JSON): the one kept
    /// when it was cut from the same envelope, else the one `cut` gives, which is kept instead.
    pub(crate) fn frame<E>(
        &self,
        kind: Kind,
        envelope: Vec<u8>,
        cut: impl FnOnce() -> Result<Frame, E>,
    ) -> Result<Arc<Frame>, E> {
        if let Some(kept) = self.lock().get(&kind)
            && kept.envelope == envelope
        {
            return Ok(Arc::clone(&kept.frame));
        }
        // Cut without the lock: another answer's lookup never waits for a cut.
        let frame = Arc::new(cut()?);
        let kept = Kept {
            envelope,
            frame: Arc::clone(&frame),
        };
        self.lock().insert(kind, kept);
        Ok(frame)
    }

    /// The kept frames; a panic while they were held left them whole (each is replaced in one
    /// step), so a poisoned lock is taken as it is.
    fn lock(&self) -> MutexGuard<'_, HashMap<Kind, Kept>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    const KIND: Kind = Kind {
        operation: "keywordsRetrieve",
        collection: 0,
        representation: Representation::Json,
    };

    fn cut(prefix: &str) -> Result<Frame, Infallible> {
        Ok(Frame {
            prefix: prefix.as_bytes().to_vec(),
            suffix: b"]}".to_vec(),
        })
    }

    #[test]
    fn a_frame_is_kept_for_the_same_envelope_only() {
        let frames = Frames::default();
        let first = frames.frame(KIND, b"{\"a\":1}".to_vec(), || cut("one"));
        let again = frames.frame(KIND, b"{\"a\":1}".to_vec(), || cut("not cut again"));
        assert_eq!(again.map(|frame| frame.prefix.clone()), Ok(b"one".to_vec()));
        assert!(first.is_ok());
        let other = frames.frame(KIND, b"{\"a\":2}".to_vec(), || cut("two"));
        assert_eq!(other.map(|frame| frame.prefix.clone()), Ok(b"two".to_vec()));
        let xml = Kind {
            representation: Representation::Xml,
            ..KIND
        };
        let elsewhere = frames.frame(xml, b"{\"a\":2}".to_vec(), || cut("xml"));
        assert_eq!(
            elsewhere.map(|frame| frame.prefix.clone()),
            Ok(b"xml".to_vec())
        );
    }

    #[test]
    fn a_failed_cut_keeps_nothing() {
        let frames = Frames::default();
        let failed = frames.frame(KIND, b"{}".to_vec(), || Err("ambiguous"));
        assert_eq!(failed.map(|_| ()), Err("ambiguous"));
        let then = frames.frame(KIND, b"{}".to_vec(), || cut("cut"));
        assert_eq!(then.map(|frame| frame.prefix.clone()), Ok(b"cut".to_vec()));
    }
}
