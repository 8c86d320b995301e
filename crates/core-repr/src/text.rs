//! Text helpers every codec shares: which characters a message may hold, name comparison, blank
//! text. A leaf module, so that the tree, the XML readers and the tokenizer depend on it and not
//! on one another.

/// The first character of `text` that XML 1.0 cannot carry, if any. Such characters are C0
/// controls (bytes below 0x20) and U+FFFE/U+FFFF (whose UTF-8 starts with 0xEF), so a byte scan
/// that the compiler vectorizes clears nearly every text before any character is decoded.
pub fn find_forbidden(text: &str) -> Option<char> {
    let suspicious = text.as_bytes().chunks(64).any(|chunk| {
        chunk.iter().fold(false, |found, &byte| {
            found
                | ((byte < 0x20) & (byte != b'\t') & (byte != b'\n') & (byte != b'\r'))
                | (byte == 0xEF)
        })
    });
    if !suspicious {
        return None;
    }
    text.chars().find(|ch| !is_xml_char(*ch))
}

/// A text the service writes into a message that quotes what a request sent (an unknown
/// property's name, a refused value): characters XML 1.0 cannot carry are written as `\u{…}`
/// escapes, and the text is cut at [`PRINTABLE_LENGTH`] characters, so that an error answer is
/// itself a valid message in every representation.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(PRINTABLE_LENGTH * 4));
    for (count, ch) in text.chars().enumerate() {
        if count == PRINTABLE_LENGTH {
            out.push('…');
            break;
        }
        if is_xml_char(ch) {
            out.push(ch);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", ch as u32));
        }
    }
    out
}

/// The most characters of a quoting text [`printable`] keeps.
pub const PRINTABLE_LENGTH: usize = 4096;

/// Whether XML 1.0 can carry the character (production `Char`).
pub fn is_xml_char(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// Name equality, inlined: names are short, and a call to `memcmp` for each candidate costs more
/// than the comparison.
#[inline]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// Text that may stand between elements: nothing but white space.
pub fn is_blank(text: &str) -> bool {
    text.bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
        || text.trim().is_empty()
}
