//! The SQL of locales.

use super::{Database, flag::Flag, read};

/// A stored locale.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct Locale {
    /// Its id.
    pub(crate) id: i64,
    /// `<language>_<COUNTRY>`.
    pub(crate) tid: String,
    /// The language.
    pub(crate) language: String,
    /// The country.
    pub(crate) country: String,
    /// The name.
    pub(crate) name: String,
    /// A content locale.
    pub(crate) content_locale: Flag,
    /// The default content locale.
    pub(crate) default_content_locale: Flag,
    /// The default frontend locale.
    pub(crate) default_frontend_locale: Flag,
    /// A frontend locale.
    pub(crate) frontend_locale: Flag,
    /// Custom date formats are enabled.
    pub(crate) custom_date_formats_enabled: Flag,
}

/// Which locales to read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Selection {
    /// Every locale.
    All,
    /// The content locales.
    Content,
    /// The frontend locales.
    Frontend,
}

/// The query of the locales a filter keeps, ordered by id. Booleans are selected as integers:
/// `sqlx::Any` cannot read a column SQLite declares BOOLEAN; [`Flag`] reads both backends.
macro_rules! locales {
    ($filter:literal) => {
        concat!(
            "SELECT id, tid, language, country, name, \
             CAST(content_locale AS INTEGER) AS content_locale, \
             CAST(default_content_locale AS INTEGER) AS default_content_locale, \
             CAST(default_frontend_locale AS INTEGER) AS default_frontend_locale, \
             CAST(frontend_locale AS INTEGER) AS frontend_locale, \
             CAST(custom_date_formats_enabled AS INTEGER) AS custom_date_formats_enabled \
             FROM locales ",
            $filter,
            " ORDER BY id"
        )
    };
}

/// The locales of a selection, ordered by id.
pub(crate) async fn select(
    database: &Database,
    selection: Selection,
) -> Result<Vec<Locale>, sqlx::Error> {
    let query = match selection {
        Selection::All => locales!(""),
        Selection::Content => locales!("WHERE content_locale"),
        Selection::Frontend => locales!("WHERE frontend_locale"),
    };
    read::all(database, || sqlx::query_as(query)).await
}
