//! The CM module over HTTP (D-17 to D-20, D-42), on SQLite and, when `CORE_TEST_POSTGRES_URL` is
//! set, PostgreSQL: channel query orders a subtree depth-first and limits its levels; what
//! channels persist writes, retrieve returns in all three representations, and query agrees;
//! values not supplied stay; a refused channel writes nothing; retrieval shows only what the
//! caller may see; the briefing is the documented XML.

use contract_tests::{
    TestServer, backends,
    coverage::{self, said, status_and_description},
    fixture, issue_item, post_json, records,
};
use core_api::operations::{
    CHANNELS_PERSIST, CHANNELS_QUERY, CHANNELS_RETRIEVE, RETRIEVE_CHANNEL_BRIEFINGS,
};
use core_api_support::{
    Operation,
    Representation::{Compact, Json, Xml},
};
use core_server::bootstrap::Bootstrap;
use serde_json::{Value, json};

/// A token of the role `reader` (CM and PEO), which sees no restricted asset or PEO.
const READER: &str = "cd34cd34cd34cd34.cd34cd34cd34cd34cd34cd34cd34cd34cd34";

/// A token of the role `pim` (PIM only).
const PIM_ONLY: &str = "ef56ef56ef56ef56.ef56ef56ef56ef56ef56ef56ef56ef56ef56";

/// Two root channels; ROOT has two children (ROOT-B before ROOT-A by `orderSequence`) and a
/// grandchild; ROOT links a plain and a restricted asset, ROOT-B a plain and a restricted PEO;
/// ROOT-B and ROOT-A have briefing layouts (ROOT-A's without boxes).
fn catalogue() -> Bootstrap {
    fixture(json!({
        "locales": [
            {"tid": "de_DE", "language": "de", "country": "DE", "name": "Deutsch"},
            {"tid": "en_GB", "language": "en", "country": "GB", "name": "English"}
        ],
        "attributeDefinitions": [
            {"tid": "Headline", "type": "text"},
            {"tid": "Sizes", "type": "text"},
            {"tid": "Budget", "type": "number"},
            {"tid": "Unregistered", "type": "text"}
        ],
        "channelTypes": ["catalog", "page"],
        "channelAttributes": ["Headline", "Sizes", "Budget"],
        "roles": [{"name": "reader", "modules": ["CM", "PEO"]}, {"name": "pim", "modules": ["PIM"]}, {"name": "secret"}],
        "tokens": [
            {"user": "reader", "roles": ["reader"], "token": READER},
            {"user": "pim", "roles": ["pim"], "token": PIM_ONLY}
        ],
        "assets": [
            {"tid": "A-1", "path": "/images/a.jpg"},
            {"tid": "A-R", "path": "/images/secret.jpg", "restrictedTo": ["secret"]}
        ],
        "products": [{"tid": "P-1"}],
        "channels": [
            {"tid": "ROOT", "type": "catalog", "name": "Root", "orderSequence": 1,
             "icon": "/icons/root.svg", "allowedFunctions": ["edit", "export"],
             "values": [{"attr": "Budget", "items": [{"value": "100"}]}],
             "assets": ["A-1", "A-R"]},
            {"tid": "ROOT-A", "type": "page", "parent": "ROOT", "name": "A", "orderSequence": 2},
            {"tid": "ROOT-B", "type": "page", "parent": "ROOT", "name": "B", "orderSequence": 1},
            {"tid": "ROOT-B-1", "type": "page", "parent": "ROOT-B", "name": "B1"},
            {"tid": "OTHER", "type": "catalog", "name": "Other", "orderSequence": 2}
        ],
        "peos": [
            {"tid": "PEO-1", "product": "P-1", "template": "web", "default": true, "name": "One",
             "nodes": ["ROOT-B"], "channels": ["ROOT-B"],
             "values": [{"attr": "Headline", "type": "localized", "items": [{"value": "One", "loc": "en_GB"}]}]},
            {"tid": "PEO-R", "product": "P-1", "name": "Secret", "channels": ["ROOT-B"], "restrictedTo": ["secret"]}
        ],
        "briefings": [
            {"channel": "ROOT-B", "moduleCfg": "BRF", "locale": "en_GB", "layout": 10, "name": "B layout",
             "attributes": {"width": "210.0", "height": "297.0"},
             "boxes": [{"id": 3, "layer": "1", "name": "Hero", "type": "image",
                "attributes": {"width": "100.0", "content_width": "50.0%", "text_article": "P-1"},
                "images": [{"type": "origin", "attributes": {"image_path": "/images/a.jpg", "image_scale": "1.0"}}]}]},
            {"channel": "ROOT-A", "moduleCfg": "BRF", "locale": "en_GB", "layout": 11, "name": "A layout",
             "attributes": {"width": "100.0", "height": "100.0"}}
        ]
    }))
}

async fn server(url: &str) -> TestServer {
    let server = TestServer::start_on(url).await;
    server.load(&catalogue()).await;
    server
}

async fn post(server: &TestServer, operation: &'static Operation, body: &Value) -> (u16, Value) {
    post_json(server, &server.token, operation, body).await
}

/// The tids a channel query answers, expecting 200.
async fn tids(server: &TestServer, body: Value) -> Vec<String> {
    let (status, answer) = post(server, &CHANNELS_QUERY, &body).await;
    assert_eq!(status, 200, "{body}: {answer}");
    answer["tids"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tid| tid.as_str().map(str::to_string))
        .collect()
}

/// The projects a channel retrieve by tids answers in JSON, expecting 200.
async fn projects(server: &TestServer, token: &str, tids: &[&str]) -> Vec<Value> {
    let (status, answer) =
        post_json(server, token, &CHANNELS_RETRIEVE, &json!({"tids": tids})).await;
    assert_eq!(status, 200, "{answer}");
    answer["projects"]["project"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The `val` of an attribute in a project.
fn val<'p>(project: &'p Value, attr: &str) -> Option<&'p Value> {
    project["vals"]["val"]
        .as_array()?
        .iter()
        .find(|val| val["attr"] == attr)
}

/// The texts of a `val`'s items, with their `loc` or `pos`.
fn items(val: Option<&Value>) -> Vec<String> {
    val.and_then(|val| val["itm"].as_array())
        .into_iter()
        .flatten()
        .map(|itm| {
            let place = itm["loc"]
                .as_str()
                .map(str::to_string)
                .or_else(|| itm["pos"].as_i64().map(|pos| pos.to_string()))
                .unwrap_or_default();
            format!("{place}={}", itm["value"].as_str().unwrap_or_default())
        })
        .collect()
}

async fn channel_query_orders_a_subtree_depth_first_and_limits_its_levels() {
    for url in backends("channel query").await {
        let server = server(&url).await;
        let all = ["ROOT", "ROOT-B", "ROOT-B-1", "ROOT-A"];
        assert_eq!(tids(&server, json!({"tid": "ROOT"})).await, all);
        assert_eq!(
            tids(&server, json!({"tid": "ROOT", "level": -1})).await,
            all
        );
        assert_eq!(
            tids(&server, json!({"tid": "ROOT", "level": 0})).await,
            ["ROOT"]
        );
        assert_eq!(
            tids(&server, json!({"tid": "ROOT", "level": 1})).await,
            ["ROOT", "ROOT-B", "ROOT-A"]
        );
        assert_eq!(
            tids(&server, json!({"root": true})).await,
            ["ROOT", "OTHER"]
        );
        let id = projects(&server, &server.token, &["ROOT-B"]).await[0]["id"]
            .as_i64()
            .expect("an id");
        assert_eq!(
            tids(&server, json!({"id": id})).await,
            ["ROOT-B", "ROOT-B-1"]
        );
        for (body, message) in [
            (
                json!({"tid": "NOPE"}),
                "project by tid 'NOPE' not found".to_string(),
            ),
            (
                json!({"id": 999_999}),
                "project by id 999999 not found".to_string(),
            ),
        ] {
            let (status, answer) = post(&server, &CHANNELS_QUERY, &body).await;
            assert_eq!(status, 404, "{body}");
            assert_eq!(issue_item(&answer, "errorMessage"), Some(message.as_str()));
            assert_eq!(issue_item(&answer, "code"), Some("1006"));
        }
        for body in [
            json!({}),
            json!({"root": false}),
            json!({"tid": "ROOT", "root": true}),
            json!({"tid": "ROOT", "id": 1}),
            json!({"tid": "ROOT", "level": -2}),
            json!({"tid": 7}),
        ] {
            let (status, answer) = post(&server, &CHANNELS_QUERY, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

/// A channel to create, in XML.
fn create_xml(tid: &str) -> String {
    format!(
        r#"<pim xmlns="urn:core-interface:v1" schemaVersion="5.6.0"><projects>
<project tid="{tid}" parentTid="ROOT-A" type="page"><name>Made in XML</name><vals>
<val attr="Headline" type="localized"><itm loc="de_DE">Hallo</itm><itm loc="en_GB">Hello</itm></val>
<val attr="Sizes" type="multiple"><itm pos="1">M</itm><itm pos="0">S</itm></val>
<val attr="Budget"><itm>5</itm></val>
</vals></project></projects></pim>"#
    )
}

/// The same channel in compact JSON.
fn create_compact(tid: &str) -> String {
    json!({"projects": {"entries": [{"tid": tid, "parentTid": "ROOT-A", "type": "page", "name": "Made in compact",
        "vals": {"entries": [
            {"attr": "Headline", "type": "localized", "value": [{"value": "Hallo", "loc": "de_DE"}, {"value": "Hello", "loc": "en_GB"}]},
            {"attr": "Sizes", "type": "multiple", "value": [{"value": "M", "pos": 1}, {"value": "S", "pos": 0}]},
            {"attr": "Budget", "value": "5"}
        ]}}]}})
    .to_string()
}

/// The same channel in default JSON.
fn create_json(tid: &str) -> String {
    json!({"projects": {"project": [{"tid": tid, "parentTid": "ROOT-A", "type": "page", "name": "Made in JSON",
        "vals": {"val": [
            {"attr": "Headline", "type": "localized", "itm": [{"value": "Hallo", "loc": "de_DE"}, {"value": "Hello", "loc": "en_GB"}]},
            {"attr": "Sizes", "type": "multiple", "itm": [{"value": "M", "pos": 1}, {"value": "S", "pos": 0}]},
            {"attr": "Budget", "itm": [{"value": "5"}]}
        ]}}]}})
    .to_string()
}

async fn channels_persist_then_retrieve_agree_in_every_representation() {
    for url in backends("channel persist and retrieve").await {
        let server = server(&url).await;
        for (order, (tid, representation, body)) in [
            ("NEW-XML", Xml, create_xml("NEW-XML")),
            ("NEW-JSON", Json, create_json("NEW-JSON")),
            ("NEW-COMPACT", Compact, create_compact("NEW-COMPACT")),
        ]
        .into_iter()
        .enumerate()
        {
            let answer = server
                .call(&CHANNELS_PERSIST)
                .body(representation, body)
                .accept(representation)
                .send()
                .await;
            assert_eq!(answer.status, 200, "{tid}: {}", answer.text);
            assert!(
                coverage::contains(
                    &CHANNELS_PERSIST,
                    &answer.text,
                    "The project has been created successfully"
                ),
                "{tid}: {}",
                answer.text
            );
            for accept in [Xml, Json, Compact] {
                let answer = server
                    .call(&CHANNELS_RETRIEVE)
                    .json(&json!({"tids": [tid]}))
                    .accept(accept)
                    .send()
                    .await;
                assert_eq!(answer.status, 200, "{tid} {accept:?}");
                let text = &answer.text;
                for shown in ["Hallo", "Hello", "ROOT-A", "page", "dataType"] {
                    assert!(text.contains(shown), "{tid} {accept:?}: {shown} in {text}");
                }
            }
            let project = &projects(&server, &server.token, &[tid]).await[0];
            assert_eq!(project["parentTid"], "ROOT-A");
            assert_eq!(project["type"], "page");
            assert_eq!(project["orderSequence"], order + 1, "after its siblings");
            assert_eq!(
                items(val(project, "Headline")),
                ["de_DE=Hallo", "en_GB=Hello"]
            );
            assert_eq!(items(val(project, "Sizes")), ["0=S", "1=M"]);
            assert_eq!(items(val(project, "Budget")), ["=5"]);
            assert_eq!(
                val(project, "Budget").expect("Budget")["dataType"],
                "number"
            );
        }
        // Query agrees with retrieve: the new channels are ROOT-A's children, in the order
        // they were created.
        assert_eq!(
            tids(&server, json!({"tid": "ROOT-A"})).await,
            ["ROOT-A", "NEW-XML", "NEW-JSON", "NEW-COMPACT"]
        );
        // An update changes only what it supplies: one locale of Headline, a renamed channel.
        let saved = records(
            &server,
            &server.token,
            &CHANNELS_PERSIST,
            &json!({"projects": {"project": [{"tid": "NEW-JSON", "name": "Renamed", "vals": {"val": [
                {"attr": "Headline", "type": "localized", "itm": [{"value": "Servus", "loc": "de_DE"}]}
            ]}}]}}),
        )
        .await;
        assert_eq!(
            said(&CHANNELS_PERSIST, &saved, status_and_description),
            [("SUCCESS", "The project has been saved successfully")]
        );
        assert_eq!(saved[0]["action"], "update");
        assert_eq!(saved[0]["tid"], "NEW-JSON");
        let project = &projects(&server, &server.token, &["NEW-JSON"]).await[0];
        assert_eq!(project["name"], "Renamed");
        assert_eq!(
            items(val(project, "Headline")),
            ["de_DE=Servus", "en_GB=Hello"]
        );
        assert_eq!(items(val(project, "Sizes")), ["0=S", "1=M"]);
        assert_eq!(items(val(project, "Budget")), ["=5"]);
        // A val without items clears the attribute; by id works alike.
        let id = project["id"].as_i64().expect("an id");
        records(
            &server,
            &server.token,
            &CHANNELS_PERSIST,
            &json!({"projects": {"project": [{"id": id, "vals": {"val": [{"attr": "Sizes", "type": "multiple"}]}}]}}),
        )
        .await;
        let project = &projects(&server, &server.token, &["NEW-JSON"]).await[0];
        assert!(val(project, "Sizes").is_none(), "{project}");
        assert_eq!(items(val(project, "Budget")), ["=5"]);
        server.stop().await;
    }
}

async fn a_refused_channel_writes_nothing_and_warnings_save_the_rest() {
    for url in backends("channel persist refusals").await {
        let server = server(&url).await;
        let records = records(
            &server,
            &server.token,
            &CHANNELS_PERSIST,
            &json!({"projects": {"project": [
                {"tid": "HALF", "parentTid": "ROOT", "type": "page", "name": "Half", "vals": {"val": [
                    {"attr": "Budget", "itm": [{"value": "1"}]},
                    {"attr": "Sizes", "type": "multiple", "itm": [{"value": "a", "pos": 0}, {"value": "b", "pos": 0}]}
                ]}},
                {"tid": "ROOT", "name": "Renamed", "vals": {"val": [{"attr": "Budget", "itm": [{"value": "1"}, {"value": "2"}]}]}},
                {"tid": "WARNED", "parentTid": "ROOT", "type": "page", "name": "Warned", "vals": {"val": [
                    {"attr": "Unregistered", "itm": [{"value": "x"}]},
                    {"attr": "Headline", "type": "localized", "itm": [{"value": "Hi", "loc": "en_GB"}, {"value": "?", "loc": "xx_XX"}]}
                ]}},
                {"tid": "ROOT-B", "parentTid": "OTHER"}
            ]}}),
        )
        .await;
        assert_eq!(
            said(&CHANNELS_PERSIST, &records, status_and_description),
            [
                ("ERROR", "Position 0 of attribute 'Sizes' is given twice"),
                ("ERROR", "Attribute 'Budget' holds one value, not 2"),
                (
                    "WARNING",
                    "The project has been created successfully|Attribute 'Unregistered' is not registered|Cannot find language id with code 'xx_XX'."
                ),
                (
                    "WARNING",
                    "The project has been saved successfully|Changing the parent is not supported"
                ),
            ]
        );
        assert!(projects(&server, &server.token, &["HALF"]).await.is_empty());
        let root = &projects(&server, &server.token, &["ROOT"]).await[0];
        assert_eq!(root["name"], "Root", "the refused rename is not saved");
        assert_eq!(items(val(root, "Budget")), ["=100"]);
        let warned = &projects(&server, &server.token, &["WARNED"]).await[0];
        assert_eq!(items(val(warned, "Headline")), ["en_GB=Hi"]);
        assert!(val(warned, "Unregistered").is_none());
        let b = &projects(&server, &server.token, &["ROOT-B"]).await[0];
        assert_eq!(b["parentTid"], "ROOT");
        // Bad input is 400 before anything is applied.
        for body in [
            json!({"projects": {"project": [{"tid": 5}]}}),
            json!({"projects": {"project": [{"tid": "X", "vals": {"val": [{"attr": "Sizes", "type": "several"}]}}]}}),
            json!({"kwds": {"kwd": []}}),
            json!({}),
        ] {
            let (status, answer) = post(&server, &CHANNELS_PERSIST, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

async fn channel_retrieve_shows_what_the_caller_may_see() {
    for url in backends("channel retrieve").await {
        let server = server(&url).await;
        let all = projects(&server, &server.token, &["ROOT-B", "ROOT", "NOPE", "ROOT"]).await;
        let shown: Vec<&str> = all.iter().filter_map(|p| p["tid"].as_str()).collect();
        assert_eq!(
            shown,
            ["ROOT-B", "ROOT"],
            "request order, each once, unknown skipped"
        );
        let root = &all[1];
        assert!(root.get("parentId").is_none() && root.get("parentTid").is_none());
        let meta: Vec<&str> = root["meta"]["itm"]
            .as_array()
            .expect("meta")
            .iter()
            .filter_map(|itm| itm["key"].as_str())
            .collect();
        assert_eq!(
            meta,
            [
                "id",
                "creationDate",
                "modificationDate",
                "icon",
                "allowedFunctions"
            ]
        );
        assert_eq!(
            root["links"]["itm"],
            json!([{"key": "A-1", "value": "/images/a.jpg"}, {"key": "A-R", "value": "/images/secret.jpg"}])
        );
        let peos: Vec<&str> = all[0]["peos"]["peo"]
            .as_array()
            .expect("peos")
            .iter()
            .filter_map(|peo| peo["tid"].as_str())
            .collect();
        assert_eq!(peos, ["PEO-1", "PEO-R"]);
        assert_eq!(all[0]["peos"]["peo"][0]["nodes"]["node"], json!(["ROOT-B"]));
        assert_eq!(all[0]["peos"]["peo"][0]["default"], true);
        let reader = projects(&server, READER, &["ROOT", "ROOT-B"]).await;
        assert_eq!(
            reader[0]["links"]["itm"],
            json!([{"key": "A-1", "value": "/images/a.jpg"}])
        );
        assert_eq!(reader[1]["peos"]["peo"].as_array().map(Vec::len), Some(1));
        let (status, _) = post_json(
            &server,
            PIM_ONLY,
            &CHANNELS_RETRIEVE,
            &json!({"tids": ["ROOT"]}),
        )
        .await;
        assert_eq!(status, 403);
        let (status, answer) = post(
            &server,
            &CHANNELS_RETRIEVE,
            &json!({"tids": ["NOPE"], "ids": []}),
        )
        .await;
        assert_eq!((status, &answer["projects"]["project"]), (200, &json!([])));
        for body in [json!({}), json!({"tids": "ROOT"}), json!({"ids": ["x"]})] {
            let (status, answer) = post(&server, &CHANNELS_RETRIEVE, &body).await;
            assert_eq!(status, 400, "{body}: {answer}");
        }
        server.stop().await;
    }
}

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

contract_tests::trials!(
    channel_query_orders_a_subtree_depth_first_and_limits_its_levels,
    channels_persist_then_retrieve_agree_in_every_representation,
    a_refused_channel_writes_nothing_and_warnings_save_the_rest,
    channel_retrieve_shows_what_the_caller_may_see,
    the_briefing_is_the_documented_xml,
);
