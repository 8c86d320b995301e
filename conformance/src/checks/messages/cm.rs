//! The message scenarios of the CM (channels) operations.

use super::{Scenario, requests::channel, scenario};
use core_api::operations as op;

pub(super) fn cm() -> Vec<Scenario> {
    vec![
        scenario(&op::CHANNELS_PERSIST, "creates a channel", &["The project has been created successfully"])
            .send(channel)
            .records(&[("SUCCESS", "The project has been created successfully")]),
        scenario(&op::CHANNELS_PERSIST, "saves a channel's name and values", &["The project has been saved successfully"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "name": "Renamed {u}",
                "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "changed"}]}]}}]}}))
            .records(&[("SUCCESS", "The project has been saved successfully")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown type", &["Project type '<type>' not found"])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-Root", "type": "CF-{u}", "name": "x"}]}}))
            .records(&[("ERROR", "Project type 'CF-{u}' not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown parent", &["Parent project not found"])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-{u}-parent", "type": "CF-Catalog", "name": "x"}]}}))
            .records(&[("ERROR", "Parent project not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses a create without a type", &["Project type '' not found"])
            .send(body!({"projects": {"project": [{"tid": "CF-{u}", "parentTid": "CF-Root", "name": "x"}]}}))
            .records(&[("ERROR", "Project type '' not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an attribute not registered", &["Attribute '<attr>' is not registered"])
            .send(body!({"projects": {"project": [{"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Spare", "itm": [{"value": "x"}]}]}}]}}))
            .records(&[("WARNING", "The project has been saved successfully|Attribute 'CF-Spare' is not registered")]),
        scenario(&op::CHANNELS_PERSIST, "refuses an unknown id", &["Project with id <id> not found"])
            .send(body!({"projects": {"project": [{"id": 2_000_000_000, "name": "x"}]}}))
            .records(&[("ERROR", "Project with id 2000000000 not found")]),
        scenario(&op::CHANNELS_PERSIST, "refuses another tid for an id", &["The tid of project <id> is '<tid>'"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [{"id": "{id}", "tid": "CF-{u}-other", "name": "x"}]}}))
            .records(&[("ERROR", "The tid of project {id} is 'CF-{u}'")]),
        scenario(&op::CHANNELS_PERSIST, "refuses creates missing what a create needs", &["Missing required value 'tid'", "Missing required value 'parentTid' or 'parentId'", "Missing required value 'name'"])
            .send(body!({"projects": {"project": [
                {"parentTid": "CF-Root", "type": "CF-Catalog", "name": "x"},
                {"tid": "CF-{u}", "type": "CF-Catalog", "name": "x"},
                {"tid": "CF-{u}", "parentTid": "CF-Root", "type": "CF-Catalog"}]}}))
            .records(&[
                ("ERROR", "Missing required value 'tid'"),
                ("ERROR", "Missing required value 'parentTid' or 'parentId'"),
                ("ERROR", "Missing required value 'name'"),
            ]),
        scenario(&op::CHANNELS_PERSIST, "refuses malformed values", &["Attribute '<attr>' holds one value, not <n>", "Position <pos> of attribute '<attr>' is given twice", "Localized value of attribute '<attr>' needs 'loc'"])
            .send(body!({"projects": {"project": [
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Comment", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Sizes", "type": "multiple", "itm": [{"value": "a", "pos": 0}, {"value": "b", "pos": 0}]}]}},
                {"tid": "CF-Page", "vals": {"val": [{"attr": "CF-Claim", "type": "localized", "itm": [{"value": "x"}]}]}}]}}))
            .records(&[
                ("ERROR", "Attribute 'CF-Comment' holds one value, not 2"),
                ("ERROR", "Position 0 of attribute 'CF-Sizes' is given twice"),
                ("ERROR", "Localized value of attribute 'CF-Claim' needs 'loc'"),
            ]),
        scenario(&op::CHANNELS_PERSIST, "warns about an unknown language and a new parent", &["Cannot find language id with code '<code>'.", "Changing the parent is not supported"])
            .after(&op::CHANNELS_PERSIST, channel)
            .send(body!({"projects": {"project": [
                {"tid": "CF-{u}", "vals": {"val": [{"attr": "CF-Claim", "type": "localized", "itm": [{"value": "x", "loc": "xx_XX"}]}]}},
                {"tid": "CF-{u}", "parentTid": "CF-Web", "name": "Moved {u}"}]}}))
            .records(&[
                ("WARNING", "The project has been saved successfully|Cannot find language id with code 'xx_XX'."),
                ("WARNING", "The project has been saved successfully|Changing the parent is not supported"),
            ]),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown channel id", &["Project with id <id> not found"])
            .send(body!({"ids": [2_000_000_000], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project with id 2000000000 not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown channel", &["Project with tid '<tid>' not found"])
            .send(body!({"tids": ["CF-{u}"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project with tid 'CF-{u}' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown locale", &["Locale '<locale>' not found"])
            .send(body!({"tids": ["CF-Page"], "briefingInfo": {"locale": "xx_XX", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Locale 'xx_XX' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for an unknown module configuration", &["Briefing module configuration '<tid>' not found"])
            .send(body!({"tids": ["CF-Page"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF-{u}"}}))
            .refused(404, "Briefing module configuration 'CF-{u}' not found"),
        scenario(&op::RETRIEVE_CHANNEL_BRIEFINGS, "404 for a channel without a layout", &["Project '<tid>' has no briefing layout for '<cfg>' in locale '<locale>'"])
            .send(body!({"tids": ["CF-Web"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "CF.BriefingModule"}}))
            .refused(404, "Project 'CF-Web' has no briefing layout for 'CF.BriefingModule' in locale 'de_DE'"),
    ]
}
