//! Text log lines a request cannot forge: what a request sent (a tid, a path) is quoted in log
//! lines, and a line break or another control character inside it would start a line of its own
//! in the text format. [`Stderr`] writes each line with such characters escaped (`\n`, `\u{1b}`);
//! the JSON format escapes them itself.

use std::io::Write;

use tracing_subscriber::fmt::MakeWriter;

/// Standard error, one escaped line per event; the text log format writes through it.
#[derive(Clone, Copy, Debug)]
pub struct Stderr {
    /// Whether the line is coloured: the escape character of its colours is then kept.
    pub ansi: bool,
}

impl<'a> MakeWriter<'a> for Stderr {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line {
            ansi: self.ansi,
            text: Vec::new(),
        }
    }
}

/// One event's line, gathered while it is formatted and written escaped when dropped.
#[derive(Debug)]
pub struct Line {
    ansi: bool,
    text: Vec<u8>,
}

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.text);
        let mut line = escaped(text.strip_suffix('\n').unwrap_or(&text), self.ansi);
        line.push('\n');
        // A log line that cannot be written is dropped, never a reason to stop serving.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// `line` with every control character and Unicode line break escaped (the escape character
/// kept when `ansi` colours the line).
pub fn escaped(line: &str, ansi: bool) -> String {
    let mut out = String::with_capacity(line.len());
    for ch in line.chars() {
        match ch {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push('\t'),
            '\u{1b}' if ansi => out.push(ch),
            ch if ch.is_control() || matches!(ch, '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{{{:x}}}", ch as u32))
            }
            ch => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escaped;

    #[test]
    fn control_characters_and_line_breaks_are_escaped() {
        assert_eq!(
            escaped("tid '/a\nINFO forged'\r\u{1b}[1m\u{2028}\u{85}\tx", false),
            "tid '/a\\nINFO forged'\\r\\u{1b}[1m\\u{2028}\\u{85}\tx"
        );
        assert_eq!(
            escaped("\u{1b}[2mINFO\u{1b}[0m", true),
            "\u{1b}[2mINFO\u{1b}[0m"
        );
        assert_eq!(escaped("plain text: äö €", false), "plain text: äö €");
    }
}
