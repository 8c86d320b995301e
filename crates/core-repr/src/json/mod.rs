//! JSON text into the tree, refusing what serde_json would accept silently: a key repeated in
//! one object (serde_json keeps the last). This is the reference reader; the regular message is
//! read straight into its typed value by the fast path (`stream`), which declines everything else.

use std::{cell::RefCell, fmt};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

mod check;
pub mod stream;

pub use check::{first_error, rewrite_compact};

use super::{
    Limits,
    error::{DecodeError, Problem},
    path::Path,
};

/// The root property that namespaces occupy in XML; ignored in JSON input (D-07).
pub const XMLNS: &str = "xmlns";

/// Parses a JSON body into the tree; the root's `xmlns`, if any, is dropped (D-07).
pub fn parse(bytes: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
    let text = prelude(bytes)?;
    let state = State {
        duplicate: RefCell::new(None),
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let result = TreeSeed { state: &state }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    let mut value = result.map_err(|error| failed(&error, state.duplicate.take(), limits))?;
    if let Value::Object(object) = &mut value {
        object.shift_remove(XMLNS);
    }
    Ok(value)
}

/// What every JSON reader refuses before it parses: an empty body, a body that is not UTF-8.
fn prelude(bytes: &[u8]) -> Result<&str, DecodeError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::whole(Problem::Empty));
    }
    std::str::from_utf8(bytes).map_err(|error| {
        DecodeError::whole(Problem::InvalidUtf8 {
            offset: error.valid_up_to(),
        })
    })
}

/// The error of a parse that stopped: the repeated key it met, if that is why, else the
/// parser's own.
fn failed(error: &serde_json::Error, duplicate: Option<Duplicate>, limits: &Limits) -> DecodeError {
    if let Some(duplicate) = duplicate {
        return DecodeError::at(duplicate.path(), Problem::Duplicate(duplicate.key));
    }
    // serde_json stops at 128 levels, deeper than our limit: report it as the same problem.
    if error.to_string().starts_with("recursion limit exceeded") {
        return DecodeError::whole(Problem::TooDeep {
            limit: limits.max_depth,
        });
    }
    DecodeError::whole(Problem::Malformed(error.to_string()))
}

/// The first repeated key found. Its path is collected while the error travels back up, so a
/// valid body costs nothing for it.
struct State {
    duplicate: RefCell<Option<Duplicate>>,
}

struct Duplicate {
    key: String,
    /// Path segments from the innermost outwards: property names and item indexes (from 0).
    segments: Vec<Segment>,
}

#[derive(Clone)]
enum Segment {
    Property(String),
    Item(usize),
}

impl Duplicate {
    fn path(&self) -> String {
        let mut path = Path::new();
        let mut pending: Option<&str> = None;
        for segment in self.segments.iter().rev() {
            match segment {
                Segment::Property(name) => {
                    if let Some(name) = pending.take() {
                        path.push(name);
                    }
                    pending = Some(name);
                }
                Segment::Item(index) => match pending.take() {
                    Some(name) => path.push_item(name, *index),
                    None => path.push(&format!("[{}]", index + 1)),
                },
            }
        }
        if let Some(name) = pending {
            path.push(name);
        }
        path.as_str().to_string()
    }
}

impl State {
    /// Adds a segment to the path of a duplicate found below it.
    fn unwinding(&self, segment: Segment) {
        if let Some(duplicate) = self.duplicate.borrow_mut().as_mut() {
            duplicate.segments.push(segment);
        }
    }
}

#[derive(Clone, Copy)]
struct TreeSeed<'a> {
    state: &'a State,
}

impl<'de> DeserializeSeed<'de> for TreeSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TreeSeed<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut sequence: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(sequence.size_hint().unwrap_or(0).min(1024));
        loop {
            match sequence.next_element_seed(self) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {
                    // The tree of a large message is held while it is checked and converted:
                    // keep no spare capacity.
                    items.shrink_to_fit();
                    return Ok(Value::Array(items));
                }
                Err(error) => {
                    self.state.unwinding(Segment::Item(items.len()));
                    return Err(error);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        // Entries are gathered first so that the object is allocated at its exact size; a key
        // given twice shows as an object shorter than its entries.
        let mut gathered: Vec<(String, Value)> = Vec::new();
        while let Some(key) = entries.next_key::<String>()? {
            match entries.next_value_seed(self) {
                Ok(value) => gathered.push((key, value)),
                Err(error) => {
                    self.state.unwinding(Segment::Property(key));
                    return Err(error);
                }
            }
        }
        let mut object = Map::with_capacity(gathered.len());
        let mut first_repeated = None;
        for (key, value) in gathered {
            if first_repeated.is_none() && object.contains_key(&key) {
                first_repeated = Some(key.clone());
            }
            object.insert(key, value);
        }
        if let Some(key) = first_repeated {
            let message = format!("duplicate key '{key}'");
            *self.state.duplicate.borrow_mut() = Some(Duplicate {
                key,
                segments: Vec::new(),
            });
            return Err(de::Error::custom(message));
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_where_it_is() {
        let error = parse(
            br#"{"kwds":{"kwd":[{"id":1},{"id":2,"id":3}]}}"#,
            &Limits::default(),
        )
        .expect_err("refused");
        assert_eq!(error.to_string(), "kwds/kwd[2]: 'id' occurs more than once");
    }

    #[test]
    fn the_root_xmlns_is_dropped_and_trailing_text_refused() {
        let value = parse(br#"{"xmlns":"urn:x","kwds":{}}"#, &Limits::default()).expect("parses");
        assert_eq!(value, serde_json::json!({"kwds": {}}));
        assert!(parse(br#"{} x"#, &Limits::default()).is_err());
    }
}
