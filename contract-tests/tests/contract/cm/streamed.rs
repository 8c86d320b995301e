//! Channel retrieve written as it is read (D-59): an answer longer than its first 64 KiB comes in
//! chunked transfer, channels read 64 at a time, and its bytes are those of the same answer
//! written whole, in each representation.

use contract_tests::{backends, fixture, streamed_alike};
use core_api::operations::CHANNELS_RETRIEVE;
use serde_json::{Value, json};

use super::server;

/// How many channels the long answer holds: more than two pages.
const CHANNELS: usize = 150;

/// The tid of the long answer's channel `n`.
fn tid(n: usize) -> String {
    format!("LONG-{n:03}")
}

/// [`CHANNELS`] channels under ROOT, each with a localized value and a linked asset, and one PEO
/// linked to all of them.
fn long_channels() -> Value {
    let channels: Vec<Value> = (0..CHANNELS)
        .map(|n| {
            json!({"tid": tid(n), "type": "page", "parent": "ROOT", "name": format!("Long {n}"),
                   "orderSequence": n,
                   "values": [{"attr": "Headline", "type": "localized", "items": [
                       {"value": format!("Headline of {n} {}", "x".repeat(200)), "loc": "en_GB"}]}],
                   "assets": ["A-1"]})
        })
        .collect();
    let tids: Vec<String> = (0..CHANNELS).map(tid).collect();
    json!({
        "channels": channels,
        "peos": [{"tid": "PEO-LONG", "product": "P-1", "name": "Long", "channels": tids}]
    })
}

async fn a_long_channel_retrieve_is_streamed_in_request_order_as_the_whole_answer() {
    // Asked backwards, with one tid twice and one unknown: answered in request order, each once.
    let mut asked: Vec<String> = (0..CHANNELS).rev().map(tid).collect();
    asked.push(tid(7));
    asked.push("NOPE".into());
    let body = json!({"tids": asked});
    let expected: Vec<String> = (0..CHANNELS).rev().map(tid).collect();
    for url in backends("channels retrieve streamed").await {
        let server = server(&url).await;
        server.load(&fixture(long_channels())).await;
        let answer = streamed_alike(&server, &CHANNELS_RETRIEVE, &body).await;
        let projects = answer["projects"]["project"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let tids: Vec<&str> = projects
            .iter()
            .filter_map(|project| project["tid"].as_str())
            .collect();
        assert_eq!(tids, expected);
        for project in &projects {
            assert_eq!(project["peos"]["peo"][0]["tid"], "PEO-LONG", "{project}");
            assert_eq!(project["links"]["itm"][0]["key"], "A-1", "{project}");
        }
        server.stop().await;
    }
}

contract_tests::trials!(a_long_channel_retrieve_is_streamed_in_request_order_as_the_whole_answer,);
