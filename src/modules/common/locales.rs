//! Locales: `locales/retrieve` (D-45).

use core_api::types::{Itm, Itms, Locale, LocaleConfig, LocaleRequest, LocaleRequestMode, Meta};
use sqlx::Row;

use super::super::envelope::meta_item;
use crate::{error::ApiError, storage::Database};

/// The locales the request selects, ordered by id; unknown ids or tids are skipped.
pub(crate) async fn retrieve(
    database: &Database,
    request: &LocaleRequest,
) -> Result<Vec<Locale>, ApiError> {
    let mode = request.mode;
    if !request.ids.is_empty() && mode != LocaleRequestMode::Id {
        return Err(ApiError::Rule(
            "ids: when ids is set, mode must be ID".to_string(),
        ));
    }
    if !request.tids.is_empty() && mode != LocaleRequestMode::Tid {
        return Err(ApiError::Rule(
            "tids: when tids is set, mode must be TID".to_string(),
        ));
    }
    match mode {
        LocaleRequestMode::Id if request.ids.is_empty() => {
            return Err(ApiError::Rule(
                "ids: mode ID needs a non-empty ids".to_string(),
            ));
        }
        LocaleRequestMode::Tid if request.tids.is_empty() => {
            return Err(ApiError::Rule(
                "tids: mode TID needs a non-empty tids".to_string(),
            ));
        }
        _ => {}
    }
    let filter = match mode {
        LocaleRequestMode::Content => "WHERE content_locale",
        LocaleRequestMode::Frontend => "WHERE frontend_locale",
        LocaleRequestMode::All | LocaleRequestMode::Id | LocaleRequestMode::Tid => "",
    };
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT id, tid, language, country, name, \
         CASE WHEN content_locale THEN 1 ELSE 0 END AS content_locale, \
         CASE WHEN default_content_locale THEN 1 ELSE 0 END AS default_content_locale, \
         CASE WHEN default_frontend_locale THEN 1 ELSE 0 END AS default_frontend_locale, \
         CASE WHEN frontend_locale THEN 1 ELSE 0 END AS frontend_locale, \
         CASE WHEN custom_date_formats_enabled THEN 1 ELSE 0 END AS custom_date_formats_enabled \
         FROM locales {filter} ORDER BY id"
    )))
    .fetch_all(database.pool())
    .await?;
    let mut locales = Vec::new();
    for row in rows {
        let id: i64 = row.try_get("id")?;
        let tid: String = row.try_get("tid")?;
        let selected = match mode {
            LocaleRequestMode::Id => request.ids.contains(&id),
            LocaleRequestMode::Tid => request.tids.contains(&tid),
            _ => true,
        };
        if !selected {
            continue;
        }
        let flag = |column: &str| -> Result<String, sqlx::Error> {
            Ok((row.try_get::<i64, _>(column)? != 0).to_string())
        };
        let meta = vec![
            meta_item("contentLocale", &flag("content_locale")?),
            meta_item("defaultContentLocale", &flag("default_content_locale")?),
            meta_item("defaultFrontendLocale", &flag("default_frontend_locale")?),
            meta_item("frontendLocale", &flag("frontend_locale")?),
        ];
        let config = if request.export_config {
            Some(LocaleConfig {
                itms: vec![Itms {
                    mode: Some("delta".to_string()),
                    type_: Some("dateFormat".to_string()),
                    itm: vec![Itm {
                        key: Some("customDateFormatsEnabled".to_string()),
                        loc: None,
                        pos: None,
                        value: flag("custom_date_formats_enabled")?,
                    }],
                    ..Itms::default()
                }],
            })
        } else {
            None
        };
        locales.push(Locale {
            id: Some(id),
            tid: Some(tid.parse().map_err(|_| {
                ApiError::Internal(format!("the stored locale tid '{tid}' is malformed"))
            })?),
            language: Some(row.try_get("language")?),
            country: Some(row.try_get("country")?),
            name: Some(row.try_get("name")?),
            meta: Some(Meta { itm: meta }),
            config,
        });
    }
    Ok(locales)
}
