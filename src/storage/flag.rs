//! A boolean column as every backend answers it through `sqlx::Any`. `Any` cannot read a column
//! SQLite declares BOOLEAN at all ("does not support the SQLite type Bool", sqlx 0.9), so queries
//! select a boolean as `CAST(column AS INTEGER)`, and [`Flag`] reads it (or a PostgreSQL boolean).

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
