//! The item messages an operation's description states (quoted texts) and whether a text said
//! by the server is one of them (`<placeholders>` stand for any text). The runner counts what
//! its checks asserted with these, and so does the contract suite's coverage report.

use core_api_support::Operation;
use serde_json::Value;

/// The quoted texts of a description that are item messages: they start with a capital letter
/// and have more than one word.
pub fn messages(description: &str) -> Vec<String> {
    let flat = description.replace('\n', " ");
    flat.split('"')
        .skip(1)
        .step_by(2)
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| text.starts_with(|c: char| c.is_ascii_uppercase()) && text.contains(' '))
        .collect()
}

/// Whether a message whose `<placeholders>` stand for any text matches a text said.
pub fn matches(template: &str, text: &str) -> bool {
    let mut parts = template.split('<').enumerate().map(|(index, part)| {
        if index == 0 {
            part
        } else {
            part.split_once('>').map_or(part, |(_, rest)| rest)
        }
    });
    let Some(first) = parts.next() else {
        return text.is_empty();
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (index, part) in parts.iter().enumerate() {
        let last = index + 1 == parts.len();
        if last {
            return part.is_empty() || rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty() || template.ends_with('>')
}

/// The item messages stated by an operation's description in a document (as a JSON tree).
pub fn stated(document: &Value, operation: &Operation) -> Vec<String> {
    let description = document["paths"][operation.path]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, operation)| operation["description"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    messages(&description)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_match_any_text() {
        let template = "Unknown translation entry type '<type>'";
        assert!(matches(template, "Unknown translation entry type 'phrase'"));
        assert!(!matches(template, "Unknown locale 'xx_XX'"));
        assert!(!matches("Asset not found", "Asset not found here"));
        assert!(matches("Asset not found", "Asset not found"));
        assert!(matches(
            "A keyword path has at most 1024 characters; this one would have <length>",
            "A keyword path has at most 1024 characters; this one would have 1025"
        ));
        assert!(matches(
            "Keyword '<path>' already exists",
            "Keyword '/a' already exists"
        ));
        assert_eq!(
            messages(
                "Errors: \"Asset not found\", \"abc\", `x` \"Keyword '<path>'\n already exists\"."
            ),
            ["Asset not found", "Keyword '<path>' already exists"]
        );
    }
}
