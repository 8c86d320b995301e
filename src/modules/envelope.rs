//! The message envelope every operation shares: what a request's `schemaVersion` and `meta` may
//! carry (D-09, D-11) and the `schemaVersion` and `meta` every answer carries.

use core_api::{
    document::SCHEMA_VERSION,
    types::{Meta, MetaItm, PimType, SchemaVersion},
};

use crate::{error::ApiError, service::Service, storage::now_utc};

/// Checks a request's envelope: `schemaVersion` absent or of this service's major version
/// (D-09), and a `messageTime` in `meta`, when given, an ISO 8601 timestamp (D-11). Other `meta`
/// keys are ignored.
pub(crate) fn accept(
    schema_version: Option<&SchemaVersion>,
    meta: Option<&Meta>,
) -> Result<(), ApiError> {
    accept_schema_version(schema_version)?;
    let times = meta
        .into_iter()
        .flat_map(|meta| &meta.itm)
        .filter(|item| item.key == "messageTime");
    for time in times {
        if !is_timestamp(&time.value) {
            return Err(ApiError::Rule(format!(
                "meta/itm[@key='messageTime']: '{}' is not an ISO 8601 timestamp such as 2024-03-01T09:15:00.000Z",
                time.value
            )));
        }
    }
    Ok(())
}

/// Checks a request's `schemaVersion` (D-09): absent or of the same major version as the one
/// this service speaks.
pub(crate) fn accept_schema_version(version: Option<&SchemaVersion>) -> Result<(), ApiError> {
    let Some(version) = version else {
        return Ok(());
    };
    let major = |text: &str| text.split('.').next().map(str::to_string);
    if major(version) == major(SCHEMA_VERSION) {
        Ok(())
    } else {
        Err(ApiError::Rule(format!(
            "schemaVersion: unsupported schemaVersion '{}' (this service speaks {SCHEMA_VERSION})",
            version.as_str()
        )))
    }
}

/// The `schemaVersion` every answer carries.
pub(crate) fn answer_schema_version() -> Option<SchemaVersion> {
    SCHEMA_VERSION.parse().ok()
}

/// An answer's envelope: `schemaVersion`, and `meta` with `messageType`, `messageTime`,
/// `sourceEnv` and, where the payload is of one resource kind, `itemInformationType` (D-11).
pub(crate) fn answer(service: &Service, item_information_type: Option<&str>) -> PimType {
    let mut itm = vec![
        meta_item("messageType", "request"),
        meta_item("messageTime", &now_utc()),
        meta_item("sourceEnv", &service.settings.source_env),
    ];
    if let Some(kind) = item_information_type {
        itm.push(meta_item("itemInformationType", kind));
    }
    PimType {
        schema_version: answer_schema_version(),
        meta: Some(Meta { itm }),
        ..PimType::default()
    }
}

/// One `meta` item without locale or position.
pub(crate) fn meta_item(key: &str, value: &str) -> MetaItm {
    MetaItm {
        key: key.to_string(),
        value: value.to_string(),
        loc: None,
        pos: None,
    }
}

/// Whether a text is an ISO 8601 date and time with seconds, optional fraction and a zone:
/// `YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm)`.
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range.clone())
            .filter(|part| part.iter().all(u8::is_ascii_digit))
            .map(|part| part.iter().fold(0u32, |n, b| n * 10 + u32::from(b - b'0')))
    };
    let shape = bytes.len() >= 20
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && matches!(bytes[10], b'T' | b't')
        && bytes[13] == b':'
        && bytes[16] == b':';
    if !shape {
        return false;
    }
    let (Some(_year), Some(month), Some(day), Some(hour), Some(minute), Some(second)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return false;
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let length = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if length == 0 || length > 9 {
            return false;
        }
        rest = &fraction[length..];
    }
    match rest.as_bytes() {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|b| b.is_ascii_digit())
                && (*h1 - b'0') * 10 + (*h2 - b'0') <= 23
                && (*m1 - b'0') * 10 + (*m2 - b'0') <= 59
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_timestamp;

    #[test]
    fn message_times_are_iso_8601_timestamps_with_a_zone() {
        for good in [
            "2024-03-01T09:15:00.000Z",
            "2024-03-01T09:15:00Z",
            "2024-03-01T09:15:00.123456+01:00",
            "2024-12-31T23:59:60-05:30",
        ] {
            assert!(is_timestamp(good), "{good}");
        }
        for bad in [
            "yesterday",
            "",
            "2024-03-01",
            "2024-03-01T09:15:00",
            "2024-13-01T09:15:00Z",
            "2024-03-01T24:00:00Z",
            "2024-03-01T09:15:00.Z",
            "2024-03-01T09:15:00+0100",
            "2024-03-01T09:15:00Zjunk",
            "２024-03-01T09:15:00Z",
        ] {
            assert!(!is_timestamp(bad), "{bad}");
        }
    }
}
