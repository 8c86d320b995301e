//! What the Common operations are sent: a well-formed request of each, and a scenario per rule
//! and item message.

use core_api::messages as msg;
use serde_json::{Value, json};

use super::{Scenario, request, scenario};
use crate::bodies::{actions, delete, names};
use core_api::operations as op;

pub(super) fn common() -> Vec<Scenario> {
    vec![
        request(&op::TRANSFORM).send(body!({"schemaVersion": "5.6.0",
            "meta": {"itm": [{"key": "messageType", "value": "request"}]},
            "kwds": {"kwd": [{"path": "/a", "name": {"itm": [{"value": "a"}, {"value": "A", "loc": "de_DE"}]}}]}})),
        request(&op::LOCALES_RETRIEVE)
            .send(body!({"mode": "TID", "tids": ["de_DE", "en_GB"], "exportConfig": true})),
        request(&op::KEYWORDS_RETRIEVE)
            .send(body!({"path": "/core-conformance/Season", "level": -1, "retrieveLinks": true})),
        request(&op::KEYWORDS_PERSIST).send(keyword),
        request(&op::GLOSSARY_ENTRIES_PERSIST).send(glossary_entry),
        request(&op::GLOSSARY_ENTRIES_PERFORM)
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(delete_glossary_entry),
        request(&op::COMPONENTS_RETRIEVE).send(body!({})),
        request(&op::MESSAGES_PERSIST).send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance",
            "body": "A message of a conformance run.", "severity": "ERROR", "recipientRole": "core-conformance-insiders"}]})),
        request(&op::LINKS_PERSIST)
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}})),
        scenario(&op::KEYWORDS_RETRIEVE, "404 for an unknown path", &[msg::KEYWORD_WITH_PATH_PATH_NOT_FOUND])
            .send(body!({"path": "/core-conformance/{u}"}))
            .refused(404, "Keyword with path '/core-conformance/{u}' not found"),
        scenario(&op::KEYWORDS_PERSIST, "creates a keyword", &[msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY])
            .send(keyword)
            .records(&[("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY)]),
        scenario(&op::KEYWORDS_PERSIST, "updates a keyword by path", &[msg::THE_KEYWORD_HAS_BEEN_UPDATED_SUCCESSFULLY])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"kwds": {"kwd": [{"path": "/core-conformance/{u}", "name": {"itm": [{"value": "{u}"}, {"value": "{u}", "loc": "en_GB"}]}}]}}))
            .records(&[("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_UPDATED_SUCCESSFULLY)]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an unknown parent path", &[msg::PARENT_KEYWORD_WITH_PATH_PATH_NOT_FOUND])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance/{u}", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Parent keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an update of an unknown path", &[msg::KEYWORD_WITH_PATH_PATH_NOT_FOUND])
            .send(body!({"kwds": {"kwd": [{"path": "/core-conformance/{u}", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a keyword that exists", &[msg::KEYWORD_PATH_ALREADY_EXISTS])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(keyword)
            .records(&[("ERROR", "Keyword '/core-conformance/{u}' already exists")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a create without a name", &[msg::MISSING_REQUIRED_VALUE_NAME])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance"}]}}))
            .records(&[("ERROR", msg::MISSING_REQUIRED_VALUE_NAME)]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a name with '/'", &[msg::INVALID_KEYWORD_NAME_NAME_A_NAME_MUST_NOT_CONTAIN])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}/x"}]}}]}}))
            .records(&[("ERROR", "Invalid keyword name '{u}/x': a name must not contain '/'")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses two names for one locale", &[msg::THE_NAME_FOR_LOCALE_LOC_IS_GIVEN_MORE_THAN_ONCE])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}"}, {"value": "a", "loc": "de_DE"}, {"value": "b", "loc": "de_DE"}]}}]}}))
            .records(&[("ERROR", "The name for locale 'de_DE' is given more than once")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses two default names", &[msg::THE_DEFAULT_NAME_IS_GIVEN_MORE_THAN_ONCE])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}"}, {"value": "{u}b"}]}}]}}))
            .records(&[("ERROR", msg::THE_DEFAULT_NAME_IS_GIVEN_MORE_THAN_ONCE)]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "creates an entry", &[msg::THE_GLOSSARY_ENTRY_HAS_BEEN_CREATED_SUCCESSFULLY])
            .send(glossary_entry)
            .records(&[("SUCCESS", msg::THE_GLOSSARY_ENTRY_HAS_BEEN_CREATED_SUCCESSFULLY)]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "updates an entry", &[msg::THE_GLOSSARY_ENTRY_HAS_BEEN_UPDATED_SUCCESSFULLY])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"id": "{id}", "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}b"}]}}]}}))
            .records(&[("SUCCESS", msg::THE_GLOSSARY_ENTRY_HAS_BEEN_UPDATED_SUCCESSFULLY)])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown entry type", &[msg::UNKNOWN_TRANSLATION_ENTRY_TYPE_TYPE])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "phrase",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Unknown translation entry type 'phrase'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an entry without a glossary", &[msg::GLOSSARY_ENTRY_DOES_NOT_CONTAIN_A_LINK_TO_A_GLOSSARY])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", msg::GLOSSARY_ENTRY_DOES_NOT_CONTAIN_A_LINK_TO_A_GLOSSARY)]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown glossary", &[msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-{u}", "loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY)]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown entry", &[msg::SENTENCE_WITH_IDENTITY_ID_NOT_FOUND])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"tid": "CF-{u}", "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "x"}]}}]}}))
            .records(&[("ERROR", "Sentence with identity 'CF-{u}' not found.")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown locale", &[msg::UNKNOWN_LOCALE_LOC])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "xx_XX", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "xx_XX", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Unknown locale 'xx_XX'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "deletes an entry", &[msg::THE_GLOSSARY_ENTRY_HAS_BEEN_DELETED_SUCCESSFULLY])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(delete_glossary_entry)
            .records(&[("SUCCESS", msg::THE_GLOSSARY_ENTRY_HAS_BEEN_DELETED_SUCCESSFULLY)]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "copies an entry", &[msg::THE_GLOSSARY_ENTRY_HAS_BEEN_COPIED_SUCCESSFULLY])
            .glossary()
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "{glossary}"}]}}]}}))
            .records(&[("SUCCESS", msg::THE_GLOSSARY_ENTRY_HAS_BEEN_COPIED_SUCCESSFULLY)])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "moves an entry", &[msg::THE_GLOSSARY_ENTRY_HAS_BEEN_MOVED_SUCCESSFULLY])
            .glossary()
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "moveToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "{glossary}"}]}}]}}))
            .records(&[("SUCCESS", msg::THE_GLOSSARY_ENTRY_HAS_BEEN_MOVED_SUCCESSFULLY)])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unknown target glossary", &[msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "2000000000"}]}}]}}))
            .records(&[("ERROR", msg::THERE_IS_NO_GLOSSARY_WITH_THE_GIVEN_IDENTITY)])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unknown entry", &[msg::THERE_IS_NO_GLOSSARY_ENTRY_WITH_THE_GIVEN_TID_IDENTITY])
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[("ERROR", msg::THERE_IS_NO_GLOSSARY_ENTRY_WITH_THE_GIVEN_TID_IDENTITY)]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses a copy without glossaryId", &[msg::MISSING_REQUIRED_VALUE_GLOSSARYID])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, glossary_entry)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}"}]}}))
            .records(&[("ERROR", msg::MISSING_REQUIRED_VALUE_GLOSSARYID)])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unsupported action type", &[msg::UNSUPPORTED_ACTION_TYPE_TYPE])
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "archive", "tid": "CF-GE-1"}]}}))
            .records(&[("ERROR", "Unsupported action type 'archive'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unsupported data type", &[msg::UNSUPPORTED_DATA_TYPE_TYPE])
            .send(body!({"actions": {"action": [{"dataType": "keyword", "type": "delete", "tid": "CF-GE-1"}]}}))
            .records(&[("ERROR", "Unsupported data type 'keyword'")]),
        scenario(&op::MESSAGES_PERSIST, "sends a message", &[msg::THE_MESSAGE_HAS_BEEN_SENT_SUCCESSFULLY])
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "severity": "ERROR", "recipientRole": "core-conformance-insiders"}]}))
            .records(&[("SUCCESS", msg::THE_MESSAGE_HAS_BEEN_SENT_SUCCESSFULLY)]),
        scenario(&op::MESSAGES_PERSIST, "refuses a message that exists", &[msg::MESSAGE_TID_ALREADY_EXISTS])
            .after(&op::MESSAGES_PERSIST, body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "recipientUser": "core-conformance"}]}))
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "recipientUser": "core-conformance"}]}))
            .records(&[("ERROR", "Message 'CF-{u}' already exists")]),
        scenario(&op::LINKS_PERSIST, "links an asset to a keyword", &[msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("SUCCESS", msg::THE_LINK_HAS_BEEN_SAVED_SUCCESSFULLY)]),
        scenario(&op::LINKS_PERSIST, "refuses a second link of an asset to a keyword", &[msg::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_KEYWORD])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", msg::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_KEYWORD)]),
        scenario(&op::LINKS_PERSIST, "refuses a second link of an asset to a product", &[msg::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_PRODUCT])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Image", "itm": [
                {"key": "productTid", "value": "CF-PR-1"}, {"key": "assetTid", "value": "CF-A-2"}]}]}]}}))
            .records(&[("ERROR", msg::ASSET_HAS_BEEN_ALREADY_LINKED_TO_THE_PRODUCT)]),
        scenario(&op::LINKS_PERSIST, "refuses a link beyond the attribute's cardinality", &[msg::PRODUCT_ATTRIBUTE_CARDINALITY_HAS_BEEN_EXCEEDED])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Image", "itm": [
                {"key": "productTid", "value": "CF-PR-1"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", msg::PRODUCT_ATTRIBUTE_CARDINALITY_HAS_BEEN_EXCEEDED)]),
        scenario(&op::LINKS_PERSIST, "refuses unknown assets, products and attributes", &[msg::ASSET_NOT_FOUND, msg::PRODUCT_NOT_FOUND, msg::ATTRIBUTE_NOT_FOUND])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-{u}"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-{u}"}, {"key": "assetTid", "value": "CF-A-3"}]},
                {"type": "CF-{u}", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", msg::ASSET_NOT_FOUND), ("ERROR", msg::PRODUCT_NOT_FOUND), ("ERROR", msg::ATTRIBUTE_NOT_FOUND)]),
        scenario(&op::LINKS_PERSIST, "refuses an asset the caller may not see", &[msg::ASSET_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS])
            .limited()
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Gallery", "itm": [
                {"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-A-Hidden"}]}]}]}}))
            .records(&[("ERROR", msg::ASSET_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS)]),
        scenario(&op::LINKS_PERSIST, "refuses a product the caller may not see", &[msg::PRODUCT_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS])
            .limited()
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Gallery", "itm": [
                {"key": "productTid", "value": "CF-PR-Hidden"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", msg::PRODUCT_IS_NOT_AVAILABLE_BY_ACCESS_RIGHTS)]),
        scenario(&op::LINKS_PERSIST, "refuses an unknown keyword path", &[msg::KEYWORD_WITH_PATH_PATH_NOT_FOUND])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an unknown parent id", &[msg::PARENT_KEYWORD_WITH_IDENTITY_ID_NOT_FOUND])
            .send(body!({"kwds": {"kwd": [{"parentId": 2_000_000_000, "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Parent keyword with identity '2000000000' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an update of an unknown id", &[msg::KEYWORD_WITH_IDENTITY_ID_NOT_FOUND])
            .send(body!({"kwds": {"kwd": [{"id": 2_000_000_000, "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Keyword with identity '2000000000' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses moving a keyword", &[msg::KEYWORD_PATH_CANNOT_BE_MOVED_TO_ANOTHER_PARENT])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"kwds": {"kwd": [{"id": "{id}", "parentPath": "/core-conformance/Season", "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Keyword '/core-conformance/{u}' cannot be moved to another parent")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a path longer than 1024 characters", &[msg::A_KEYWORD_PATH_HAS_AT_MOST_1024_CHARACTERS_THIS_ONE_WOULD_HAVE_LENGTH])
            .send(long_paths)
            .records(&[
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("SUCCESS", msg::THE_KEYWORD_HAS_BEEN_CREATED_SUCCESSFULLY),
                ("ERROR", "A keyword path has at most 1024 characters; this one would have 1025"),
            ]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses a create without a locale", &[msg::MISSING_REQUIRED_VALUE_FIELD])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "type": "term",
                "meta": {"itm": [{"key": "value", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Missing required value 'loc'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an invalid flag", &[msg::INVALID_VALUE_VALUE_FOR_KEY])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}, {"key": "forbidden", "value": "maybe"}]}}]}}))
            .records(&[("ERROR", "Invalid value 'maybe' for 'forbidden'")]),
        scenario(&op::MESSAGES_PERSIST, "refuses a message without a recipient", &[msg::EITHER_RECIPIENTUSER_OR_RECIPIENTROLE_MUST_BE_GIVEN])
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x"}]}))
            .refused_records(400, &[("ERROR", msg::EITHER_RECIPIENTUSER_OR_RECIPIENTROLE_MUST_BE_GIVEN)]),
        scenario(&op::LINKS_PERSIST, "refuses an unknown keyword id", &[msg::KEYWORD_WITH_IDENTITY_ID_NOT_FOUND])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordId", "value": "2000000000"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Keyword with identity '2000000000' not found")]),
        scenario(&op::LINKS_PERSIST, "refuses malformed link items", &[msg::INVALID_VALUE_VALUE_FOR_KEY, msg::MISSING_REQUIRED_VALUE_KEY, msg::GIVE_ONE_TIDKEY_OR_ONE_IDKEY])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "CF-Gallery", "itm": [{"key": "productId", "value": "x"}, {"key": "assetTid", "value": "CF-A-3"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "productId", "value": "1"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[
                ("ERROR", "Invalid value 'x' for 'productId'"),
                ("ERROR", "Missing required value 'assetTid'"),
                ("ERROR", "Give one 'productTid' or one 'productId'"),
            ]),
        scenario(&op::LINKS_PERSIST, "refuses an unsupported link type", &[msg::UNSUPPORTED_LINK_TYPE_TYPE])
            .send(body!({"links": {"itms": [{"type": "assetToCF", "itms": [{"itm": [{"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Unsupported link type 'assetToCF'")]),
    ]
}

/// A keyword create under `/core-conformance`, named `name`.
fn keyword(name: &str) -> Value {
    json!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": names(name, &[("de_DE", name)])}]}})
}

/// A glossary entry create in `CF-GL-1` (a term in `de_DE`) with the value `value`.
fn glossary_entry(value: &str) -> Value {
    json!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "term",
        "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": value}]}}]}})
}

/// The delete of the glossary entry the setup created.
fn delete_glossary_entry(_: &str) -> Value {
    actions([delete("glossaryEntry", json!({"id": "{id}"}))])
}

/// A chain of keywords under `/core-conformance/<u>` whose last would have a path of 1,025
/// characters (names are at most 255).
fn long_paths(u: &str) -> Value {
    let mut parent = format!("/core-conformance/{u}");
    let mut items =
        vec![json!({"parentPath": "/core-conformance", "name": {"itm": [{"value": u}]}})];
    for letter in ['a', 'b', 'c'] {
        let name = letter.to_string().repeat(255);
        items.push(json!({"parentPath": parent, "name": {"itm": [{"value": name}]}}));
        parent = format!("{parent}/{name}");
    }
    let last = "d".repeat(1025 - parent.chars().count() - 1);
    items.push(json!({"parentPath": parent, "name": {"itm": [{"value": last}]}}));
    json!({"kwds": {"kwd": items}})
}
