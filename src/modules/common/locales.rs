//! Locales: `locales/retrieve` (D-45). The document states which `mode` goes with `ids` and
//! `tids`; the tables refuse any other pairing before this runs.

use core_api::types::{Itms, Locale, LocaleConfig, LocaleRequest, LocaleRequestMode, Meta};

use super::super::itm;
use crate::{
    error::ApiError,
    storage::{
        Database,
        flag::Flag,
        locales::{self as stored, Selection},
    },
};

/// The locales the request selects, ordered by id; unknown ids or tids are skipped.
pub(crate) async fn retrieve(
    database: &Database,
    request: &LocaleRequest,
) -> Result<Vec<Locale>, ApiError> {
    let mode = request.mode;
    let selection = match mode {
        LocaleRequestMode::Content => Selection::Content,
        LocaleRequestMode::Frontend => Selection::Frontend,
        LocaleRequestMode::All | LocaleRequestMode::Id | LocaleRequestMode::Tid => Selection::All,
    };
    let mut locales = Vec::new();
    for locale in stored::select(database, selection).await? {
        let selected = match mode {
            LocaleRequestMode::Id => request.ids.contains(&locale.id),
            LocaleRequestMode::Tid => request.tids.contains(&locale.tid),
            _ => true,
        };
        if !selected {
            continue;
        }
        let flag = |flag: Flag| bool::from(flag).to_string();
        let meta = vec![
            itm::meta("contentLocale", flag(locale.content_locale)),
            itm::meta("defaultContentLocale", flag(locale.default_content_locale)),
            itm::meta(
                "defaultFrontendLocale",
                flag(locale.default_frontend_locale),
            ),
            itm::meta("frontendLocale", flag(locale.frontend_locale)),
        ];
        let config = request.export_config.then(|| LocaleConfig {
            itms: vec![Itms {
                mode: Some("delta".to_string()),
                type_: Some("dateFormat".to_string()),
                itm: vec![itm::keyed(
                    "customDateFormatsEnabled",
                    flag(locale.custom_date_formats_enabled),
                )],
                ..Itms::default()
            }],
        });
        locales.push(Locale {
            id: Some(locale.id),
            tid: Some(locale.tid),
            language: Some(locale.language),
            country: Some(locale.country),
            name: Some(locale.name),
            meta: Some(Meta { itm: meta }),
            config,
        });
    }
    Ok(locales)
}
