//! The message scenarios of the Common operations.

use super::{Scenario, delete_glossary_entry, long_paths, requests, requests::keyword, scenario};
use core_api::operations as op;

pub(super) fn common() -> Vec<Scenario> {
    vec![
        scenario(&op::KEYWORDS_RETRIEVE, "404 for an unknown path", &["Keyword with path '<path>' not found"])
            .send(body!({"path": "/core-conformance/{u}"}))
            .refused(404, "Keyword with path '/core-conformance/{u}' not found"),
        scenario(&op::KEYWORDS_PERSIST, "creates a keyword", &["The keyword has been created successfully"])
            .send(keyword)
            .records(&[("SUCCESS", "The keyword has been created successfully")]),
        scenario(&op::KEYWORDS_PERSIST, "updates a keyword by path", &["The keyword has been updated successfully"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"kwds": {"kwd": [{"path": "/core-conformance/{u}", "name": {"itm": [{"value": "{u}"}, {"value": "{u}", "loc": "en_GB"}]}}]}}))
            .records(&[("SUCCESS", "The keyword has been updated successfully")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an unknown parent path", &["Parent keyword with path '<path>' not found"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance/{u}", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Parent keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an update of an unknown path", &["Keyword with path '<path>' not found"])
            .send(body!({"kwds": {"kwd": [{"path": "/core-conformance/{u}", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a keyword that exists", &["Keyword '<path>' already exists"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(keyword)
            .records(&[("ERROR", "Keyword '/core-conformance/{u}' already exists")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a create without a name", &["Missing required value 'name'"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance"}]}}))
            .records(&[("ERROR", "Missing required value 'name'")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a name with '/'", &["Invalid keyword name '<name>': a name must not contain '/'"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}/x"}]}}]}}))
            .records(&[("ERROR", "Invalid keyword name '{u}/x': a name must not contain '/'")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses two names for one locale", &["The name for locale '<loc>' is given more than once"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}"}, {"value": "a", "loc": "de_DE"}, {"value": "b", "loc": "de_DE"}]}}]}}))
            .records(&[("ERROR", "The name for locale 'de_DE' is given more than once")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses two default names", &["The default name is given more than once"])
            .send(body!({"kwds": {"kwd": [{"parentPath": "/core-conformance", "name": {"itm": [{"value": "{u}"}, {"value": "{u}b"}]}}]}}))
            .records(&[("ERROR", "The default name is given more than once")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "creates an entry", &["The glossary entry has been created successfully"])
            .send(requests::glossary_entry_create)
            .records(&[("SUCCESS", "The glossary entry has been created successfully")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "updates an entry", &["The glossary entry has been updated successfully"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"id": "{id}", "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}b"}]}}]}}))
            .records(&[("SUCCESS", "The glossary entry has been updated successfully")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown entry type", &["Unknown translation entry type '<type>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "phrase",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Unknown translation entry type 'phrase'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an entry without a glossary", &["Glossary entry does not contain a link to a glossary"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Glossary entry does not contain a link to a glossary")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown glossary", &["There is no glossary with the given identity"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-{u}", "loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "There is no glossary with the given identity")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown entry", &["Sentence with identity '<id>' not found."])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"tid": "CF-{u}", "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "x"}]}}]}}))
            .records(&[("ERROR", "Sentence with identity 'CF-{u}' not found.")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an unknown locale", &["Unknown locale '<loc>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "xx_XX", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "xx_XX", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Unknown locale 'xx_XX'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "deletes an entry", &["The glossary entry has been deleted successfully"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(delete_glossary_entry)
            .records(&[("SUCCESS", "The glossary entry has been deleted successfully")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "copies an entry", &["The glossary entry has been copied successfully"])
            .glossary()
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "{glossary}"}]}}]}}))
            .records(&[("SUCCESS", "The glossary entry has been copied successfully")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "moves an entry", &["The glossary entry has been moved successfully"])
            .glossary()
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "moveToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "{glossary}"}]}}]}}))
            .records(&[("SUCCESS", "The glossary entry has been moved successfully")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unknown target glossary", &["There is no glossary with the given identity"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}",
                "meta": {"itm": [{"key": "glossaryId", "value": "2000000000"}]}}]}}))
            .records(&[("ERROR", "There is no glossary with the given identity")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unknown entry", &["There is no glossary entry with the given tid/identity"])
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[("ERROR", "There is no glossary entry with the given tid/identity")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses a copy without glossaryId", &["Missing required value 'glossaryId'"])
            .after(&op::GLOSSARY_ENTRIES_PERSIST, requests::glossary_entry_create)
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "copyToGlossary", "id": "{id}"}]}}))
            .records(&[("ERROR", "Missing required value 'glossaryId'")])
            .then(&op::GLOSSARY_ENTRIES_PERFORM, delete_glossary_entry),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unsupported action type", &["Unsupported action type '<type>'"])
            .send(body!({"actions": {"action": [{"dataType": "glossaryEntry", "type": "archive", "tid": "CF-GE-1"}]}}))
            .records(&[("ERROR", "Unsupported action type 'archive'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERFORM, "refuses an unsupported data type", &["Unsupported data type '<type>'"])
            .send(body!({"actions": {"action": [{"dataType": "keyword", "type": "delete", "tid": "CF-GE-1"}]}}))
            .records(&[("ERROR", "Unsupported data type 'keyword'")]),
        scenario(&op::MESSAGES_PERSIST, "sends a message", &["The message has been sent successfully"])
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "severity": "ERROR", "recipientRole": "core-conformance-insiders"}]}))
            .records(&[("SUCCESS", "The message has been sent successfully")]),
        scenario(&op::MESSAGES_PERSIST, "refuses a message that exists", &["Message '<tid>' already exists"])
            .after(&op::MESSAGES_PERSIST, body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "recipientUser": "core-conformance"}]}))
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x", "recipientUser": "core-conformance"}]}))
            .records(&[("ERROR", "Message 'CF-{u}' already exists")]),
        scenario(&op::LINKS_PERSIST, "links an asset to a keyword", &["The link has been saved successfully"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("SUCCESS", "The link has been saved successfully")]),
        scenario(&op::LINKS_PERSIST, "refuses a second link of an asset to a keyword", &["Asset has been already linked to the keyword"])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Asset has been already linked to the keyword")]),
        scenario(&op::LINKS_PERSIST, "refuses a second link of an asset to a product", &["Asset has been already linked to the product"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Image", "itm": [
                {"key": "productTid", "value": "CF-PR-1"}, {"key": "assetTid", "value": "CF-A-2"}]}]}]}}))
            .records(&[("ERROR", "Asset has been already linked to the product")]),
        scenario(&op::LINKS_PERSIST, "refuses a link beyond the attribute's cardinality", &["Product attribute cardinality has been exceeded"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Image", "itm": [
                {"key": "productTid", "value": "CF-PR-1"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", "Product attribute cardinality has been exceeded")]),
        scenario(&op::LINKS_PERSIST, "refuses unknown assets, products and attributes", &["Asset not found", "Product not found", "Attribute not found"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-{u}"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-{u}"}, {"key": "assetTid", "value": "CF-A-3"}]},
                {"type": "CF-{u}", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", "Asset not found"), ("ERROR", "Product not found"), ("ERROR", "Attribute not found")]),
        scenario(&op::LINKS_PERSIST, "refuses an asset the caller may not see", &["Asset is not available by access rights"])
            .limited()
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Gallery", "itm": [
                {"key": "productTid", "value": "CF-PR-2"}, {"key": "assetTid", "value": "CF-A-Hidden"}]}]}]}}))
            .records(&[("ERROR", "Asset is not available by access rights")]),
        scenario(&op::LINKS_PERSIST, "refuses a product the caller may not see", &["Product is not available by access rights"])
            .limited()
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [{"type": "CF-Gallery", "itm": [
                {"key": "productTid", "value": "CF-PR-Hidden"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[("ERROR", "Product is not available by access rights")]),
        scenario(&op::LINKS_PERSIST, "refuses an unknown keyword path", &["Keyword with path '<path>' not found"])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordPath", "value": "/core-conformance/{u}"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Keyword with path '/core-conformance/{u}' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an unknown parent id", &["Parent keyword with identity '<id>' not found"])
            .send(body!({"kwds": {"kwd": [{"parentId": 2_000_000_000, "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Parent keyword with identity '2000000000' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses an update of an unknown id", &["Keyword with identity '<id>' not found"])
            .send(body!({"kwds": {"kwd": [{"id": 2_000_000_000, "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Keyword with identity '2000000000' not found")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses moving a keyword", &["Keyword '<path>' cannot be moved to another parent"])
            .after(&op::KEYWORDS_PERSIST, keyword)
            .send(body!({"kwds": {"kwd": [{"id": "{id}", "parentPath": "/core-conformance/Season", "name": {"itm": [{"value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Keyword '/core-conformance/{u}' cannot be moved to another parent")]),
        scenario(&op::KEYWORDS_PERSIST, "refuses a path longer than 1024 characters", &["A keyword path has at most 1024 characters; this one would have <length>"])
            .send(long_paths)
            .records(&[
                ("SUCCESS", "The keyword has been created successfully"),
                ("SUCCESS", "The keyword has been created successfully"),
                ("SUCCESS", "The keyword has been created successfully"),
                ("SUCCESS", "The keyword has been created successfully"),
                ("ERROR", "A keyword path has at most 1024 characters; this one would have 1025"),
            ]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses a create without a locale", &["Missing required value '<field>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "type": "term",
                "meta": {"itm": [{"key": "value", "value": "{u}"}]}}]}}))
            .records(&[("ERROR", "Missing required value 'loc'")]),
        scenario(&op::GLOSSARY_ENTRIES_PERSIST, "refuses an invalid flag", &["Invalid value '<value>' for '<key>'"])
            .send(body!({"glossaryEntries": {"glossaryEntry": [{"parentTid": "CF-GL-1", "loc": "de_DE", "type": "term",
                "meta": {"itm": [{"key": "value", "loc": "de_DE", "value": "{u}"}, {"key": "forbidden", "value": "maybe"}]}}]}}))
            .records(&[("ERROR", "Invalid value 'maybe' for 'forbidden'")]),
        scenario(&op::MESSAGES_PERSIST, "refuses a message without a recipient", &["Either recipientUser or recipientRole must be given"])
            .send(body!({"messages": [{"tid": "CF-{u}", "subject": "core-conformance", "body": "x"}]}))
            .refused_records(400, &[("ERROR", "Either recipientUser or recipientRole must be given")]),
        scenario(&op::LINKS_PERSIST, "refuses an unknown keyword id", &["Keyword with identity '<id>' not found"])
            .send(body!({"links": {"itms": [{"type": "assetToKeyword", "itms": [{"itm": [
                {"key": "keywordId", "value": "2000000000"}, {"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Keyword with identity '2000000000' not found")]),
        scenario(&op::LINKS_PERSIST, "refuses malformed link items", &["Invalid value '<value>' for '<key>'", "Missing required value '<key>'", "Give one '<tidKey>' or one '<idKey>'"])
            .send(body!({"links": {"itms": [{"type": "assetToProduct", "itms": [
                {"type": "CF-Gallery", "itm": [{"key": "productId", "value": "x"}, {"key": "assetTid", "value": "CF-A-3"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}]},
                {"type": "CF-Gallery", "itm": [{"key": "productTid", "value": "CF-PR-2"}, {"key": "productId", "value": "1"}, {"key": "assetTid", "value": "CF-A-3"}]}]}]}}))
            .records(&[
                ("ERROR", "Invalid value 'x' for 'productId'"),
                ("ERROR", "Missing required value 'assetTid'"),
                ("ERROR", "Give one 'productTid' or one 'productId'"),
            ]),
        scenario(&op::LINKS_PERSIST, "refuses an unsupported link type", &["Unsupported link type '<type>'"])
            .send(body!({"links": {"itms": [{"type": "assetToCF", "itms": [{"itm": [{"key": "assetTid", "value": "CF-A-1"}]}]}]}}))
            .records(&[("ERROR", "Unsupported link type 'assetToCF'")]),
    ]
}
