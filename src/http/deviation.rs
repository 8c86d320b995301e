//! The deliberate deviations of [`Settings::deviation`] that change an operation's answer
//! after it is made (`WrongSuccessText`), applied around the application so that no operation
//! knows of them. `DropMeta` changes the envelope itself (`modules::envelope`).
//!
//! [`Settings::deviation`]: crate::settings::Settings::deviation

use core_api::messages;
use poem::{Body, Response, http::header};

use crate::settings::Deviation;

/// The documented success text `WrongSuccessText` replaces, and what replaces it.
const WRONG_SUCCESS_TEXT: (&str, &str) = (
    messages::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY,
    "The keyword was created",
);

/// The answer of an operation under a deviation: unchanged unless it rewrites answers.
pub(crate) async fn apply(deviation: Option<Deviation>, response: Response) -> Response {
    if deviation != Some(Deviation::WrongSuccessText) {
        return response;
    }
    let (documented, wrong) = WRONG_SUCCESS_TEXT;
    let (mut parts, body) = response.into_parts();
    let Ok(text) = body.into_string().await else {
        return Response::from_parts(parts, Body::empty());
    };
    // A whole `description`: a JSON string or an XML element's text.
    let text = text
        .replace(&format!("\"{documented}\""), &format!("\"{wrong}\""))
        .replace(&format!(">{documented}<"), &format!(">{wrong}<"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from_string(text))
}
