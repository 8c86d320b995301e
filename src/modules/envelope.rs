//! The message envelope every operation shares: what a request's `meta` may carry (D-11) and the
//! `schemaVersion` and `meta` every answer carries. A request's `schemaVersion` is checked by the
//! document's pattern (D-09) when the body is decoded.

use core_api::{
    document::SCHEMA_VERSION,
    types::{Meta, PimType, ResponseType, Responses, ResponsesType, SchemaVersion},
};

use super::itm;
use crate::{error::ApiError, service::Service, settings::Deviation, storage::now_utc};

/// Checks a request's `meta`: a `messageTime`, when given, is an ISO 8601 timestamp (D-11).
/// Other keys are ignored. (The rule depends on an item's key, which the schema language cannot
/// tie to its value, so it lives here.)
pub(crate) fn accept(meta: Option<&Meta>) -> Result<(), ApiError> {
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

/// The `schemaVersion` every answer carries.
pub(crate) fn answer_schema_version() -> Option<SchemaVersion> {
    Some(SchemaVersion(SCHEMA_VERSION.to_string()))
}

/// An answer's envelope: `schemaVersion`, and `meta` with `messageType`, `messageTime`,
/// `sourceEnv` and, where the payload is of one resource kind, `itemInformationType` (D-11).
pub(crate) fn answer(service: &Service, item_information_type: Option<&str>) -> PimType {
    let mut itm = vec![
        itm::meta("messageType", "request"),
        itm::meta("messageTime", now_utc()),
        itm::meta("sourceEnv", service.settings.source_env.as_str()),
    ];
    if let Some(kind) = item_information_type {
        itm.push(itm::meta("itemInformationType", kind));
    }
    let meta = match service.settings.deviation {
        Some(Deviation::DropMeta) => None,
        _ => Some(Meta { itm }),
    };
    PimType {
        schema_version: answer_schema_version(),
        meta,
        ..PimType::default()
    }
}

/// The answer of a batch: the envelope with one record per item.
pub(crate) fn responses(service: &Service, response: Vec<ResponseType>) -> PimType {
    PimType {
        responses: Some(Responses { response }),
        ..answer(service, None)
    }
}

/// A batch answer as a ResponsesType (messages persist): the same envelope and records.
pub(crate) fn responses_type(answer: PimType) -> ResponsesType {
    ResponsesType {
        schema_version: answer.schema_version,
        meta: answer.meta,
        responses: answer.responses,
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
