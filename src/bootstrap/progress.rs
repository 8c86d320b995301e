//! What a load reports as it goes (`core-server import` draws it): per record kind, in the order
//! the load writes them, how many of the document's records of that kind are written.

/// Receives a load's progress.
pub trait Progress: Send {
    /// The load starts writing `total` records of `kind` (the document's own, not counting the
    /// names, versions or links inside them).
    fn start(&mut self, kind: &'static str, total: u64);
    /// `count` more records of the current kind are written.
    fn advance(&mut self, count: u64);
    /// Every record of the current kind is written.
    fn finish(&mut self);
}

/// Reports nothing: `serve --bootstrap`, the demo, and embedding.
#[derive(Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&mut self, _kind: &'static str, _total: u64) {}
    fn advance(&mut self, _count: u64) {}
    fn finish(&mut self) {}
}
