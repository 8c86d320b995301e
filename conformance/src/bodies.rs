//! Request bodies by what they ask, typed once: the conformance scenarios build their requests
//! from them, and the contract tests (`contract-tests`) build theirs on their own catalogues.

use serde_json::{Value, json};

/// A name in the default language only: `{"itm": [{"value": …}]}`.
pub fn name(value: &str) -> Value {
    json!({"itm": [{"value": value}]})
}

/// A name in the default language and in each `(loc, value)` given.
pub fn names(default: &str, localized: &[(&str, &str)]) -> Value {
    let localized = localized
        .iter()
        .map(|(loc, value)| json!({"value": value, "loc": loc}));
    json!({"itm": std::iter::once(json!({"value": default})).chain(localized).collect::<Vec<_>>()})
}

/// Key-value items, `[{"key": …, "value": …}, …]`: the `itm` of a `meta` or of a link item.
pub fn itm(items: &[(&str, &str)]) -> Value {
    json!(
        items
            .iter()
            .map(|(key, value)| json!({"key": key, "value": value}))
            .collect::<Vec<_>>()
    )
}

/// A node attribute to create: definition `key` with every required property (a product-level,
/// visible, optional, unlocalized attribute).
pub fn attribute(key: &str) -> Value {
    json!({"key": key, "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false})
}

/// The same attribute on the node at `node_path`.
pub fn attribute_at(node_path: &str, key: &str) -> Value {
    let mut attribute = attribute(key);
    attribute["nodePath"] = json!(node_path);
    attribute
}

/// A `delete` action of a data type on the item `identity` names (`{"tid": …}`, `{"id": …}`, …).
pub fn delete(data_type: &str, identity: Value) -> Value {
    let mut action = json!({"dataType": data_type, "type": "delete"});
    if let (Some(action), Some(identity)) = (action.as_object_mut(), identity.as_object()) {
        action.extend(identity.clone());
    }
    action
}

/// The body of a perform operation: these actions, in order.
pub fn actions(actions: impl IntoIterator<Item = Value>) -> Value {
    json!({"actions": {"action": actions.into_iter().collect::<Vec<_>>()}})
}
