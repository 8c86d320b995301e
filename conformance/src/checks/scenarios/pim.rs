//! What the PIM operations are sent: a well-formed request of each, and a scenario per rule and
//! item message.

use core_api::messages as msg;
use serde_json::{Value, json};

use super::{Scenario, request, scenario};
use crate::bodies::{actions, attribute_at, delete, names};
use core_api::operations as op;

pub(super) fn pim() -> Vec<Scenario> {
    vec![
        request(&op::GET_CLASSES),
        request(&op::CLASSES_RETRIEVE).send(body!({"tids": ["CF-Apparel"], "withNodes": true})),
        request(&op::CLASSES_PERSIST)
            .send(classification)
            .then(&op::CLASSES_PERFORM, delete_classification),
        request(&op::CLASSES_PERFORM)
            .after(&op::CLASSES_PERSIST, classification)
            .send(delete_classification),
        request(&op::ATTRIBUTES_RETRIEVE).send(body!({"nodePaths": ["/CF-Apparel"], "withDomainValues": true, "withDefaultValues": true})),
        request(&op::ATTRIBUTES_QUERY).send(body!({"nodePath": ["/CF-Apparel/Shirts"], "includeParentAttributes": true})),
        request(&op::ATTRIBUTES_PERSIST)
            .after(&op::CLASSES_PERSIST, classification)
            .send(attribute)
            .then(&op::CLASSES_PERFORM, delete_classification),
        request(&op::ATTRIBUTES_PERFORM)
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"actions": {"action": [{"dataType": "attribute", "type": "delete", "id": "{id}"}]}}))
            .then(&op::CLASSES_PERFORM, delete_classification),
        request(&op::ATTRIBUTE_DEFINITIONS_QUERY).send(body!({"types": ["ref"]})),
        // Refused (the definition is in use), so that the fixture stays whole.
        request(&op::ATTRIBUTE_DEFINITIONS_PERFORM).send(body!({"actions": {"action": [
            {"dataType": "attrDefinition", "type": "delete", "tid": "CF-InUse"}]}})),
        scenario(&op::CLASSES_PERSIST, "creates a classification", &[msg::THE_CLASSIFICATION_HAS_BEEN_CREATED_SUCCESSFULLY])
            .send(classification)
            .records(&[("SUCCESS", msg::THE_CLASSIFICATION_HAS_BEEN_CREATED_SUCCESSFULLY)])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "saves a classification", &[msg::THE_CLASSIFICATION_HAS_BEEN_SAVED_SUCCESSFULLY])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}, {"value": "Neu", "loc": "de_DE"}]}}]}}))
            .records(&[("SUCCESS", msg::THE_CLASSIFICATION_HAS_BEEN_SAVED_SUCCESSFULLY)])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "warns about an unknown language", &[msg::CANNOT_FIND_LANGUAGE_ID_WITH_CODE_CODE])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "x", "loc": "xx_XX"}]}}]}}))
            .records(&[("WARNING", "The classification has been saved successfully|Cannot find language id with code 'xx_XX'.")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses a root node other than the classification", &[msg::UNABLE_TO_CREATE_THE_ROOT_NODE_PATH_OF_CLASSIFICATION_TID])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]},
                "nodes": {"node": [{"class": "CF-{u}", "path": "/CF-{u}-other", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Unable to create the root node '/CF-{u}-other' of classification 'CF-{u}'")]),
        scenario(&op::CLASSES_PERFORM, "deletes a classification", &[msg::THE_CLASSIFICATION_HAS_BEEN_DELETED_SUCCESSFULLY])
            .after(&op::CLASSES_PERSIST, classification)
            .send(delete_classification)
            .records(&[("SUCCESS", msg::THE_CLASSIFICATION_HAS_BEEN_DELETED_SUCCESSFULLY)]),
        scenario(&op::CLASSES_PERFORM, "refuses an unknown classification", &[msg::THERE_IS_NO_CLASSIFICATION_WITH_THE_GIVEN_IDENTITY_TID_OR_ID])
            .send(delete_classification)
            .records(&[("ERROR", "There is no classification with the given identity 'CF-{u}'")]),
        scenario(&op::ATTRIBUTES_PERSIST, "creates an attribute", &[msg::THE_ATTRIBUTE_HAS_BEEN_CREATED_SUCCESSFULLY])
            .after(&op::CLASSES_PERSIST, classification)
            .send(attribute)
            .records(&[("SUCCESS", msg::THE_ATTRIBUTE_HAS_BEEN_CREATED_SUCCESSFULLY)])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses an unknown node path", &[msg::NODE_WITH_PATH_PATH_NOT_FOUND])
            .send(attribute)
            .records(&[("ERROR", "Node with path /CF-{u} not found")]),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses an unknown definition", &[msg::ATTRIBUTE_DEFINITION_KEY_CANNOT_BE_FOUND])
            .send(body!({"attrs": {"attr": [{"nodePath": "/CF-Apparel", "key": "CF-{u}", "level": "p",
                "inheritance": "visible", "restriction": "optional", "localized": false}]}}))
            .records(&[("ERROR", "Attribute definition: 'CF-{u}' cannot be found")]),
        scenario(&op::ATTRIBUTES_PERFORM, "deletes an attribute", &[msg::THE_ATTRIBUTE_HAS_BEEN_DELETED_SUCCESSFULLY])
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"actions": {"action": [{"dataType": "attribute", "type": "delete", "id": "{id}"}]}}))
            .records(&[("SUCCESS", msg::THE_ATTRIBUTE_HAS_BEEN_DELETED_SUCCESSFULLY)])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses an unknown id", &[msg::THERE_IS_NO_CLASSIFICATION_WITH_THE_GIVEN_IDENTITY_ID])
            .send(body!({"classes": {"class": [{"id": 2_000_000_000, "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "There is no classification with the given identity '2000000000'")]),
        scenario(&op::CLASSES_PERSIST, "refuses another tid for an id", &[msg::THE_TID_OF_CLASSIFICATION_ID_IS_TID_AND_CANNOT_BE_CHANGED])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"id": "{id}", "tid": "CF-{u}-other", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "The tid of classification {id} is 'CF-{u}' and cannot be changed")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses a classification without a tid", &[msg::MISSING_REQUIRED_VALUE_TID])
            .send(body!({"classes": {"class": [{"name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", msg::MISSING_REQUIRED_VALUE_TID)]),
        scenario(&op::CLASSES_PERSIST, "warns about a localized name that exists", &[msg::UNABLE_TO_CREATE_NEW_CLASSIFICATION_NAME_NAME_FOR_LANGUAGE_CODE_BECAUSE_IT_ALREADY_EXIST])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}, {"value": "Bekleidung", "loc": "de_DE"}]}}]},
                "nodes": {"node": [{"class": "CF-{u}", "path": "/CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]}}))
            .records(&[("WARNING", "The classification has been created successfully|Unable to create new classification name 'Bekleidung' for language 'de_DE', because it already exist.")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "warns about nodes it cannot write", &[msg::MISSING_REQUIRED_VALUE_PATH, msg::NODE_WITH_ID_ID_NOT_FOUND, msg::NODE_PATH_PATH_IS_NOT_INSIDE_CLASSIFICATION_TID, msg::PARENT_NODE_WITH_PATH_PATH_NOT_FOUND_FOR_NODE_PATH, msg::NODE_PATH_IS_DEEPER_THAN_16_LEVELS])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]},
                "nodes": {"node": [
                    {"class": "CF-{u}", "path": "/CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}},
                    {"class": "CF-{u}", "name": {"itm": [{"value": "x"}]}},
                    {"class": "CF-{u}", "id": 2_000_000_000, "path": "/CF-{u}/x"},
                    {"class": "CF-{u}", "path": "/CF-Apparel/{u}"},
                    {"class": "CF-{u}", "path": "/CF-{u}/a/b"},
                    {"class": "CF-{u}", "path": "/CF-{u}/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16"}]}}))
            .records(&[("WARNING", "The classification has been created successfully|Missing required value 'path'|Node with id 2000000000 not found|Node path '/CF-Apparel/{u}' is not inside classification 'CF-{u}'|Parent node with path '/CF-{u}/a' not found for node '/CF-{u}/a/b'|Node '/CF-{u}/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16' is deeper than 16 levels")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERFORM, "refuses malformed actions", &[msg::MISSING_REQUIRED_VALUE_TID, msg::UNSUPPORTED_ACTION_TYPE_TYPE, msg::UNSUPPORTED_DATA_TYPE_DATATYPE])
            .send(body!({"actions": {"action": [
                {"dataType": "classification", "type": "delete"},
                {"dataType": "classification", "type": "archive", "tid": "CF-{u}"},
                {"dataType": "keyword", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[
                ("ERROR", msg::MISSING_REQUIRED_VALUE_TID),
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'keyword'"),
            ]),
        scenario(&op::ATTRIBUTES_PERSIST, "saves an attribute", &[msg::THE_ATTRIBUTE_HAS_BEEN_SAVED_SUCCESSFULLY])
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"attrs": {"attr": [{"id": "{id}", "inheritance": "not_visible"}]}}))
            .records(&[("SUCCESS", msg::THE_ATTRIBUTE_HAS_BEEN_SAVED_SUCCESSFULLY)])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses unknown ids and malformed attributes", &[msg::ATTRIBUTE_WITH_ID_ID_WAS_NOT_FOUND, msg::NODE_WITH_ID_ID_NOT_FOUND, msg::MISSING_REQUIRED_VALUE_FIELD, msg::INVALID_VALUE_V_FOR_FIELD])
            .send(body!({"attrs": {"attr": [
                {"id": 2_000_000_000, "inheritance": "not_visible"},
                {"nodeId": 2_000_000_000, "key": "CF-Spare", "level": "p", "inheritance": "visible", "restriction": "optional", "localized": false},
                {"nodePath": "/CF-Apparel", "key": "CF-Spare", "inheritance": "visible", "restriction": "optional", "localized": false},
                {"nodePath": "/CF-Apparel", "key": "CF-Spare", "level": "p", "inheritance": "sideways", "restriction": "optional", "localized": false}]}}))
            .records(&[
                ("ERROR", "Attribute with id 2000000000 was not found."),
                ("ERROR", "Node with id 2000000000 not found"),
                ("ERROR", "Missing required value 'level'"),
                ("ERROR", "Invalid value 'sideways' for 'inheritance'"),
            ]),
        scenario(&op::ATTRIBUTES_PERFORM, "refuses what it cannot delete", &[msg::ATTRIBUTE_WITH_ID_ID_WAS_NOT_FOUND, msg::NODE_WITH_ID_ID_NOT_FOUND, msg::NODE_WITH_PATH_PATH_NOT_FOUND, msg::ATTRIBUTE_KEY_WAS_NOT_FOUND_ON_NODE_PATH, msg::MISSING_REQUIRED_VALUE_ID, msg::UNSUPPORTED_ACTION_TYPE_TYPE, msg::UNSUPPORTED_DATA_TYPE_DATATYPE])
            .send(body!({"actions": {"action": [
                {"dataType": "attribute", "type": "delete", "id": 2_000_000_000},
                {"dataType": "attribute", "type": "delete", "nodeId": 2_000_000_000, "key": "CF-Weight"},
                {"dataType": "attribute", "type": "delete", "nodePath": "/CF-{u}", "key": "CF-Weight"},
                {"dataType": "attribute", "type": "delete", "nodePath": "/CF-Apparel", "key": "CF-Spare"},
                {"dataType": "attribute", "type": "delete"},
                {"dataType": "attribute", "type": "archive", "id": 2_000_000_000},
                {"dataType": "keyword", "type": "delete", "id": 2_000_000_000}]}}))
            .records(&[
                ("ERROR", "Attribute with id 2000000000 was not found."),
                ("ERROR", "Node with id 2000000000 not found"),
                ("ERROR", "Node with path /CF-{u} not found"),
                ("ERROR", "Attribute 'CF-Spare' was not found on node /CF-Apparel"),
                ("ERROR", msg::MISSING_REQUIRED_VALUE_ID),
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'keyword'"),
            ]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "deletes an unused definition", &[msg::THE_ATTRIBUTE_DEFINITION_HAS_BEEN_DELETED_SUCCESSFULLY])
            .hint("this check deletes the fixture's CF-Doomed: load the fixture again before each run")
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-Doomed"}]}}))
            .records(&[("SUCCESS", msg::THE_ATTRIBUTE_DEFINITION_HAS_BEEN_DELETED_SUCCESSFULLY)]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses mixed kinds of identifier", &[msg::ALL_ACTIONS_OF_ONE_REQUEST_MUST_USE_THE_SAME_KIND_OF_IDENTIFIER])
            .send(body!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "delete", "tid": "CF-{u}"},
                {"dataType": "attrDefinition", "type": "delete", "id": 2_000_000_000}]}}))
            .refused(400, msg::ALL_ACTIONS_OF_ONE_REQUEST_MUST_USE_THE_SAME_KIND_OF_IDENTIFIER),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses malformed actions", &[msg::UNSUPPORTED_ACTION_TYPE_TYPE, msg::UNSUPPORTED_DATA_TYPE_DATATYPE])
            .send(body!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "archive", "tid": "CF-{u}"},
                {"dataType": "attribute", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'attribute'"),
            ]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses a definition in use", &[msg::THE_ATTRIBUTE_DEFINITION_COULD_NOT_BE_DELETED_REASON_REASON])
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-InUse"}]}}))
            .records(&[("ERROR", "The attribute definition could not be deleted. Reason: it is used by 1 node attribute")]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses an unknown definition", &[msg::THERE_IS_NO_ATTRIBUTE_DEFINITION_WITH_THE_GIVEN_TID_OR_ID])
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[("ERROR", msg::THERE_IS_NO_ATTRIBUTE_DEFINITION_WITH_THE_GIVEN_TID_OR_ID)]),
    ]
}

/// A classification create, tid `CF-<name>`, with its root node `/CF-<name>`.
fn classification(name: &str) -> Value {
    let tid = format!("CF-{name}");
    json!({"classes": {"class": [{"tid": tid, "name": names(&tid, &[("de_DE", &tid)])}]},
           "nodes": {"node": [{"class": tid, "path": format!("/{tid}"), "name": {"itm": [{"value": tid}]}}]}})
}

/// The delete of classification `CF-<name>`.
fn delete_classification(name: &str) -> Value {
    actions([delete(
        "classification",
        json!({"tid": format!("CF-{name}")}),
    )])
}

/// An attribute create (definition `CF-Spare`) on the root node of classification `CF-<name>`.
fn attribute(name: &str) -> Value {
    json!({"attrs": {"attr": [attribute_at(&format!("/CF-{name}"), "CF-Spare")]}})
}
