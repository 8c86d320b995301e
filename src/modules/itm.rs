//! The items every message is made of (`itm`, `meta` items, names), built in one place.

use core_api::types::{Itm, MetaItm, NameItm};

/// An `itm` with a key: a detail of a record, an issue's code.
pub(crate) fn keyed(key: &str, value: impl Into<String>) -> Itm {
    Itm {
        key: Some(key.to_string()),
        loc: None,
        pos: None,
        value: value.into(),
    }
}

/// An `itm` holding only its text: a linked asset's tid.
pub(crate) fn text(value: impl Into<String>) -> Itm {
    Itm {
        key: None,
        loc: None,
        pos: None,
        value: value.into(),
    }
}

/// A `meta` item without locale or position.
pub(crate) fn meta(key: &str, value: impl Into<String>) -> MetaItm {
    MetaItm {
        key: key.to_string(),
        loc: None,
        pos: None,
        value: value.into(),
    }
}

/// A name: the default one (no locale) or the name in a locale.
pub(crate) fn name(loc: Option<&str>, value: impl Into<String>) -> NameItm {
    NameItm {
        key: None,
        loc: loc.map(str::to_string),
        pos: None,
        value: value.into(),
    }
}
