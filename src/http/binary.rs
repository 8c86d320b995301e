//! Binary answers (`application/octet-stream`, D-36): whole (200), one byte range (206), not
//! modified (304) or a range beyond the end (416), from the request's `Range`, `If-Range` and
//! `If-None-Match`. The bytes are streamed from their source; only the range sent is opened.

use core_api_support::{Binary, Operation};
use poem::{
    Body, Response,
    http::{HeaderMap, HeaderValue, StatusCode, header},
};

use crate::error::ApiError;

/// The headers a binary answer depends on, kept from the request by `Host::begin`.
#[derive(Debug, Default)]
pub struct Conditions {
    range: Option<String>,
    if_range: Option<String>,
    if_none_match: Option<String>,
}

impl Conditions {
    /// The conditions of a request; empty for an operation whose answer is not binary.
    pub fn of(operation: &Operation, headers: &HeaderMap) -> Conditions {
        let binary = operation
            .response
            .media
            .iter()
            .any(|media| media.representation == core_api_support::Representation::Binary);
        if !binary {
            return Conditions::default();
        }
        let text = |name| {
            headers
                .get(name)
                .and_then(|value: &HeaderValue| value.to_str().ok())
                .map(str::to_string)
        };
        Conditions {
            range: text(header::RANGE),
            if_range: text(header::IF_RANGE),
            if_none_match: text(header::IF_NONE_MATCH),
        }
    }
}

/// The answer for a binary under the request's conditions.
pub fn respond(
    media_type: &'static str,
    conditions: &Conditions,
    binary: Binary,
) -> Result<Response, ApiError> {
    let etag = binary.etag.as_deref().map(|etag| format!("\"{etag}\""));
    let mut response = Response::builder().header(header::ACCEPT_RANGES, "bytes");
    if let Some(etag) = &etag {
        response = response.header(header::ETAG, etag.as_str());
        if conditions
            .if_none_match
            .as_deref()
            .is_some_and(|list| none_match_names(list, etag))
        {
            return Ok(response.status(StatusCode::NOT_MODIFIED).finish());
        }
    }
    let range = match &conditions.range {
        // `If-Range` with another validator (or a date: the answer has no Last-Modified) asks
        // for the whole binary.
        Some(_) if conditions.if_range.is_some() && conditions.if_range != etag => None,
        Some(range) => Range::parse(range, binary.length)?,
        None => None,
    };
    response = response.content_type(media_type);
    if let Some(name) = &binary.file_name {
        let disposition = format!(
            "attachment; filename=\"{}\"",
            name.replace(['"', '\\', '\r', '\n'], "_")
        );
        response = response.header(header::CONTENT_DISPOSITION, disposition);
    }
    let length = binary.length;
    let (status, start, end) = match range {
        Some(Range { start, end }) => {
            let content_range = format!("bytes {start}-{}/{length}", end - 1);
            response = response.header(header::CONTENT_RANGE, content_range);
            (StatusCode::PARTIAL_CONTENT, start, end)
        }
        None => (StatusCode::OK, 0, length),
    };
    let body: Body = binary.source.open(start, end);
    Ok(response
        .status(status)
        .header(header::CONTENT_LENGTH, end - start)
        .body(body))
}

/// Whether an `If-None-Match` list names the current validator (weak comparison, RFC 9110
/// 13.1.2), or is `*`.
fn none_match_names(list: &str, etag: &str) -> bool {
    list.split(',').map(str::trim).any(|tag| {
        tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag.trim_start_matches("W/")
    })
}

/// One byte range of a binary, `start..end`, end exclusive.
#[derive(Debug, PartialEq, Eq)]
struct Range {
    start: u64,
    end: u64,
}

impl Range {
    /// The range a `Range` header asks for: `None` when the answer is the whole binary (not a
    /// single `bytes` range, or malformed: RFC 9110 lets a server ignore those); 416 when it
    /// starts at or beyond the end.
    fn parse(header: &str, length: u64) -> Result<Option<Range>, ApiError> {
        let Some(spec) = header.trim().strip_prefix("bytes=") else {
            return Ok(None);
        };
        if spec.contains(',') {
            return Ok(None);
        }
        let Some((first, last)) = spec.trim().split_once('-') else {
            return Ok(None);
        };
        let number = |text: &str| -> Option<Option<u64>> {
            let text = text.trim();
            if text.is_empty() {
                Some(None)
            } else if text.bytes().all(|byte| byte.is_ascii_digit()) {
                text.parse().ok().map(Some)
            } else {
                None
            }
        };
        let (Some(first), Some(last)) = (number(first), number(last)) else {
            return Ok(None);
        };
        match (first, last) {
            (Some(start), last) => {
                if last.is_some_and(|last| last < start) {
                    return Ok(None);
                }
                if start >= length {
                    return Err(ApiError::RangeNotSatisfiable(length));
                }
                let end = last.map_or(length, |last| last.saturating_add(1).min(length));
                Ok(Some(Range { start, end }))
            }
            (None, Some(suffix)) => {
                if suffix == 0 {
                    return Err(ApiError::RangeNotSatisfiable(length));
                }
                if length == 0 {
                    return Ok(None);
                }
                Ok(Some(Range {
                    start: length.saturating_sub(suffix),
                    end: length,
                }))
            }
            (None, None) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(header: &str, length: u64) -> Result<Option<(u64, u64)>, u64> {
        match Range::parse(header, length) {
            Ok(range) => Ok(range.map(|range| (range.start, range.end))),
            Err(ApiError::RangeNotSatisfiable(length)) => Err(length),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn single_byte_ranges_are_read_as_rfc_9110_writes_them() {
        assert_eq!(range("bytes=0-99", 1000), Ok(Some((0, 100))));
        assert_eq!(range("bytes=900-", 1000), Ok(Some((900, 1000))));
        assert_eq!(range("bytes=-100", 1000), Ok(Some((900, 1000))));
        assert_eq!(range("bytes=-5000", 1000), Ok(Some((0, 1000))));
        assert_eq!(range("bytes=990-5000", 1000), Ok(Some((990, 1000))));
        assert_eq!(range(" bytes=1-1 ", 1000), Ok(Some((1, 2))));
    }

    #[test]
    fn other_ranges_give_the_whole_binary_or_416() {
        for whole in [
            "bytes=0-1,5-6",
            "items=0-1",
            "bytes=5-1",
            "bytes=a-",
            "bytes=-",
            "bytes=1",
        ] {
            assert_eq!(range(whole, 1000), Ok(None), "{whole}");
        }
        assert_eq!(range("bytes=1000-", 1000), Err(1000));
        assert_eq!(range("bytes=-0", 1000), Err(1000));
        assert_eq!(range("bytes=0-", 0), Err(0));
    }

    #[test]
    fn if_none_match_compares_weakly_and_takes_a_star() {
        assert!(none_match_names("\"a\"", "\"a\""));
        assert!(none_match_names("\"b\", W/\"a\"", "\"a\""));
        assert!(none_match_names("*", "\"a\""));
        assert!(!none_match_names("\"b\"", "\"a\""));
    }
}
