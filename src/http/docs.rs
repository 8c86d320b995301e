//! The docs pages: `GET /docs` (Swagger UI) and `GET /redoc` (Redoc), both over the published
//! document, with their scripts and styles inside the page (poem-openapi embeds them in the
//! binary), so that they work on a machine without internet.
//!
//! poem-openapi writes these pages around a document it makes from Rust code; here it is given no
//! API at all, and the document it embeds is replaced by ours, which stays the one source. The
//! pages' copy lists this server (`/`) first among the servers, so that "Try it out" calls the
//! server that served the page, and `application/json` first among the media types of every
//! body and answer, so that "Try it out" speaks JSON unless XML is chosen; the XML namespace is
//! the configured one (D-53).
//!
//! Each page carries a `Content-Security-Policy` that lets run only its own inline scripts (by
//! their SHA-256), fetch only from this server, and be framed by no one (`policy`).

use base64::Engine;
use bytes::Bytes;
use core_api::document;
use poem::{Response, endpoint::make_sync, get};
use poem_openapi::OpenApiService;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The path of the Swagger UI page.
pub const SWAGGER_UI_PATH: &str = "/docs";
/// The path of the Redoc page.
pub const REDOC_PATH: &str = "/redoc";

/// The two pages, written once at start.
pub struct Pages {
    /// Swagger UI.
    pub swagger_ui: poem::RouteMethod,
    /// Redoc.
    pub redoc: poem::RouteMethod,
}

/// Writes both pages for the configured XML namespace.
pub fn pages(namespace: &str) -> Pages {
    let empty = OpenApiService::new((), "", "");
    let placeholder = empty.spec();
    let ours = embedded_document(namespace);
    let page = |html: String| {
        let html = Bytes::from(without_remote_styles(&html.replacen(
            &placeholder,
            &ours,
            1,
        )));
        let policy = policy(&html);
        get(make_sync(move |_| {
            Response::builder()
                .content_type("text/html; charset=utf-8")
                .header(poem::http::header::CONTENT_SECURITY_POLICY, policy.as_str())
                .body(html.clone())
        }))
    };
    Pages {
        swagger_ui: page(empty.swagger_ui_html()),
        redoc: page(empty.redoc_html()),
    }
}

/// The published document as the pages show it: this server first among the servers, and the
/// configured XML namespace.
fn embedded_document(namespace: &str) -> String {
    let text = if namespace == document::XML_NAMESPACE_DEFAULT {
        document::OPENAPI_JSON.to_string()
    } else {
        document::OPENAPI_JSON.replace(document::XML_NAMESPACE_DEFAULT, namespace)
    };
    let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
        // The published document is JSON by construction (codegen writes it); if it were not,
        // the page shows it as it is.
        return text;
    };
    let this_server =
        json!({"url": "/", "description": "This server (the one serving this page)."});
    match value.get_mut("servers").and_then(Value::as_array_mut) {
        Some(servers) => servers.insert(0, this_server),
        None => value["servers"] = json!([this_server]),
    }
    json_first(&mut value);
    value.to_string()
}

/// Puts `application/json` first in every `content` of `value` (the other media types keep their
/// order after it): "Try it out" sends and asks for the first media type a body or answer lists,
/// and most answers list XML first in the published document. XML stays selectable.
fn json_first(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object.iter_mut() {
                if key == "content"
                    && let Value::Object(media) = inner
                {
                    let (json, other): (Vec<_>, Vec<_>) = std::mem::take(media)
                        .into_iter()
                        .partition(|(name, _)| name.split(';').next() == Some("application/json"));
                    media.extend(json.into_iter().chain(other));
                }
                json_first(inner);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(json_first),
        _ => {}
    }
}

/// Drops the stylesheets a page would fetch from elsewhere (Redoc's page asks a font service for
/// its fonts): the page uses the browser's fonts instead, and fetches nothing beyond this server.
fn without_remote_styles(html: &str) -> String {
    html.lines()
        .filter(|line| {
            let line = line.trim_start();
            !(line.starts_with("<link") && line.contains("href=\"http"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The page's `Content-Security-Policy`: its inline scripts by hash and nothing else to run;
/// styles inline (both UIs set them from script); images and fonts from this server or `data:`;
/// calls ("Try it out") to this server; Redoc's search worker from a `blob:`; no framing, no
/// `<base>`, no form posts.
fn policy(html: &[u8]) -> String {
    let mut hashes = Vec::new();
    let mut rest = &*String::from_utf8_lossy(html);
    // As the browser reads it: a script runs from its tag's `>` to the next `</script>`.
    while let Some((_, tag)) = rest.split_once("<script") {
        let Some((_, body)) = tag.split_once('>') else {
            break;
        };
        let Some((script, after)) = body.split_once("</script>") else {
            break;
        };
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(script));
        hashes.push(format!("'sha256-{hash}'"));
        rest = after;
    }
    format!(
        "default-src 'none'; script-src {}; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; \
         frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        hashes.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_embed_the_published_document_and_nothing_from_elsewhere() {
        let empty = OpenApiService::new((), "", "");
        for html in [empty.swagger_ui_html(), empty.redoc_html()] {
            assert!(
                html.contains(&empty.spec()),
                "the placeholder is in the page"
            );
        }
        let shown = embedded_document("urn:example:other");
        let value: Value = serde_json::from_str(&shown).expect("JSON");
        assert_eq!(value["servers"][0]["url"], "/");
        assert_eq!(value["servers"][1]["url"], "{base_url}");
        assert!(shown.contains("urn:example:other"));
        assert!(!shown.contains(document::XML_NAMESPACE_DEFAULT));
        let retrieve = &core_api::operations::KEYWORDS_RETRIEVE;
        let answer = &value["paths"][retrieve.path]["post"]["responses"]["200"]["content"];
        let listed: Vec<&String> = answer.as_object().expect("content").keys().collect();
        assert_eq!(listed[0], "application/json", "JSON first: {listed:?}");
        assert!(
            listed
                .iter()
                .any(|name| name.starts_with("application/xml"))
        );
        let redoc = without_remote_styles(&empty.redoc_html());
        assert!(!redoc.contains("<link href=\"http"), "no remote stylesheet");
        assert!(redoc.contains("Redoc.init"));
    }

    #[test]
    fn the_policy_names_every_inline_script_by_its_hash() {
        let policy = policy(b"<p><script charset=\"UTF-8\">a()</script><script>b()</script>");
        let a = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"a()"));
        let b = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"b()"));
        assert!(
            policy.starts_with(&format!(
                "default-src 'none'; script-src 'sha256-{a}' 'sha256-{b}';"
            )),
            "{policy}"
        );
        let empty = OpenApiService::new((), "", "");
        for html in [empty.swagger_ui_html(), empty.redoc_html()] {
            let scripts = html.matches("</script>").count();
            assert!(scripts >= 2, "the pages run inline scripts");
            assert_eq!(
                super::policy(html.as_bytes()).matches("'sha256-").count(),
                scripts
            );
        }
    }
}
