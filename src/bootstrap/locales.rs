//! Locales, by `tid` (`<language>_<COUNTRY>`).

use core_api::tables;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Bootstrap, BootstrapError, Checks, Loader, fits, invalid};

/// A locale.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Locale {
    /// `<language>_<COUNTRY>`, such as `de_DE`.
    pub tid: String,
    /// The language code (`de`).
    pub language: String,
    /// The country code (`DE`).
    pub country: String,
    /// The display name.
    pub name: String,
    /// A content locale.
    #[serde(default)]
    pub content_locale: bool,
    /// The default content locale.
    #[serde(default)]
    pub default_content_locale: bool,
    /// A frontend locale.
    #[serde(default)]
    pub frontend_locale: bool,
    /// The default frontend locale.
    #[serde(default)]
    pub default_frontend_locale: bool,
    /// The date format (`config` `dateFormat`).
    #[serde(default)]
    pub date_format: Option<String>,
    /// Whether custom date formats are enabled.
    #[serde(default)]
    pub custom_date_formats_enabled: bool,
}

/// Checks each locale: its `tid` is the document's pattern and agrees with its parts.
pub(super) fn check<'d>(
    document: &'d Bootstrap,
    checks: &mut Checks<'d>,
) -> Result<(), BootstrapError> {
    for (index, locale) in document.locales.iter().enumerate() {
        let record = format!("locales[{index}] ({})", locale.tid);
        // The document's pattern, and the parts must agree.
        let valid = fits(&record, "tid", &locale.tid, &tables::LOCALE, "tid").is_ok()
            && locale.tid.split_once('_')
                == Some((locale.language.as_str(), locale.country.as_str()));
        if !valid {
            return Err(invalid(
                record,
                "tid",
                "must be <language>_<COUNTRY> matching language and country",
            ));
        }
        for (field, value) in [
            ("language", &locale.language),
            ("country", &locale.country),
            ("name", &locale.name),
        ] {
            fits(&record, field, value, &tables::LOCALE, field)?;
        }
        checks.unique("locales", &locale.tid, record)?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the locales.
    pub(super) async fn locales(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for locale in &document.locales {
            self.progress.advance();
            sqlx::query(
                "INSERT INTO locales (tid, language, country, name, content_locale, default_content_locale, \
                 frontend_locale, default_frontend_locale, date_format, custom_date_formats_enabled) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (tid) DO UPDATE SET \
                 language = excluded.language, country = excluded.country, name = excluded.name, \
                 content_locale = excluded.content_locale, default_content_locale = excluded.default_content_locale, \
                 frontend_locale = excluded.frontend_locale, default_frontend_locale = excluded.default_frontend_locale, \
                 date_format = excluded.date_format, custom_date_formats_enabled = excluded.custom_date_formats_enabled",
            )
            .bind(&locale.tid)
            .bind(&locale.language)
            .bind(&locale.country)
            .bind(&locale.name)
            .bind(locale.content_locale)
            .bind(locale.default_content_locale)
            .bind(locale.frontend_locale)
            .bind(locale.default_frontend_locale)
            .bind(&locale.date_format)
            .bind(locale.custom_date_formats_enabled)
            .execute(&mut **self.transaction)
            .await?;
            self.loaded.records += 1;
        }
        Ok(())
    }
}
