//! The deliberate deviations of [`Settings::deviation`] that change an operation's answer
//! after it is made (`WrongSuccessText`, `XmlOutOfOrder`), applied around the application so that
//! no operation knows of them. `DropMeta` changes the envelope itself (`modules::envelope`).
//!
//! [`Settings::deviation`]: crate::settings::Settings::deviation

use core_api::{messages, operations::LOCALES_RETRIEVE};
use core_api_support::Operation;
use poem::{Body, Response, http::header};

use crate::settings::Deviation;

/// The documented success text `WrongSuccessText` replaces, and what replaces it.
const WRONG_SUCCESS_TEXT: (&str, &str) = (
    messages::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY,
    "The keyword was created",
);

/// The answer of an operation under a deviation: unchanged unless it rewrites answers.
pub(crate) async fn apply(
    deviation: Option<Deviation>,
    operation: &Operation,
    response: Response,
) -> Response {
    let rewrite: fn(String) -> String = match deviation {
        Some(Deviation::WrongSuccessText) => wrong_success_text,
        Some(Deviation::XmlOutOfOrder)
            if operation.id == LOCALES_RETRIEVE.id && is_xml(&response) =>
        {
            meta_last
        }
        _ => return response,
    };
    let (mut parts, body) = response.into_parts();
    let Ok(text) = body.into_string().await else {
        return Response::from_parts(parts, Body::empty());
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from_string(rewrite(text)))
}

/// A whole `description` of the documented text replaced: a JSON string or an XML element's text.
fn wrong_success_text(text: String) -> String {
    let (documented, wrong) = WRONG_SUCCESS_TEXT;
    text.replace(&format!("\"{documented}\""), &format!("\"{wrong}\""))
        .replace(&format!(">{documented}<"), &format!(">{wrong}<"))
}

/// The envelope's `meta` (the first, which no other precedes) moved to the end of the root.
fn meta_last(text: String) -> String {
    const END: &str = "</meta>";
    let (Some(start), Some(end), Some(root_end)) =
        (text.find("<meta>"), text.find(END), text.rfind("</pim>"))
    else {
        return text;
    };
    let end = end + END.len();
    if end > root_end {
        return text;
    }
    let meta = &text[start..end];
    format!(
        "{}{}{meta}{}",
        &text[..start],
        &text[end..root_end],
        &text[root_end..]
    )
}

/// Whether an answer is in XML.
fn is_xml(response: &Response) -> bool {
    response
        .content_type()
        .is_some_and(|media| media.starts_with("application/xml"))
}
