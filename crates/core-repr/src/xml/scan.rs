//! The tokenizer of the fast path: tags, text and CDATA of the regular message, read straight
//! from the (already checked UTF-8) input, with no per-event validation or copying.
//!
//! A start tag's attributes are read in the same pass as its name and held until the next start
//! tag, so no tag is scanned twice.
//!
//! It knows only the forms a regular message uses and declines everything else: a DOCTYPE, a
//! processing instruction after the prolog, a comment containing `--`, an end tag that does not
//! close the open element, a prefixed element or attribute name, an attribute without a quoted
//! value or without white space before it, a `<` in an attribute value, a carriage return in
//! content, an unknown entity. Declining is always safe (the reference reader reads the message
//! again and words the error), so every rule here errs on the side of declining; the
//! differential tests and the fuzz target `decode_xml` check that what it accepts reads to the
//! same value through the reference.

use std::borrow::Cow;

use memchr::memchr;

use quick_xml::{
    XmlVersion,
    events::{BytesRef, attributes::Attribute},
    name::QName,
};

use serde::de;

use super::dom::push_reference;
use crate::text::{find_forbidden, same};

/// The fast path declines (the reason does not matter: the reference reader finds it again).
#[derive(Debug)]
pub struct Decline;

impl std::fmt::Display for Decline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a regular message")
    }
}

impl std::error::Error for Decline {}

impl de::Error for Decline {
    fn custom<T: std::fmt::Display>(_message: T) -> Decline {
        Decline
    }
}

/// A start tag: `<name attributes>` or `<name attributes/>`. Its attributes are held by the
/// scanner until the next start tag (`Scanner::attribute`).
#[derive(Debug, Clone, Copy)]
pub struct Tag<'a> {
    /// The element name, without a prefix (a prefixed name declines).
    pub name: &'a str,
    /// `<name/>`: no content and no end tag follow.
    pub empty: bool,
    /// Which start tag of the message this is, to find its attributes.
    serial: u32,
}

/// One attribute of the latest start tag, as written.
#[derive(Debug, Clone, Copy)]
pub struct RawAttribute<'a> {
    /// The attribute name, without a prefix (a prefixed name declines).
    pub name: &'a str,
    /// The value between the quotes, references unresolved.
    raw: &'a str,
    /// The value holds no reference and no white space that normalization would change.
    plain: bool,
}

impl<'a> RawAttribute<'a> {
    /// The value normalized as XML 1.0 says (references resolved, line breaks and tabs as
    /// spaces), as the reference reader reads it.
    pub fn value(&self) -> Result<Cow<'a, str>, Decline> {
        if self.plain {
            return Ok(Cow::Borrowed(self.raw));
        }
        // The tokenizer has declined any `<` in a value.
        let attribute = Attribute {
            key: QName(self.name),
            value: Cow::Borrowed(self.raw),
        };
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|_| Decline)?;
        if find_forbidden(&value).is_some() {
            return Err(Decline);
        }
        Ok(value)
    }
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
    /// The attributes of the latest start tag.
    attributes: Vec<RawAttribute<'a>>,
    /// The serial number of the latest start tag.
    serial: u32,
}

/// White space as XML defines it (production `S`).
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The offset of the first byte at or after `at` that is not white space.
fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).copied().is_some_and(is_space) {
        at += 1;
    }
    at
}

/// The offset of the first byte at or after `at` that ends an element or attribute name (a `:`
/// among them, so that a prefixed name stops short and declines).
fn name_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&byte| {
        !matches!(
            byte,
            b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'>' | b'=' | b'"' | b'\'' | b'<' | b':'
        )
    }) {
        at += 1;
    }
    at
}

/// The offset of the first `<`: a byte loop over the short runs of a message's text and
/// indentation, `memchr` beyond them.
fn find_open(bytes: &[u8]) -> Option<usize> {
    const SHORT: usize = 48;
    let head = &bytes[..bytes.len().min(SHORT)];
    if let Some(offset) = head.iter().position(|&byte| byte == b'<') {
        return Some(offset);
    }
    memchr(b'<', bytes.get(SHORT..)?).map(|offset| offset + SHORT)
}

impl<'a> Scanner<'a> {
    /// A tokenizer at the start of `input`.
    pub fn new(input: &'a str) -> Scanner<'a> {
        Scanner {
            input,
            position: 0,
            open: Vec::with_capacity(16),
            started: false,
            attributes: Vec::with_capacity(16),
            serial: 0,
        }
    }

    /// Skips white space, where a text token could only be blank and would be skipped anyway.
    pub fn skip_space(&mut self) {
        self.position = skip_spaces(self.input.as_bytes(), self.position);
    }

    /// The attributes of `tag`, in order; `tag` must be the latest start tag.
    pub fn attributes(&self, tag: &Tag<'a>) -> Result<&[RawAttribute<'a>], Decline> {
        if tag.serial != self.serial {
            return Err(Decline);
        }
        Ok(&self.attributes)
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
                let end = find_open(bytes).unwrap_or(rest.len());
                self.position += end;
                return Ok(Token::Text(&rest[..end]));
            }
            match bytes.get(1) {
                Some(b'/') => return self.end(rest),
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

    /// An end tag at the beginning of `rest`, which must close the innermost open element.
    fn end(&mut self, rest: &'a str) -> Result<Token<'a>, Decline> {
        let bytes = rest.as_bytes();
        let open = self.open.pop().ok_or(Decline)?;
        let length = open.len();
        // `</name>`, compared in place; anything else (white space before `>`) the long way.
        if bytes.get(2 + length) == Some(&b'>')
            && rest.get(2..2 + length).is_some_and(|name| same(name, open))
        {
            self.position += length + 3;
            return Ok(Token::End);
        }
        let close = memchr(b'>', bytes).ok_or(Decline)?;
        let name = rest[2..close].trim_end_matches([' ', '\t', '\n', '\r']);
        if name != open {
            return Err(Decline);
        }
        self.position += close + 1;
        Ok(Token::End)
    }

    /// A start tag at the beginning of `rest`, its attributes read into `attributes` in the same
    /// pass. A prefixed element or attribute name, an attribute without white space before it
    /// or without a quoted value, and a `<` anywhere in the tag decline.
    fn start(&mut self, rest: &'a str) -> Result<Token<'a>, Decline> {
        let bytes = rest.as_bytes();
        let mut at = name_end(bytes, 1);
        if at == 1
            || !matches!(
                bytes.get(at),
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'>')
            )
        {
            return Err(Decline);
        }
        let name = rest.get(1..at).ok_or(Decline)?;
        self.serial = self.serial.wrapping_add(1);
        self.attributes.clear();
        let empty = loop {
            let before = at;
            at = skip_spaces(bytes, at);
            match bytes.get(at) {
                Some(b'>') => break false,
                Some(b'/') if bytes.get(at + 1) == Some(&b'>') => {
                    at += 1;
                    break true;
                }
                // Attributes are separated by white space.
                Some(_) if at > before => {}
                _ => return Err(Decline),
            }
            let name_start = at;
            let name_stop = name_end(bytes, at);
            at = skip_spaces(bytes, name_stop);
            if name_stop == name_start || bytes.get(at) != Some(&b'=') {
                return Err(Decline);
            }
            at = skip_spaces(bytes, at + 1);
            let quote = match bytes.get(at) {
                Some(quote @ (b'"' | b'\'')) => *quote,
                _ => return Err(Decline),
            };
            at += 1;
            let value_start = at;
            let mut plain = true;
            loop {
                match bytes.get(at) {
                    Some(&byte) if byte == quote => break,
                    Some(b'<') | None => return Err(Decline),
                    Some(b'&' | b'\t' | b'\n' | b'\r') => plain = false,
                    Some(_) => {}
                }
                at += 1;
            }
            // Every boundary is at an ASCII byte, so these slices cannot fail.
            self.attributes.push(RawAttribute {
                name: rest.get(name_start..name_stop).ok_or(Decline)?,
                raw: rest.get(value_start..at).ok_or(Decline)?,
                plain,
            });
            at += 1;
        };
        if self.started && self.open.is_empty() {
            // A second root.
            return Err(Decline);
        }
        self.started = true;
        if !empty {
            self.open.push(name);
        }
        self.position += at + 1;
        Ok(Token::Start(Tag {
            name,
            empty,
            serial: self.serial,
        }))
    }
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
        push_reference(&BytesRef::new(name), &mut text).map_err(|_| Decline)?;
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
