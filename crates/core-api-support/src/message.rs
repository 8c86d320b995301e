//! Item messages as the document states them: the quoted texts of a description ([`stated`]), a
//! text whose `<placeholders>` a record fills in ([`fill`]), and whether a text said is one of
//! them ([`matches`]).

use std::fmt::Display;

/// The quoted texts of a description that are item messages: they start with a capital letter
/// and have more than one word.
pub fn stated(description: &str) -> Vec<String> {
    let flat = description.replace('\n', " ");
    flat.split('"')
        .skip(1)
        .step_by(2)
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| text.starts_with(|c: char| c.is_ascii_uppercase()) && text.contains(' '))
        .collect()
}

/// A stated message with each `<placeholder>` replaced by the next value, in order (a
/// placeholder without a value is kept as stated).
pub fn fill(template: &str, values: &[&dyn Display]) -> String {
    let mut filled = String::with_capacity(template.len() + 16 * values.len());
    let mut values = values.iter();
    let mut rest = template;
    while let Some(start) = rest.find('<') {
        let Some(length) = rest[start..].find('>') else {
            break;
        };
        filled.push_str(&rest[..start]);
        match values.next() {
            Some(value) => filled.push_str(&value.to_string()),
            None => filled.push_str(&rest[start..=start + length]),
        }
        rest = &rest[start + length + 1..];
    }
    filled.push_str(rest);
    filled
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

#[cfg(test)]
mod tests {
    use super::{fill, matches};

    #[test]
    fn placeholders_are_filled_in_order() {
        let template = "Parent node with path '<path>' not found for node '<path>'";
        let filled = fill(template, &[&"/A", &"/A/B"]);
        assert_eq!(
            filled,
            "Parent node with path '/A' not found for node '/A/B'"
        );
        assert!(matches(template, &filled));
        assert_eq!(
            fill("Node with id <id> not found", &[&7]),
            "Node with id 7 not found"
        );
        assert_eq!(fill("Asset not found", &[]), "Asset not found");
        assert_eq!(
            fill("Project '<tid>' not found", &[]),
            "Project '<tid>' not found"
        );
    }
}
