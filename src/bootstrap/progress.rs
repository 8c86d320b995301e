//! What a load reports as it goes (`core-server import` draws it): per record kind, in the order
//! the load writes them, how many of the document's records of that kind are written; `migrate`
//! reports its tables the same way.

use std::io::Write;

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

/// Draws the progress of an import or a migrate on standard error: a bar per kind of record (a
/// table for migrate) on a terminal, which stays with its count when the kind is written;
/// elsewhere one line per kind once it is written. Kinds with no records are not shown.
pub struct Bars {
    terminal: bool,
    kind: &'static str,
    total: u64,
    bar: Option<indicatif::ProgressBar>,
}

impl Bars {
    /// Bars on a terminal, lines elsewhere.
    pub fn new() -> Bars {
        Bars {
            terminal: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            kind: "",
            total: 0,
            bar: None,
        }
    }
}

impl Progress for Bars {
    fn start(&mut self, kind: &'static str, total: u64) {
        self.kind = kind;
        self.total = total;
        if self.terminal && total > 0 {
            let style = indicatif::ProgressStyle::with_template(
                "{prefix:>15} [{bar:40}] {pos}/{len} ({elapsed})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> ");
            let bar = indicatif::ProgressBar::new(total)
                .with_style(style)
                .with_prefix(kind);
            self.bar = Some(bar);
        }
    }

    fn advance(&mut self, count: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(count);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.set_position(self.total);
            bar.finish();
        } else if self.total > 0 {
            // A closed stream is ignored (unlike `eprintln!`, which panics).
            let _ = writeln!(
                std::io::stderr(),
                "core-server: {}: {} written",
                self.kind,
                self.total
            );
        }
    }
}

impl Default for Bars {
    fn default() -> Bars {
        Bars::new()
    }
}
