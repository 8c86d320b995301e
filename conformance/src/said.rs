//! The item messages an operation's description states (quoted texts) and whether a text said
//! by the server is one of them (`<placeholders>` stand for any text). The runner counts what
//! its checks asserted with these, and so does the contract suite's coverage report.

use core_api_support::Operation;
use serde_json::Value;

/// The quoted texts of a description that are item messages: they start with a capital letter
/// and have more than one word.
pub use core_api_support::stated as messages;

/// Whether a message whose `<placeholders>` stand for any text matches a text said.
pub use core_api_support::matches;

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
