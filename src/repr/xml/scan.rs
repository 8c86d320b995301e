//! The tokenizer of the fast path: tags, text and CDATA of the regular message, read straight
//! from the (already checked UTF-8) input, with no per-event validation or copying.
//!
//! It knows only the forms a regular message uses and declines everything else: a DOCTYPE, a
//! processing instruction after the prolog, a comment containing `--`, an end tag that does not
//! close the open element, a `<` in an attribute value, a carriage return in content, an unknown
//! entity. Declining is always safe (the reference reader reads the message again and words the
//! error), so every rule here errs on the side of declining; the differential tests and the fuzz
//! target `decode_xml` check that what it accepts reads to the same value through the reference.

use std::borrow::Cow;

use memchr::{memchr, memchr3};

use quick_xml::{
    XmlVersion,
    events::{BytesRef, attributes::Attribute},
    name::QName,
};

use super::{dom::resolve_reference, find_forbidden, stream::Decline};

/// A start tag: `<name attributes>` or `<name attributes/>`.
#[derive(Debug, Clone, Copy)]
pub struct Tag<'a> {
    pub name: &'a str,
    /// Everything between the name and the closing `>` or `/>`.
    pub attributes: &'a str,
    /// `<name/>`: no content and no end tag follow.
    pub empty: bool,
}

/// One token of the message; comments and the prolog's declaration and processing
/// instructions are skipped.
#[derive(Debug)]
pub enum Token<'a> {
    Start(Tag<'a>),
    /// The end tag of the innermost open element (its name has been checked).
    End,
    /// Character data as written: references unresolved, never empty.
    Text(&'a str),
    /// The content of a CDATA section.
    CData(&'a str),
    Eof,
}

/// The tokenizer, with the names of the open elements to check end tags against.
#[derive(Debug)]
pub struct Scanner<'a> {
    input: &'a str,
    position: usize,
    open: Vec<&'a str>,
    /// The root has started: processing instructions are no longer expected.
    started: bool,
}

/// White space as XML defines it (production `S`).
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Scanner<'a> {
    /// A tokenizer at the start of `input`.
    pub fn new(input: &'a str) -> Scanner<'a> {
        Scanner {
            input,
            position: 0,
            open: Vec::with_capacity(16),
            started: false,
        }
    }

    /// The next token.
    pub fn next(&mut self) -> Result<Token<'a>, Decline> {
        loop {
            // Every position is just after an ASCII byte, so slicing there cannot fail.
            let rest = self.input.get(self.position..).ok_or(Decline)?;
            let bytes = rest.as_bytes();
            let Some(&first) = bytes.first() else {
                return if self.open.is_empty() && self.started {
                    Ok(Token::Eof)
                } else {
                    Err(Decline)
                };
            };
            if first != b'<' {
                let end = memchr(b'<', bytes).unwrap_or(rest.len());
                self.position += end;
                return Ok(Token::Text(&rest[..end]));
            }
            match bytes.get(1) {
                Some(b'/') => {
                    let close = memchr(b'>', bytes).ok_or(Decline)?;
                    let name = rest[2..close].trim_end_matches([' ', '\t', '\n', '\r']);
                    if self.open.pop() != Some(name) {
                        return Err(Decline);
                    }
                    self.position += close + 1;
                    return Ok(Token::End);
                }
                Some(b'!') => {
                    if let Some(body) = rest.strip_prefix("<!--") {
                        let end = body.find("-->").ok_or(Decline)?;
                        let comment = &body[..end];
                        if comment.contains("--")
                            || comment.ends_with('-')
                            || comment.starts_with(['>', '-'])
                        {
                            return Err(Decline);
                        }
                        self.position += 4 + end + 3;
                        continue;
                    }
                    if let Some(body) = rest.strip_prefix("<![CDATA[")
                        && !self.open.is_empty()
                    {
                        let end = body.find("]]>").ok_or(Decline)?;
                        self.position += 9 + end + 3;
                        return Ok(Token::CData(&body[..end]));
                    }
                    return Err(Decline);
                }
                Some(b'?') => {
                    if self.started || !bytes.get(2).is_some_and(u8::is_ascii_alphabetic) {
                        return Err(Decline);
                    }
                    let end = rest.find("?>").ok_or(Decline)?;
                    self.position += end + 2;
                    continue;
                }
                _ => return self.start(rest),
            }
        }
    }

    /// A start tag at the beginning of `rest`.
    fn start(&mut self, rest: &'a str) -> Result<Token<'a>, Decline> {
        let bytes = rest.as_bytes();
        let name_end = bytes[1..]
            .iter()
            .position(|&byte| is_space(byte) || byte == b'/' || byte == b'>')
            .map(|offset| offset + 1)
            .ok_or(Decline)?;
        if name_end == 1 {
            return Err(Decline);
        }
        // The closing `>`, skipping quoted attribute values; a `<` anywhere in the tag declines.
        let mut at = name_end;
        let close = loop {
            let tail = bytes.get(at..).ok_or(Decline)?;
            at += memchr3(b'>', b'"', b'\'', tail).ok_or(Decline)?;
            let quote = bytes[at];
            if quote == b'>' {
                break at;
            }
            let length = memchr(quote, &bytes[at + 1..]).ok_or(Decline)?;
            at += length + 2;
        };
        if memchr(b'<', &bytes[name_end..close]).is_some() {
            return Err(Decline);
        }
        let empty = bytes[close - 1] == b'/';
        let attributes_end = if empty { close - 1 } else { close };
        let tag = Tag {
            name: &rest[1..name_end],
            attributes: rest.get(name_end..attributes_end).ok_or(Decline)?,
            empty,
        };
        if self.started && self.open.is_empty() {
            // A second root.
            return Err(Decline);
        }
        self.started = true;
        if !empty {
            self.open.push(tag.name);
        }
        self.position += close + 1;
        Ok(Token::Start(tag))
    }
}

/// The attributes of a start tag, in order, as `(name, raw value)`.
#[derive(Debug, Clone)]
pub struct Attributes<'a> {
    rest: &'a str,
}

impl<'a> Attributes<'a> {
    /// The attributes of `tag`.
    pub fn of(tag: &Tag<'a>) -> Attributes<'a> {
        Attributes {
            rest: tag.attributes,
        }
    }

    /// The next attribute; malformed syntax declines.
    pub fn next_raw(&mut self) -> Result<Option<(&'a str, &'a str)>, Decline> {
        let bytes = self.rest.as_bytes();
        let start = bytes
            .iter()
            .position(|&byte| !is_space(byte))
            .unwrap_or(bytes.len());
        if start == bytes.len() {
            return Ok(None);
        }
        if start == 0 {
            // Attributes are separated by white space.
            return Err(Decline);
        }
        let equals = start + memchr(b'=', &bytes[start..]).ok_or(Decline)?;
        let mut name_end = equals;
        while name_end > start && is_space(bytes[name_end - 1]) {
            name_end -= 1;
        }
        let name = &bytes[start..name_end];
        if name.is_empty()
            || name
                .iter()
                .any(|&byte| is_space(byte) || byte == b'"' || byte == b'\'')
        {
            return Err(Decline);
        }
        let mut open = equals + 1;
        while bytes.get(open).copied().is_some_and(is_space) {
            open += 1;
        }
        let quote = match bytes.get(open) {
            Some(quote @ (b'"' | b'\'')) => *quote,
            _ => return Err(Decline),
        };
        let close = open + 1 + memchr(quote, &bytes[open + 1..]).ok_or(Decline)?;
        let rest = self.rest;
        // Every boundary is at an ASCII byte, so these slices cannot fail.
        let name = rest.get(start..name_end).ok_or(Decline)?;
        let value = rest.get(open + 1..close).ok_or(Decline)?;
        self.rest = rest.get(close + 1..).ok_or(Decline)?;
        Ok(Some((name, value)))
    }

    /// The next attribute with its value normalized as XML 1.0 says (references resolved,
    /// line breaks and tabs as spaces).
    pub fn next(&mut self) -> Result<Option<(&'a str, Cow<'a, str>)>, Decline> {
        let Some((name, raw)) = self.next_raw()? else {
            return Ok(None);
        };
        Ok(Some((name, normalized(name, raw)?)))
    }
}

/// An attribute value as the reference reader reads it.
pub fn normalized<'a>(name: &'a str, raw: &'a str) -> Result<Cow<'a, str>, Decline> {
    if !raw
        .bytes()
        .any(|byte| matches!(byte, b'&' | b'<' | b'\t' | b'\n' | b'\r'))
    {
        return Ok(Cow::Borrowed(raw));
    }
    if raw.contains('<') {
        return Err(Decline);
    }
    let attribute = Attribute {
        key: QName(name),
        value: Cow::Borrowed(raw),
    };
    let value = attribute
        .normalized_value(XmlVersion::Implicit1_0)
        .map_err(|_| Decline)?;
    if find_forbidden(&value).is_some() {
        return Err(Decline);
    }
    Ok(value)
}

/// Character data with its references resolved; a carriage return (which XML would turn into a
/// line feed) declines.
pub fn content(raw: &str) -> Result<Cow<'_, str>, Decline> {
    if !raw.bytes().any(|byte| byte == b'&' || byte == b'\r') {
        return Ok(Cow::Borrowed(raw));
    }
    if raw.contains('\r') {
        return Err(Decline);
    }
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(ampersand) = rest.find('&') {
        text.push_str(&rest[..ampersand]);
        let after = &rest[ampersand + 1..];
        let end = after.find(';').ok_or(Decline)?;
        let name = &after[..end];
        if name.is_empty() || name.contains('&') {
            return Err(Decline);
        }
        text.push_str(&resolve_reference(&BytesRef::new(name)).map_err(|_| Decline)?);
        rest = &after[end + 1..];
    }
    text.push_str(rest);
    Ok(Cow::Owned(text))
}

/// CDATA content as the reference reader reads it: taken as written, but a carriage return
/// declines.
pub fn cdata(raw: &str) -> Result<&str, Decline> {
    if raw.contains('\r') {
        Err(Decline)
    } else {
        Ok(raw)
    }
}
