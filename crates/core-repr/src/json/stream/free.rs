//! An object of free keys (`additionalProperties`, `Kind::Map`): each key handed on as it is,
//! each value read through [`Checked`](super::Checked) as the map's one field, as `tree::check`
//! holds them. A key given twice declines (the reference reader refuses it), and so does a map
//! of more keys than are tracked, unless the body was walked first (`At::walked`).

use std::fmt;

use core_api_support::Field;
use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess, Visitor};

use super::{At, MAX_TRACKED_KEYS, ValueSeed, decline};

/// Takes an object of free keys from the parser and hands its entries on, checked.
pub(super) struct FreeVisitor<'k, V> {
    pub(super) visitor: V,
    /// What every value is.
    pub(super) field: &'static Field,
    pub(super) at: At<'k>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for FreeVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let at = At {
            root: false,
            key: None,
            keyed: None,
            noted: None,
            ..self.at
        };
        self.visitor.visit_map(&mut Free {
            inner: map,
            field: self.field,
            at,
            keys: Vec::new(),
        })
    }
}

/// The entries of an object of free keys.
struct Free<'k, A> {
    inner: A,
    field: &'static Field,
    at: At<'k>,
    /// The keys met so far.
    keys: Vec<String>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for &mut Free<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(key) = self.inner.next_key::<String>()? else {
            return Ok(None);
        };
        let value = seed.deserialize(key.as_str().into_deserializer())?;
        // A walked body has no repeated key left to find.
        if !self.at.walked {
            if self.keys.len() >= MAX_TRACKED_KEYS || self.keys.contains(&key) {
                return Err(decline());
            }
            self.keys.push(key);
        }
        Ok(Some(value))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(ValueSeed {
            seed,
            field: self.field,
            at: self.at,
        })
    }
}
