//! Locales, by `tid` (`<language>_<COUNTRY>`).

use core_api::tables;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Bootstrap, BootstrapError, Checks, Loader, fits, given, invalid, is_false};
use crate::storage::import::{self, LocaleRow};

/// A locale.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Locale {
    /// The id it keeps when new (an export gives it); absent: the next one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub id: Option<i64>,
    /// `<language>_<COUNTRY>`, such as `de_DE`.
    pub tid: String,
    /// The language code (`de`).
    pub language: String,
    /// The country code (`DE`).
    pub country: String,
    /// The display name.
    pub name: String,
    /// A content locale.
    #[serde(default, skip_serializing_if = "is_false")]
    pub content_locale: bool,
    /// The default content locale.
    #[serde(default, skip_serializing_if = "is_false")]
    pub default_content_locale: bool,
    /// A frontend locale.
    #[serde(default, skip_serializing_if = "is_false")]
    pub frontend_locale: bool,
    /// The default frontend locale.
    #[serde(default, skip_serializing_if = "is_false")]
    pub default_frontend_locale: bool,
    /// The date format (`config` `dateFormat`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_format: Option<String>,
    /// Whether custom date formats are enabled.
    #[serde(default, skip_serializing_if = "is_false")]
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
        given(&record, locale.id, &[])?;
        checks.unique("locales", &locale.tid, record)?;
    }
    Ok(())
}

impl Loader<'_, '_> {
    /// Upserts the locales.
    pub(super) async fn locales(&mut self, document: &Bootstrap) -> Result<(), BootstrapError> {
        for locale in &document.locales {
            self.progress.advance(1);
            let row = LocaleRow {
                id: locale.id,
                tid: &locale.tid,
                language: &locale.language,
                country: &locale.country,
                name: &locale.name,
                content_locale: locale.content_locale,
                default_content_locale: locale.default_content_locale,
                frontend_locale: locale.frontend_locale,
                default_frontend_locale: locale.default_frontend_locale,
                date_format: locale.date_format.as_deref(),
                custom_date_formats_enabled: locale.custom_date_formats_enabled,
            };
            import::upsert_locale(self.transaction, &row).await?;
            self.loaded.records += 1;
        }
        Ok(())
    }
}
