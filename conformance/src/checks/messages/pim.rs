//! The message scenarios of the PIM operations.

use super::{
    Scenario,
    requests::{attribute, classification, delete_classification},
    scenario,
};
use core_api::operations as op;

pub(super) fn pim() -> Vec<Scenario> {
    vec![
        scenario(&op::CLASSES_PERSIST, "creates a classification", &["The classification has been created successfully"])
            .send(classification)
            .records(&[("SUCCESS", "The classification has been created successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "saves a classification", &["The classification has been saved successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}, {"value": "Neu", "loc": "de_DE"}]}}]}}))
            .records(&[("SUCCESS", "The classification has been saved successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "warns about an unknown language", &["Cannot find language id with code '<code>'."])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "x", "loc": "xx_XX"}]}}]}}))
            .records(&[("WARNING", "The classification has been saved successfully|Cannot find language id with code 'xx_XX'.")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses a root node other than the classification", &["Unable to create the root node '<path>' of classification '<tid>'"])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]},
                "nodes": {"node": [{"class": "CF-{u}", "path": "/CF-{u}-other", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Unable to create the root node '/CF-{u}-other' of classification 'CF-{u}'")]),
        scenario(&op::CLASSES_PERFORM, "deletes a classification", &["The classification has been deleted successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(delete_classification)
            .records(&[("SUCCESS", "The classification has been deleted successfully")]),
        scenario(&op::CLASSES_PERFORM, "refuses an unknown classification", &["There is no classification with the given identity '<tid-or-id>'"])
            .send(delete_classification)
            .records(&[("ERROR", "There is no classification with the given identity 'CF-{u}'")]),
        scenario(&op::ATTRIBUTES_PERSIST, "creates an attribute", &["The attribute has been created successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(attribute)
            .records(&[("SUCCESS", "The attribute has been created successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses an unknown node path", &["Node with path <path> not found"])
            .send(attribute)
            .records(&[("ERROR", "Node with path /CF-{u} not found")]),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses an unknown definition", &["Attribute definition: '<key>' cannot be found"])
            .send(body!({"attrs": {"attr": [{"nodePath": "/CF-Apparel", "key": "CF-{u}", "level": "p",
                "inheritance": "visible", "restriction": "optional", "localized": false}]}}))
            .records(&[("ERROR", "Attribute definition: 'CF-{u}' cannot be found")]),
        scenario(&op::ATTRIBUTES_PERFORM, "deletes an attribute", &["The attribute has been deleted successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"actions": {"action": [{"dataType": "attribute", "type": "delete", "id": "{id}"}]}}))
            .records(&[("SUCCESS", "The attribute has been deleted successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses an unknown id", &["There is no classification with the given identity '<id>'"])
            .send(body!({"classes": {"class": [{"id": 2_000_000_000, "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "There is no classification with the given identity '2000000000'")]),
        scenario(&op::CLASSES_PERSIST, "refuses another tid for an id", &["The tid of classification <id> is '<tid>' and cannot be changed"])
            .after(&op::CLASSES_PERSIST, classification)
            .send(body!({"classes": {"class": [{"id": "{id}", "tid": "CF-{u}-other", "name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "The tid of classification {id} is 'CF-{u}' and cannot be changed")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "refuses a classification without a tid", &["Missing required value 'tid'"])
            .send(body!({"classes": {"class": [{"name": {"itm": [{"value": "x"}]}}]}}))
            .records(&[("ERROR", "Missing required value 'tid'")]),
        scenario(&op::CLASSES_PERSIST, "warns about a localized name that exists", &["Unable to create new classification name '<name>' for language '<code>', because it already exist."])
            .send(body!({"classes": {"class": [{"tid": "CF-{u}", "name": {"itm": [{"value": "CF-{u}"}, {"value": "Bekleidung", "loc": "de_DE"}]}}]},
                "nodes": {"node": [{"class": "CF-{u}", "path": "/CF-{u}", "name": {"itm": [{"value": "CF-{u}"}]}}]}}))
            .records(&[("WARNING", "The classification has been created successfully|Unable to create new classification name 'Bekleidung' for language 'de_DE', because it already exist.")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::CLASSES_PERSIST, "warns about nodes it cannot write", &["Missing required value 'path'", "Node with id <id> not found", "Node path '<path>' is not inside classification '<tid>'", "Parent node with path '<path>' not found for node '<path>'", "Node '<path>' is deeper than 16 levels"])
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
        scenario(&op::CLASSES_PERFORM, "refuses malformed actions", &["Missing required value 'tid'", "Unsupported action type '<type>'", "Unsupported data type '<dataType>'"])
            .send(body!({"actions": {"action": [
                {"dataType": "classification", "type": "delete"},
                {"dataType": "classification", "type": "archive", "tid": "CF-{u}"},
                {"dataType": "keyword", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[
                ("ERROR", "Missing required value 'tid'"),
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'keyword'"),
            ]),
        scenario(&op::ATTRIBUTES_PERSIST, "saves an attribute", &["The attribute has been saved successfully"])
            .after(&op::CLASSES_PERSIST, classification)
            .after(&op::ATTRIBUTES_PERSIST, attribute)
            .send(body!({"attrs": {"attr": [{"id": "{id}", "inheritance": "not_visible"}]}}))
            .records(&[("SUCCESS", "The attribute has been saved successfully")])
            .then(&op::CLASSES_PERFORM, delete_classification),
        scenario(&op::ATTRIBUTES_PERSIST, "refuses unknown ids and malformed attributes", &["Attribute with id <id> was not found.", "Node with id <id> not found", "Missing required value '<field>'", "Invalid value '<v>' for '<field>'"])
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
        scenario(&op::ATTRIBUTES_PERFORM, "refuses what it cannot delete", &["Attribute with id <id> was not found.", "Node with id <id> not found", "Node with path <path> not found", "Attribute '<key>' was not found on node <path>", "Missing required value 'id'", "Unsupported action type '<type>'", "Unsupported data type '<dataType>'"])
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
                ("ERROR", "Missing required value 'id'"),
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'keyword'"),
            ]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "deletes an unused definition", &["The attribute definition has been deleted successfully"])
            .hint("this check deletes the fixture's CF-Doomed: load the fixture again before each run")
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-Doomed"}]}}))
            .records(&[("SUCCESS", "The attribute definition has been deleted successfully")]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses mixed kinds of identifier", &["All actions of one request must use the same kind of identifier"])
            .send(body!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "delete", "tid": "CF-{u}"},
                {"dataType": "attrDefinition", "type": "delete", "id": 2_000_000_000}]}}))
            .refused(400, "All actions of one request must use the same kind of identifier"),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses malformed actions", &["Unsupported action type '<type>'", "Unsupported data type '<dataType>'"])
            .send(body!({"actions": {"action": [
                {"dataType": "attrDefinition", "type": "archive", "tid": "CF-{u}"},
                {"dataType": "attribute", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[
                ("ERROR", "Unsupported action type 'archive'"),
                ("ERROR", "Unsupported data type 'attribute'"),
            ]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses a definition in use", &["The attribute definition could not be deleted. Reason: <reason>"])
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-InUse"}]}}))
            .records(&[("ERROR", "The attribute definition could not be deleted. Reason: it is used by 1 node attribute")]),
        scenario(&op::ATTRIBUTE_DEFINITIONS_PERFORM, "refuses an unknown definition", &["There is no attribute definition with the given tid or id"])
            .send(body!({"actions": {"action": [{"dataType": "attrDefinition", "type": "delete", "tid": "CF-{u}"}]}}))
            .records(&[("ERROR", "There is no attribute definition with the given tid or id")]),
    ]
}
