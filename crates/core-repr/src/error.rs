//! What can be wrong with a message, and where.

use std::fmt;

/// A message that cannot be decoded: what is wrong and where (its path in the message, in
/// element names: `kwds/kwd[2]/id`, indexes counted from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Where the problem is; empty for the whole message.
    pub path: String,
    /// What the problem is.
    pub problem: Problem,
}

/// The kinds of problems a message can have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The body is empty.
    Empty,
    /// The body is not well-formed XML or JSON.
    Malformed(String),
    /// The body is not valid UTF-8.
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// The XML carries a document type declaration (never expanded, always refused).
    Doctype,
    /// The XML refers to an entity other than the five predefined ones or a character reference.
    UnknownEntity(String),
    /// Elements or objects nest deeper than the limit.
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// The root element is not the one the operation takes.
    WrongRoot {
        /// The expected root element.
        expected: &'static str,
        /// The root element found.
        found: String,
    },
    /// The root element is not in the configured namespace.
    WrongNamespace {
        /// The configured namespace.
        expected: String,
        /// The namespace found, if any.
        found: Option<String>,
    },
    /// An element, attribute or property the schema does not have.
    Unknown {
        /// `element`, `attribute` or `property`.
        what: &'static str,
        /// Its name.
        name: String,
    },
    /// A single-valued element or attribute occurs twice.
    Duplicate(String),
    /// Text where the schema allows only child elements.
    UnexpectedText(String),
    /// A value of the wrong type.
    WrongType {
        /// The expected type.
        expected: &'static str,
        /// The value found, as text.
        found: String,
    },
    /// A required value is missing.
    Missing(String),
    /// Not exactly one of these properties is given.
    ExactlyOneOf(Vec<&'static str>),
    /// A character XML 1.0 cannot carry (a control character), which no representation may hold
    /// since every message can be answered in XML.
    ForbiddenCharacter(char),
    /// A string longer than its `maxLength`.
    TooLong {
        /// Its length in characters.
        length: usize,
        /// The `maxLength`.
        limit: usize,
    },
    /// An array with more items than its `maxItems`.
    TooMany {
        /// Its items.
        count: usize,
        /// The `maxItems`.
        limit: usize,
    },
    /// A string that does not match its `pattern`.
    NoMatch {
        /// The value (abbreviated).
        value: String,
        /// The pattern.
        pattern: &'static str,
    },
    /// An integer outside its `minimum` and `maximum`.
    OutOfRange {
        /// The value.
        value: i64,
        /// The least allowed, if any.
        minimum: Option<i64>,
        /// The greatest allowed, if any.
        maximum: Option<i64>,
    },
    /// An integer the document excludes (`not: {enum}`).
    Excluded(i64),
    /// A value or an object breaking a rule the document words itself (`x-message`).
    Refused(String),
}

/// The class of a problem, which decides the issue code of the error body (D-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemClass {
    /// Wrong format.
    InvalidInput,
    /// A missing required value.
    MissingValue,
    /// A wrong data type.
    WrongType,
}

impl DecodeError {
    /// A problem at a path.
    pub fn at(path: impl Into<String>, problem: Problem) -> DecodeError {
        DecodeError {
            path: path.into(),
            problem,
        }
    }

    /// A problem of the whole message.
    pub fn whole(problem: Problem) -> DecodeError {
        DecodeError {
            path: String::new(),
            problem,
        }
    }

    /// The class of the problem.
    pub fn class(&self) -> ProblemClass {
        match self.problem {
            Problem::Missing(_) | Problem::Empty => ProblemClass::MissingValue,
            Problem::WrongType { .. } => ProblemClass::WrongType,
            _ => ProblemClass::InvalidInput,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        match &self.problem {
            Problem::Empty => write!(f, "the body is empty"),
            Problem::Malformed(reason) => write!(f, "malformed body: {reason}"),
            Problem::InvalidUtf8 { offset } => {
                write!(f, "the body is not valid UTF-8 (byte {offset})")
            }
            Problem::Doctype => write!(f, "a document type declaration (DOCTYPE) is not allowed"),
            Problem::UnknownEntity(name) => write!(f, "unknown entity '&{name};'"),
            Problem::TooDeep { limit } => write!(f, "nesting deeper than {limit} levels"),
            Problem::WrongRoot { expected, found } => {
                write!(f, "expected root element '{expected}', found '{found}'")
            }
            Problem::WrongNamespace {
                expected,
                found: Some(found),
            } => {
                write!(f, "expected namespace '{expected}', found '{found}'")
            }
            Problem::WrongNamespace {
                expected,
                found: None,
            } => {
                write!(f, "expected namespace '{expected}', found none")
            }
            Problem::Unknown { what, name } => write!(f, "unknown {what} '{name}'"),
            Problem::Duplicate(name) => write!(f, "'{name}' occurs more than once"),
            Problem::UnexpectedText(text) => write!(f, "unexpected text {text:?}"),
            Problem::WrongType { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            Problem::Missing(name) => write!(f, "missing required value '{name}'"),
            Problem::ExactlyOneOf(names) => {
                write!(f, "exactly one of {} must be given", names.join(", "))
            }
            Problem::ForbiddenCharacter(ch) => write!(
                f,
                "the character U+{:04X} is not allowed (XML 1.0 cannot carry it)",
                *ch as u32
            ),
            Problem::TooLong { length, limit } => write!(
                f,
                "{length} characters exceed the limit of {limit} characters"
            ),
            Problem::TooMany { count, limit } => {
                write!(f, "{count} items exceed the limit of {limit} items")
            }
            Problem::NoMatch { value, pattern } => {
                write!(f, "'{value}' does not match the pattern {pattern}")
            }
            Problem::OutOfRange {
                value,
                minimum,
                maximum,
            } => match (minimum, maximum) {
                (Some(least), Some(most)) => {
                    write!(f, "{value} is out of range: from {least} to {most}")
                }
                (Some(least), None) => write!(f, "{value} is out of range: at least {least}"),
                (None, Some(most)) => write!(f, "{value} is out of range: at most {most}"),
                (None, None) => write!(f, "{value} is out of range"),
            },
            Problem::Excluded(value) => write!(f, "{value} is not allowed"),
            Problem::Refused(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A value the server produced that does not fit its schema: a bug, answered with 500.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot encode {path}: {reason}")]
pub struct EncodeError {
    /// Where in the tree.
    pub path: String,
    /// Why.
    pub reason: String,
}
