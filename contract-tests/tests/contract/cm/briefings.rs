//! The channel briefing over HTTP: `retrieveChannelBriefings` answers the documented XML.

use contract_tests::{
    backends,
    coverage::{self},
};
use core_api::operations as op;
use core_api::operations::RETRIEVE_CHANNEL_BRIEFINGS;
use core_api_support::Representation::Xml;
use serde_json::json;

use super::server;
use crate::answers::{self, Scenario};

async fn the_briefing_is_the_documented_xml() {
    for url in backends("channel briefings").await {
        let server = server(&url).await;
        let info = json!({"locale": "en_GB", "briefingModuleCfgTid": "BRF"});
        let answer = server
            .call(&RETRIEVE_CHANNEL_BRIEFINGS)
            .json(&json!({"tids": ["ROOT-B"], "briefingInfo": info}))
            .send()
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.content_type, "application/xml; charset=UTF-8");
        let text = &answer.text;
        for shown in [
            "<patch-briefing>",
            r#"<layout id="10" name="B layout">"#,
            r#"<attribute identifier="width">210.0</attribute>"#,
            r#"<box id="3" layer="1" name="Hero" type="image">"#,
            r#"<attribute identifier="content_width">50.0%</attribute>"#,
            r#"<attribute identifier="text_article">P-1</attribute>"#,
            r#"<image type="origin">"#,
            r#"<attribute identifier="image_scale">1.0</attribute>"#,
            "<seitenbriefing/>",
            "<box_data/>",
        ] {
            assert!(text.contains(shown), "{shown} in {text}");
        }
        // Every identifier, in the specification's order, even those loaded without a value.
        let box_identifiers: Vec<&str> = text
            .split("<box ")
            .nth(1)
            .and_then(|rest| rest.split("<images>").next())
            .into_iter()
            .flat_map(|part| part.split("identifier=\"").skip(1))
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert_eq!(box_identifiers.len(), 19, "{text}");
        assert_eq!(box_identifiers[18], "text_article");
        let empty = server
            .call(&RETRIEVE_CHANNEL_BRIEFINGS)
            .json(&json!({"tids": ["ROOT-A"], "briefingInfo": info}))
            .send()
            .await;
        assert_eq!(empty.status, 200);
        assert!(empty.text.contains("<boxes/>"), "{}", empty.text);
        for (body, message) in [
            (
                json!({"tids": ["NOPE"], "briefingInfo": info}),
                "Project with tid 'NOPE' not found",
            ),
            (
                json!({"ids": [999_999], "briefingInfo": info}),
                "Project with id 999999 not found",
            ),
            (
                json!({"tids": ["ROOT-B"], "briefingInfo": {"locale": "xx_XX", "briefingModuleCfgTid": "BRF"}}),
                "Locale 'xx_XX' not found",
            ),
            (
                json!({"tids": ["ROOT-B"], "briefingInfo": {"locale": "en_GB", "briefingModuleCfgTid": "NOPE"}}),
                "Briefing module configuration 'NOPE' not found",
            ),
            (
                json!({"tids": ["ROOT-B"], "briefingInfo": {"locale": "de_DE", "briefingModuleCfgTid": "BRF"}}),
                "Project 'ROOT-B' has no briefing layout for 'BRF' in locale 'de_DE'",
            ),
        ] {
            let answer = server
                .call(&RETRIEVE_CHANNEL_BRIEFINGS)
                .json(&body)
                .accept(Xml)
                .send()
                .await;
            assert_eq!(answer.status, 404, "{body}: {}", answer.text);
            assert!(
                coverage::contains(&RETRIEVE_CHANNEL_BRIEFINGS, &answer.text, message),
                "{message} in {}",
                answer.text
            );
        }
        for body in [
            json!({"tids": ["ROOT-B", "ROOT-A"], "briefingInfo": info}),
            json!({"tids": ["ROOT-B"], "ids": [1], "briefingInfo": info}),
            json!({"briefingInfo": info}),
            json!({"tids": ["ROOT-B"]}),
            json!({"tids": ["ROOT-B"], "briefingInfo": {"locale": "en_GB"}}),
        ] {
            let answer = server
                .call(&RETRIEVE_CHANNEL_BRIEFINGS)
                .json(&body)
                .send()
                .await;
            assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        }
        let json_only = server
            .call(&RETRIEVE_CHANNEL_BRIEFINGS)
            .json(&json!({"tids": ["ROOT-B"], "briefingInfo": info}))
            .accept_raw("application/json")
            .send()
            .await;
        assert_eq!(json_only.status, 406);
        server.stop().await;
    }
}

/// The exchanges whose answers are snapshotted in every representation (`answers`).
fn scenarios() -> Vec<Scenario> {
    vec![Scenario::new(
        "channel_briefings",
        &op::RETRIEVE_CHANNEL_BRIEFINGS,
        json!({"tids": ["CAT-2027-SHIRTS-P1"], "briefingInfo": {"locale": "en_GB", "briefingModuleCfgTid": "BRIEFING-DEFAULT"}}),
    )]
}

async fn answers_in_every_representation() {
    answers::take(&scenarios()).await;
}

inventory::submit!(answers::Scenarios(scenarios));

contract_tests::trials!(
    the_briefing_is_the_documented_xml,
    answers_in_every_representation,
);
