//! The error the reference reader (`parse`, then `tree::check`) reports for a JSON body, found in
//! one pass over the text without building the tree: what the server answers when the fast path
//! declines a body.
//!
//! The reference reports the parser's error first (the text's syntax, a repeated key, the
//! nesting limit), then the first error of `tree::check`, which meets an object's fields in table
//! order, whatever the order of its properties. The text comes in document order, so this walk
//! reads on past an error to the end of the body: each value gives its own first error, and an
//! object chooses among its properties' at its end, as `tree::check` would have chosen (`object`).
//! A parser's error stops the walk, as it stops the reference.

use std::{borrow::Cow, cell::RefCell, fmt};

use core_api_support::{Field, Kind, Scalar, Schema, Type};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::{Duplicate, Segment, failed, prelude, stream::rules::Fact};
use crate::{
    Limits, constraints,
    error::{DecodeError, Problem},
    path::Path,
    text::find_forbidden,
    tree::scalar_name,
};

mod compact;
mod object;

pub use compact::rewrite_compact;

/// The error the reference reader reports for a JSON body of `schema`, if it reports one before
/// the typed conversion (whose errors, enumerations', are not looked for here).
pub fn first_error(bytes: &[u8], schema: &'static Schema, limits: &Limits) -> Option<DecodeError> {
    let text = match prelude(bytes) {
        Ok(text) => text,
        Err(error) => return Some(error),
    };
    let pass = |walk: &Walk| {
        let look = Look {
            walk,
            expect: Expect::Schema {
                schema,
                depth: 0,
                root: true,
            },
            rules: true,
            noted: false,
        };
        let mut deserializer = serde_json::Deserializer::from_str(text);
        look.deserialize(&mut deserializer)
            .and_then(|verdict| deserializer.end().map(|()| verdict))
    };
    match Walk::twice(limits, pass) {
        Ok(verdict) => verdict.error,
        Err(error) => Some(error),
    }
}

/// What the walk keeps as it reads.
struct Walk {
    /// Where the value read stands, as errors name it (the schema's names, items from 1).
    path: RefCell<Path>,
    /// Where it stands in the text (the keys given): what names a repeated key's object. Kept
    /// only when `track`.
    text: RefCell<Vec<Segment>>,
    /// The repeated key that stopped the parse, if one did.
    duplicate: RefCell<Option<Duplicate>>,
    max_depth: usize,
    /// Whether `text` is kept: only by a second pass over a body with a repeated key, so that
    /// the first costs no copy of every key.
    track: bool,
}

impl Walk {
    fn new(max_depth: usize, track: bool) -> Walk {
        Walk {
            path: RefCell::new(Path::new()),
            text: RefCell::new(Vec::new()),
            duplicate: RefCell::new(None),
            max_depth,
            track,
        }
    }

    /// Runs `pass` over a body; when a repeated key stops it, runs it again keeping where each
    /// value stands in the text, to name the repeated key's object. A stopped pass gives the
    /// parser's error as the reference words it.
    fn twice<T>(
        limits: &Limits,
        pass: impl Fn(&Walk) -> Result<T, serde_json::Error>,
    ) -> Result<T, DecodeError> {
        let walk = Walk::new(limits.max_depth, false);
        let error = match pass(&walk) {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        if walk.duplicate.borrow().is_none() {
            return Err(failed(&error, None, limits));
        }
        let walk = Walk::new(limits.max_depth, true);
        match pass(&walk) {
            Ok(value) => Ok(value),
            Err(error) => Err(failed(&error, walk.duplicate.take(), limits)),
        }
    }

    /// Notes that the value read next stands at `segment` of the text, when tracking.
    fn enter(&self, segment: impl FnOnce() -> Segment) {
        if self.track {
            self.text.borrow_mut().push(segment());
        }
    }

    /// Returns from a value [`Walk::enter`] noted.
    fn leave(&self) {
        if self.track {
            self.text.borrow_mut().pop();
        }
    }

    /// A problem of the value read.
    fn error(&self, problem: Problem) -> DecodeError {
        DecodeError::at(self.path.borrow().as_str(), problem)
    }

    /// A problem of the property `name` of the object read.
    fn error_in(&self, name: &str, problem: Problem) -> DecodeError {
        DecodeError::at(self.path.borrow().child(name), problem)
    }
}

/// What a value gave: its first error, and what an object's rules see of it (when they look).
struct Verdict {
    error: Option<DecodeError>,
    fact: Fact,
}

/// What `tree::check` asks of a value.
#[derive(Clone, Copy)]
enum Expect {
    /// A value of a schema (`tree::check`'s `schema`): the depth limit, then the schema's kind.
    Schema {
        schema: &'static Schema,
        depth: usize,
        /// The body's root object, whose `xmlns` is dropped (D-07).
        root: bool,
    },
    /// A scalar of a property, held to its constraints.
    Scalar {
        scalar: Scalar,
        field: &'static Field,
    },
    /// A repeated property's array, the object holding it being at `depth`.
    List { field: &'static Field, depth: usize },
    /// A value no check looks into, read for its syntax and repeated keys only.
    Anything,
}

impl Expect {
    /// What is asked of one value of `field` (an item, when it is repeated), its object being at
    /// `depth`.
    fn of(field: &'static Field, depth: usize) -> Expect {
        match field.ty {
            Type::Scalar(scalar) => Expect::Scalar { scalar, field },
            Type::Object(schema) => Expect::Schema {
                schema,
                depth: depth + 1,
                root: false,
            },
        }
    }
}

/// One value read and checked against what is expected of it.
#[derive(Clone, Copy)]
struct Look<'w> {
    walk: &'w Walk,
    expect: Expect,
    /// Whether the rules of the objects met are asked (not inside a batch item).
    rules: bool,
    /// Whether the rules of the object holding the value look at it: what they see of it is
    /// kept ([`Verdict::fact`]), else nothing is.
    noted: bool,
}

impl<'w> Look<'w> {
    /// A value read for its syntax and repeated keys only.
    fn anything(walk: &'w Walk) -> Look<'w> {
        Look {
            walk,
            expect: Expect::Anything,
            rules: false,
            noted: false,
        }
    }

    /// The error of a value that is not the object or array the walk would look into.
    fn mismatch(&self, found: Found<'_>) -> Option<DecodeError> {
        let walk = self.walk;
        let problem = match self.expect {
            Expect::Schema { depth, .. } if depth > walk.max_depth => Problem::TooDeep {
                limit: walk.max_depth,
            },
            Expect::Schema { schema, .. } => match schema.resolve().kind {
                Kind::Scalar(scalar) => type_problem(found, scalar)?,
                _ => found.wrong("object"),
            },
            Expect::Scalar { scalar, field } => scalar_problem(found, scalar, field)?,
            Expect::List { field, .. } => {
                return Some(walk.error_in(field.name, found.wrong("array")));
            }
            Expect::Anything => return None,
        };
        Some(walk.error(problem))
    }

    fn scalar(self, found: Found<'_>) -> Verdict {
        Verdict {
            error: self.mismatch(found),
            fact: if self.noted {
                found.fact()
            } else {
                Fact::Other
            },
        }
    }
}

impl<'de> DeserializeSeed<'de> for Look<'_> {
    type Value = Verdict;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Verdict, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Look<'_> {
    type Value = Verdict;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Verdict, E> {
        Ok(self.scalar(Found::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Verdict, E> {
        Ok(self.scalar(Found::Integer(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Verdict, E> {
        Ok(self.scalar(match i64::try_from(value) {
            Ok(value) => Found::Integer(value),
            Err(_) => Found::Large(value),
        }))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Verdict, E> {
        Ok(self.scalar(Found::Float(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Verdict, E> {
        Ok(self.scalar(Found::String(value)))
    }

    fn visit_unit<E>(self) -> Result<Verdict, E> {
        Ok(self.scalar(Found::Null))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Verdict, A::Error> {
        object::map(self, map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Verdict, A::Error> {
        object::seq(self, items)
    }
}

/// A key, borrowed from the text unless it holds an escape.
struct KeyText;

impl<'de> DeserializeSeed<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyText {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_string()))
    }
}

/// A value as the checks see it.
#[derive(Clone, Copy)]
enum Found<'a> {
    String(&'a str),
    Bool(bool),
    Integer(i64),
    /// An unsigned integer beyond `i64`: a number, never an integer.
    Large(u64),
    Float(f64),
    Null,
    Array,
    Object,
}

impl Found<'_> {
    /// A wrong-type problem showing the value (strings quoted, containers by kind), as
    /// `tree::wrong_type` shows it.
    fn wrong(self, expected: &'static str) -> Problem {
        let found = match self {
            Found::String(text) => format!("{text:?}"),
            Found::Array => "an array".into(),
            Found::Object => "an object".into(),
            Found::Null => "null".into(),
            Found::Bool(value) => value.to_string(),
            Found::Integer(_) | Found::Large(_) | Found::Float(_) => {
                self.number().unwrap_or_default()
            }
        };
        Problem::WrongType { expected, found }
    }

    /// A number's text, as the tree writes it.
    fn number(self) -> Option<String> {
        match self {
            Found::Integer(value) => Some(value.to_string()),
            Found::Large(value) => Some(value.to_string()),
            Found::Float(value) => {
                Some(Number::from_f64(value).map_or("null".into(), |n| n.to_string()))
            }
            _ => None,
        }
    }

    /// What an object's rules see of a scalar (an array's length is its walker's to note).
    fn fact(self) -> Fact {
        match self {
            Found::String(text) => Fact::String(text.to_string()),
            Found::Bool(value) => Fact::Scalar(value.to_string()),
            Found::Null | Found::Object | Found::Array => Fact::Other,
            number => Fact::Scalar(number.number().unwrap_or_default()),
        }
    }
}

/// What is wrong with a scalar value for its type, if anything (`tree`'s `type_problem`).
fn type_problem(found: Found<'_>, scalar: Scalar) -> Option<Problem> {
    if let Found::String(text) = found
        && let Some(ch) = find_forbidden(text)
    {
        return Some(Problem::ForbiddenCharacter(ch));
    }
    let fits = matches!(
        (scalar, found),
        (Scalar::String, Found::String(_))
            | (Scalar::Integer, Found::Integer(_))
            | (
                Scalar::Number,
                Found::Integer(_) | Found::Large(_) | Found::Float(_)
            )
            | (Scalar::Boolean, Found::Bool(_))
    );
    (!fits).then(|| found.wrong(scalar_name(scalar)))
}

/// What is wrong with a scalar value of `field`: its characters, its type, then the constraints
/// of the field (`tree`'s `scalar_problem`).
fn scalar_problem(found: Found<'_>, scalar: Scalar, field: &Field) -> Option<Problem> {
    if let Some(problem) = type_problem(found, scalar) {
        return Some(problem);
    }
    if !constraints::constrains(field) {
        return None;
    }
    match found {
        Found::String(text) => constraints::scalar(field, scalar, text),
        number => constraints::scalar(field, scalar, &number.number()?),
    }
}

#[cfg(test)]
mod tests;
