//! A boolean column as every backend answers it through `sqlx::Any`. `Any` cannot read a column
//! SQLite declares BOOLEAN at all ("does not support the SQLite type Bool", sqlx 0.9), so queries
//! select a boolean as `CAST(column AS INTEGER)`, and [`Flag`] reads it (or a PostgreSQL boolean).
//! In JSON the databases write it alike: `true`/`false` (PostgreSQL) or `1`/`0` (SQLite).

use sqlx::{
    Any, Decode, Type,
    any::{AnyTypeInfo, AnyValueRef},
    error::BoxDynError,
};

/// A stored boolean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flag(pub(crate) bool);

impl Type<Any> for Flag {
    fn type_info() -> AnyTypeInfo {
        <bool as Type<Any>>::type_info()
    }

    fn compatible(ty: &AnyTypeInfo) -> bool {
        <bool as Type<Any>>::compatible(ty) || <i64 as Type<Any>>::compatible(ty)
    }
}

impl<'r> Decode<'r, Any> for Flag {
    fn decode(value: AnyValueRef<'r>) -> Result<Flag, BoxDynError> {
        match <bool as Decode<'r, Any>>::decode(value.clone()) {
            Ok(flag) => Ok(Flag(flag)),
            Err(_) => Ok(Flag(<i64 as Decode<'r, Any>>::decode(value)? != 0)),
        }
    }
}

impl From<Flag> for bool {
    fn from(flag: Flag) -> bool {
        flag.0
    }
}

impl<'de> serde::Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Flag, D::Error> {
        /// A boolean as a database writes it into JSON.
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Json {
            Bool(bool),
            Int(i64),
        }
        Ok(Flag(match Json::deserialize(deserializer)? {
            Json::Bool(value) => value,
            Json::Int(value) => value != 0,
        }))
    }
}
