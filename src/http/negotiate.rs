//! Content negotiation (D-12): `Content-Type` selects the request representation among the
//! operation's request media types, `Accept` the answer's among its response media types.

use core_api_support::{MediaType, Operation, Representation};
use poem::http::{HeaderMap, header};

use crate::error::ApiError;

/// One media range of an `Accept` header.
#[derive(Debug, Clone, PartialEq)]
struct Range {
    essence: String,
    quality: f32,
}

impl Range {
    /// How specifically the range names a media type (0 for `*/*`), if it matches at all.
    fn specificity(&self, essence: &str) -> Option<u8> {
        if self.essence == "*/*" {
            return Some(0);
        }
        if let Some(kind) = self.essence.strip_suffix("/*") {
            return essence
                .split('/')
                .next()
                .filter(|own| *own == kind)
                .map(|_| 1);
        }
        (self.essence == essence).then_some(2)
    }
}

/// The essence (type/subtype, lower case) and parameters of a media type.
fn split(value: &str) -> (String, Vec<(String, String)>) {
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let parameters = parts
        .filter_map(|parameter| {
            let (name, value) = parameter.split_once('=')?;
            Some((
                name.trim().to_ascii_lowercase(),
                value.trim().trim_matches('"').to_string(),
            ))
        })
        .collect();
    (essence, parameters)
}

fn accept_ranges(headers: &HeaderMap) -> Option<Vec<Range>> {
    let mut ranges = Vec::new();
    for value in headers.get_all(header::ACCEPT) {
        let value = value.to_str().ok()?;
        for item in value.split(',').filter(|item| !item.trim().is_empty()) {
            let (essence, parameters) = split(item);
            let quality = parameters
                .iter()
                .find(|(name, _)| name == "q")
                .map_or(Some(1.0), |(_, value)| {
                    value
                        .parse::<f32>()
                        .ok()
                        .filter(|q| (0.0..=1.0).contains(q))
                })
                .unwrap_or(0.0);
            ranges.push(Range { essence, quality });
        }
    }
    (!ranges.is_empty()).then_some(ranges)
}

/// The quality the ranges give a media type: that of the most specific matching range.
fn quality(ranges: &[Range], essence: &str) -> f32 {
    ranges
        .iter()
        .filter_map(|range| {
            range
                .specificity(essence)
                .map(|specificity| (specificity, range.quality))
        })
        .max_by_key(|(specificity, _)| *specificity)
        .map_or(0.0, |(_, quality)| quality)
}

/// The best of `media` for the `Accept` header: highest quality, then the request's
/// representation, then document order. `None` when the header admits none of them. Without an
/// `Accept` header, the request's representation if listed, else the first listed.
fn best(
    media: &'static [MediaType],
    headers: &HeaderMap,
    request: Option<Representation>,
) -> Option<&'static MediaType> {
    let preferred = |candidate: &&MediaType| Some(candidate.representation) == request;
    let Some(ranges) = accept_ranges(headers) else {
        return media.iter().find(preferred).or_else(|| media.first());
    };
    let mut best: Option<(&'static MediaType, f32)> = None;
    for candidate in media {
        let q = quality(&ranges, candidate.essence);
        if q <= 0.0 {
            continue;
        }
        let better = match best {
            None => true,
            Some((current, current_q)) => {
                q > current_q || (q == current_q && preferred(&candidate) && !preferred(&current))
            }
        };
        if better {
            best = Some((candidate, q));
        }
    }
    best.map(|(media, _)| media)
}

/// The request body's media type: the one `Content-Type` names; without the header, the only
/// one the operation takes (`None` when it takes several, or no body).
pub fn request(
    operation: &'static Operation,
    headers: &HeaderMap,
) -> Result<Option<&'static MediaType>, ApiError> {
    let Some(body) = &operation.request else {
        return Ok(None);
    };
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(match body.media {
            [only] => Some(only),
            _ => None,
        });
    };
    let text = value.to_str().unwrap_or_default();
    let (essence, parameters) = split(text);
    let charset_ok = parameters
        .iter()
        .filter(|(name, _)| name == "charset")
        .all(|(_, value)| value.eq_ignore_ascii_case("utf-8"));
    body.media
        .iter()
        .find(|media| media.essence == essence && charset_ok)
        .map(Some)
        .ok_or_else(|| ApiError::UnsupportedMediaType(text.to_string()))
}

/// The answer's media type.
pub fn response(
    operation: &'static Operation,
    headers: &HeaderMap,
    request: Option<Representation>,
) -> Result<&'static MediaType, ApiError> {
    best(operation.response.media, headers, request).ok_or_else(|| {
        let accept = headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .collect::<Vec<_>>()
            .join(", ");
        ApiError::NotAcceptable(accept)
    })
}

/// The media type of an error body: the best message representation `Accept` admits, else the
/// request's, else JSON (D-05).
pub fn error(headers: &HeaderMap) -> &'static MediaType {
    let media = core_api::document::ERROR_MEDIA;
    let request = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| split(value).0)
        .and_then(|essence| media.iter().find(|media| media.essence == essence))
        .map(|media| media.representation);
    let json = || {
        media
            .iter()
            .find(|media| media.representation == Representation::Json)
    };
    let chosen = match accept_ranges(headers) {
        Some(_) => best(media, headers, request.or(Some(Representation::Json))),
        None => {
            request.and_then(|request| media.iter().find(|media| media.representation == request))
        }
    };
    chosen.or_else(json).unwrap_or(&media[0])
}

#[cfg(test)]
mod tests {
    use core_api::operations;
    use poem::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn content_type_selects_the_request_representation() {
        let op = &operations::KEYWORDS_PERSIST;
        let xml = headers(&[(header::CONTENT_TYPE, "application/xml")]);
        assert_eq!(
            request(op, &xml).unwrap().unwrap().representation,
            Representation::Xml
        );
        let compact = headers(&[(header::CONTENT_TYPE, "application/json+compact")]);
        assert_eq!(
            request(op, &compact).unwrap().unwrap().representation,
            Representation::Compact
        );
        let latin = headers(&[(header::CONTENT_TYPE, "application/xml; charset=ISO-8859-1")]);
        assert!(matches!(
            request(op, &latin),
            Err(ApiError::UnsupportedMediaType(_))
        ));
        let text = headers(&[(header::CONTENT_TYPE, "text/plain")]);
        assert!(matches!(
            request(op, &text),
            Err(ApiError::UnsupportedMediaType(_))
        ));
    }

    #[test]
    fn accept_selects_the_answer_with_quality_values() {
        let op = &operations::KEYWORDS_PERSIST;
        let none = headers(&[]);
        assert_eq!(
            response(op, &none, Some(Representation::Json))
                .unwrap()
                .representation,
            Representation::Json
        );
        let any = headers(&[(header::ACCEPT, "*/*")]);
        assert_eq!(
            response(op, &any, Some(Representation::Compact))
                .unwrap()
                .representation,
            Representation::Compact
        );
        let ranked = headers(&[(
            header::ACCEPT,
            "application/json;q=0.5, application/xml;q=0.9",
        )]);
        assert_eq!(
            response(op, &ranked, Some(Representation::Json))
                .unwrap()
                .representation,
            Representation::Xml
        );
        let csv = headers(&[(header::ACCEPT, "text/csv")]);
        assert!(matches!(
            response(op, &csv, None),
            Err(ApiError::NotAcceptable(_))
        ));
        let refused = headers(&[(header::ACCEPT, "application/json;q=0")]);
        assert!(matches!(
            response(&operations::COMPONENTS_RETRIEVE, &refused, None),
            Err(ApiError::NotAcceptable(_))
        ));
    }

    #[test]
    fn errors_follow_accept_then_the_request_then_json() {
        assert_eq!(error(&headers(&[])).representation, Representation::Json);
        let xml = headers(&[(header::CONTENT_TYPE, "application/xml; charset=UTF-8")]);
        assert_eq!(error(&xml).representation, Representation::Xml);
        let compact = headers(&[(header::ACCEPT, "application/json+compact")]);
        assert_eq!(error(&compact).representation, Representation::Compact);
        let csv = headers(&[(header::ACCEPT, "text/csv")]);
        assert_eq!(error(&csv).representation, Representation::Json);
    }
}
