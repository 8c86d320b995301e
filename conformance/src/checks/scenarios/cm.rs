//! What the CM (channels) operations are sent: a well-formed request of each, and a scenario per
//! rule and item message.

use core_api::messages as msg;
use serde_json::{Value, json};

use super::{Scenario, request, scenario};
use core_api::operations as op;

pub(super) fn cm() -> Vec<Scenario> {
    vec![
        request(&op::CHANNELS_QUERY).send(body!({"tid": "CF-Page"})),
        request(&op::CHANNELS_RETRIEVE).send(body!({"tids": ["CF-Page"]})),
        request(&op::CHANNELS_PERSIST).send(channel),
        request(&op::RETRIEVE_CHANNEL_BRIEFINGS).send(body!({"tids": ["CF-Page"],
            "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}})),
        scenario(&op::CHANNELS_PERSIST, "creates a channel", &[msg::THE_PROJECT_HAS_BEEN_CREATED_SUCCESSFULLY])
            .send(channel)
            .records(&[("SUCCESS", msg::THE_PROJECT_HAS_BEEN_CREATED_SUCCESSFULLY)]),
        scenario(&op::CHANNELS_PERSIST, "saves a channel's name and values", &[msg::THE_PROJECT_HAS_BEEN_SAVED_SUCCESSFULLY])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "name": "Renamed {u}",
                "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "changed"}]}]}}]}}))
            .records(&[("SUCCESS", msg::THE_PROJECT_HAS_BEEN_SAVED_SUCCESSFULLY)]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown type", &[msg::PROJECT_TYPE_TYPE_NOT_FOUND])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-Root", "type": "CF-{u}", "name": "x"}]}}))
            .records(&[("ERROR", "Project type 'CF-{u}' not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown parent", &[msg::PARENT_PROJECT_NOT_FOUND])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-{u}-parent", "type": "CF-Catalog", "name": "x"}]}}))
            .records(&[("ERROR", msg::PARENT_PROJECT_NOT_FOUND)]),
        scenario(&op::CHANNELS_PERSIST, "refuses a create without a type", &[msg::PROJECT_TYPE_NOT_FOUND])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-Root", "name": "x"}]}}))
            .records(&[("ERROR", msg::PROJECT_TYPE_NOT_FOUND)]),
        scenario(&op::CHANNELS_PERSIST, "refuses an attribute not registered", &[msg::ATTRIBUTE_ATTR_IS_NOT_REGISTERED])
            .send(body!({"projects": {"project": [{"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Spare", "itm": [{"value": "x"}]}]}}]}}))
            .records(&[("WARNING", "The project has been saved successfully|Attribute 'CF-Spare' is not registered")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown id", &[msg::PROJECT_WITH_ID_ID_NOT_FOUND])
            .send(body!({"projects": {"project": [{"id": 2_000_000_000, "name": "x"}]}}))
            .records(&[("ERROR", "Project with id 2000000000 not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses another tid for an id", &[msg::THE_TID_OF_PROJECT_ID_IS_TID])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [{"id": "{id}", "tid": "CF-{u}-other", "name": "x"}]}}))
            .records(&[("ERROR", "The tid of project {id} is 'CF-{u}'")]),
        scenario(&op::CHANNELS_PERSIST, "refuses creates missing what a create needs", &[msg::MISSING_REQUIRED_VALUE_TID, msg::MISSING_REQUIRED_VALUE_PARENTTID_OR_PARENTID, msg::MISSING_REQUIRED_VALUE_NAME])
            .send(body!({"projects": {"project": [
                {"parentTid": "CF-Root", "type": "CF-Catalog", "name": "x"},
                {"tid": "CF-{u}", "type": "CF-Catalog", "name": "x"},
                {"tid": "CF-{u}", "parentTid": "CF-Root", "type": "CF-Catalog"}]}}))
            .records(&[
                ("ERROR", msg::MISSING_REQUIRED_VALUE_TID),
                ("ERROR", msg::MISSING_REQUIRED_VALUE_PARENTTID_OR_PARENTID),
                ("ERROR", msg::MISSING_REQUIRED_VALUE_NAME),
            ]),
        scenario(&op::CHANNELS_PERSIST, "refuses malformed values", &[msg::ATTRIBUTE_ATTR_HOLDS_ONE_VALUE_NOT_N, msg::POSITION_POS_OF_ATTRIBUTE_ATTR_IS_GIVEN_TWICE, msg::LOCALIZED_VALUE_OF_ATTRIBUTE_ATTR_NEEDS_LOC])
            .send(body!({"projects": {"project": [
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Sizes", "type": "multiple", "itm": [{"value": "a", "pos": 0}, {"value": "b", "pos": 0}]}]}},
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Claim", "type": "localized", "itm": [{"value": "x"}]}]}}]}}))
            .records(&[
                ("ERROR", "Attribute 'CF-Comment' holds one value, not 2"),
                ("ERROR", "Position 0 of attribute 'CF-Sizes' is given twice"),
                ("ERROR", "Localized value of attribute 'CF-Claim' needs 'loc'"),
            ]),
        scenario(&op::CHANNELS_PERSIST, "warns about an unknown language and a new parent", &[msg::CANNOT_FIND_LANGUAGE_ID_WITH_CODE_CODE, msg::CHANGING_THE_PARENT_IS_NOT_SUPPORTED])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [
                {"tid": "CF-{u}", "vals": {"val": [{"attr": "CF-Claim", "type": "localized", "itm": [{"value": "x", "loc": "xx_XX"}]}]}},
                {"tid": "CF-{u}", "parentTid": "CF-Web", "name": "Moved {u}"}]}}))
            .records(&[
                ("WARNING", "The project has been saved successfully|Cannot find language id with code 'xx_XX'."),
                ("WARNING", "The project has been saved successfully|Changing the parent is not supported"),
            ]),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown channel id", &[msg::PROJECT_WITH_ID_ID_NOT_FOUND])
            .send(body!({"ids": [2_000_000_000], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project with id 2000000000 not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown channel", &[msg::PROJECT_WITH_TID_TID_NOT_FOUND])
            .send(body!({"tids": ["CF-{u}"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project with tid 'CF-{u}' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown locale", &[msg::LOCALE_LOCALE_NOT_FOUND])
            .send(body!({"tids": ["CF-Page"], "briefingInfo": {"locale": "xx_XX", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Locale 'xx_XX' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown module configuration", &[msg::BRIEFING_MODULE_CONFIGURATION_TID_NOT_FOUND])
            .send(body!({"tids": ["CF-Page"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF-{u}"}}))
            .refused(404, "Briefing module configuration 'CF-{u}' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for a channel without a layout", &[msg::PROJECT_TID_HAS_NO_BRIEFING_LAYOUT_FOR_CFG_IN_LOCALE_LOCALE])
            .send(body!({"tids": ["CF-Web"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project 'CF-Web' has no briefing layout for 'CF.BriefingModule' in locale 'de_DE'"),
    ]
}

/// A channel create under `CF-Root`, tid `CF-<name>`.
pub(super) fn channel(name: &str) -> Value {
    json!({"projects": {"project": [{"tid": format!("CF-{name}"), "parentTid": "CF-Root", "type": "CF-Catalog",
        "name": format!("Conformance {name}"), "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "created"}]}]}}]}})
}
