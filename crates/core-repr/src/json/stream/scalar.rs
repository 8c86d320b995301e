//! A scalar of the message: its type, its characters and its field's constraints checked as it
//! comes from the parser, then handed on unchanged (or as an enumeration's variant).

use std::{cell::RefCell, fmt};

use core_api_support::{Field, Scalar};
use serde::de::{self, IntoDeserializer, Visitor};

use super::{
    decline,
    rules::{Fact, Noted, note},
};
use crate::{constraints, text::find_forbidden};

/// Takes a scalar from the parser, checks it, and hands it on unchanged.
pub(super) struct ScalarVisitor<'k, V> {
    pub(super) visitor: V,
    pub(super) scalar: Scalar,
    pub(super) field: Option<&'static Field>,
    /// Where the text goes when it is the key of a map-form item.
    pub(super) key: Option<&'k RefCell<Option<String>>>,
    /// Where the value goes when its object's rules look at it.
    pub(super) noted: Option<&'k Noted>,
    /// The value is an enumeration's: a string handed on as its variant.
    pub(super) as_enum: bool,
}

impl<V> ScalarVisitor<'_, V> {
    /// Whether `text` fits a string property: its characters and its constraints.
    fn fits<E: de::Error>(&self, text: &str) -> Result<(), E> {
        let constrained = self.field.filter(|field| constraints::constrains(field));
        let broken = self.scalar != Scalar::String
            || find_forbidden(text).is_some()
            || constrained
                .is_some_and(|field| constraints::scalar(field, Scalar::String, text).is_some());
        if broken {
            return Err(decline());
        }
        if let Some(key) = self.key {
            *key.borrow_mut() = Some(text.to_string());
        }
        note(self.noted, || Fact::String(text.to_string()));
        Ok(())
    }

    /// Whether an integer fits the property.
    fn fits_integer<E: de::Error>(&self, number: i64) -> Result<(), E> {
        let fits = match self.scalar {
            Scalar::Integer => self
                .field
                .filter(|field| constraints::constrains(field))
                .is_none_or(|field| {
                    constraints::scalar(field, Scalar::Integer, &number.to_string()).is_none()
                }),
            Scalar::Number => true,
            Scalar::String | Scalar::Boolean => false,
        };
        if fits { Ok(()) } else { Err(decline()) }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for ScalarVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a scalar")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<V::Value, E> {
        if self.scalar != Scalar::Boolean || self.as_enum {
            return Err(decline());
        }
        note(self.noted, || Fact::Scalar(value.to_string()));
        self.visitor.visit_bool(value)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<V::Value, E> {
        if self.as_enum {
            return Err(decline());
        }
        self.fits_integer(value)?;
        note(self.noted, || Fact::Scalar(value.to_string()));
        self.visitor.visit_i64(value)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<V::Value, E> {
        let Ok(number) = i64::try_from(value) else {
            // Beyond i64 is a number, never an integer.
            return match self.scalar {
                Scalar::Number if !self.as_enum => {
                    note(self.noted, || Fact::Scalar(value.to_string()));
                    self.visitor.visit_u64(value)
                }
                _ => Err(decline()),
            };
        };
        if self.as_enum {
            return Err(decline());
        }
        self.fits_integer(number)?;
        note(self.noted, || Fact::Scalar(value.to_string()));
        self.visitor.visit_u64(value)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<V::Value, E> {
        if self.scalar != Scalar::Number || self.as_enum {
            return Err(decline());
        }
        let Some(number) = serde_json::Number::from_f64(value) else {
            return Err(decline());
        };
        note(self.noted, || Fact::Scalar(number.to_string()));
        self.visitor.visit_f64(value)
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<V::Value, E> {
        self.fits(value)?;
        if self.as_enum {
            let variant: de::value::BorrowedStrDeserializer<'de, E> =
                de::value::BorrowedStrDeserializer::new(value);
            return self.visitor.visit_enum(variant);
        }
        self.visitor.visit_borrowed_str(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<V::Value, E> {
        self.fits(value)?;
        if self.as_enum {
            return self.visitor.visit_enum(value.into_deserializer());
        }
        self.visitor.visit_str(value)
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<V::Value, E> {
        self.fits(&value)?;
        if self.as_enum {
            return self.visitor.visit_enum(value.into_deserializer());
        }
        self.visitor.visit_string(value)
    }
}
