//! Throughput of the representation engine on generated 1 MB and 10 MB PimType messages, with the
//! floors it is measured against: quick-xml's raw event scan of the same XML and serde_json's
//! parse of the same JSON into a `Value`. Also the peak heap of one 10 MB XML → compact transform.
//!
//! `cargo bench --bench codecs`; each group prints MB/s (criterion's throughput).

use std::{
    alloc::{GlobalAlloc, Layout, System},
    hint::black_box,
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use core_api::{tables, types};
use core_api_support::Representation::{self, Compact, Json, Xml};
use core_server::repr::{Codec, Limits};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// Counts live heap bytes and their peak, for the memory measurement.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn codec() -> Codec {
    Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, Limits::default())
}

/// One channel with values of every kind, a link and an embedded PEO, numbered `n`.
fn project(n: usize) -> Value {
    json!({
        "id": 600000 + n, "tid": format!("CH-{n}"), "parentId": 598800, "parentTid": "SS2025",
        "type": "Advertising media", "orderSequence": n % 50,
        "name": format!("Channel {n} & friends <print>"),
        "meta": {"itm": [
            {"key": "id", "value": (600000 + n).to_string()},
            {"key": "creationDate", "value": "2024-01-10T08:00:00.000Z"},
            {"key": "modificationDate", "value": "2024-02-01T10:00:00.000Z"},
            {"key": "allowedFunctions", "value": "edit,briefing,export"}
        ]},
        "vals": {"val": [
            {"attr": "Comment", "dataType": "text", "itm": [{"value": format!("Cover page {n}")}]},
            {"attr": "Target_Sizes", "type": "multiple", "itm": [{"value": "S", "pos": 0}, {"value": "M", "pos": 1}, {"value": "L", "pos": 2}]},
            {"attr": "Claim", "type": "localized", "itm": [{"value": "Sommer kommt", "loc": "de_DE"}, {"value": "Summer is coming", "loc": "en_GB"}]}
        ]},
        "links": {"itm": [{"key": format!("A-{n}"), "value": format!("/catalog/2025/{n}.jpg")}]},
        "peos": {"peo": [{
            "tid": format!("PEO-{n}"), "product": "PR-4711", "template": "Web shop", "default": n.is_multiple_of(2),
            "name": "Web shop prices", "nodes": {"node": [format!("CH-{n}")]},
            "vals": {"val": [{"attr": "Price", "dataType": "text", "itm": [{"value": "19.99"}]}]}
        }]}
    })
}

/// A PimType message of about `bytes` bytes in XML.
fn message(bytes: usize) -> Value {
    let codec = codec();
    let per_project = codec
        .encode(
            Xml,
            json!({"projects": {"project": [project(1)]}}),
            &tables::PIM_TYPE,
        )
        .map(|xml| xml.len())
        .unwrap_or(2000);
    let count = bytes / per_project;
    json!({
        "schemaVersion": "5.6.0",
        "meta": {"itm": [{"key": "messageType", "value": "request"}, {"key": "sourceEnv", "value": "bench"}]},
        "projects": {"project": (0..count).map(project).collect::<Vec<_>>()}
    })
}

struct Inputs {
    label: &'static str,
    xml: Vec<u8>,
    json: Vec<u8>,
    compact: Vec<u8>,
    typed: types::PimType,
}

fn inputs(label: &'static str, bytes: usize) -> Inputs {
    let codec = codec();
    let tree = message(bytes);
    let encode = |representation| {
        codec
            .encode(representation, tree.clone(), &tables::PIM_TYPE)
            .expect("encodes")
    };
    Inputs {
        label,
        xml: encode(Xml),
        json: encode(Json),
        compact: encode(Compact),
        typed: serde_json::from_value(tree.clone()).expect("typed"),
    }
}

fn decode(codec: &Codec, representation: Representation, bytes: &[u8]) -> types::PimType {
    let tree = codec
        .decode(representation, bytes, &tables::PIM_TYPE)
        .expect("decodes");
    serde_json::from_value(tree).expect("typed")
}

fn encode(codec: &Codec, representation: Representation, value: &types::PimType) -> Vec<u8> {
    let tree = serde_json::to_value(value).expect("tree");
    codec
        .encode(representation, tree, &tables::PIM_TYPE)
        .expect("encodes")
}

/// quick-xml's raw event scan: the floor of XML decoding.
fn scan_xml(bytes: &[u8]) -> usize {
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut buffer = Vec::new();
    let mut events = 0;
    loop {
        match reader.read_event_into(&mut buffer) {
            Ok(quick_xml::events::Event::Eof) | Err(_) => return events,
            Ok(_) => events += 1,
        }
        buffer.clear();
    }
}

fn benches(c: &mut Criterion) {
    let codec = codec();
    for inputs in [inputs("1MB", 1 << 20), inputs("10MB", 10 << 20)] {
        let mut group = c.benchmark_group(format!("decode {}", inputs.label));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(8));
        for (name, representation, bytes) in [
            ("xml", Xml, &inputs.xml),
            ("json", Json, &inputs.json),
            ("compact", Compact, &inputs.compact),
        ] {
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_function(name, |b| {
                b.iter(|| decode(&codec, representation, black_box(bytes)))
            });
        }
        group.throughput(Throughput::Bytes(inputs.xml.len() as u64));
        group.bench_function("floor: quick-xml event scan", |b| {
            b.iter(|| scan_xml(black_box(&inputs.xml)))
        });
        group.throughput(Throughput::Bytes(inputs.json.len() as u64));
        group.bench_function("floor: serde_json into Value", |b| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(&inputs.json)).expect("parses"))
        });
        group.finish();

        let mut group = c.benchmark_group(format!("encode {}", inputs.label));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(8));
        for (name, representation, bytes) in [
            ("xml", Xml, &inputs.xml),
            ("json", Json, &inputs.json),
            ("compact", Compact, &inputs.compact),
        ] {
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_function(name, |b| {
                b.iter(|| encode(&codec, representation, black_box(&inputs.typed)))
            });
        }
        group.finish();

        let mut group = c.benchmark_group(format!("transform {}", inputs.label));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(8));
        group.throughput(Throughput::Bytes(inputs.xml.len() as u64));
        group.bench_function("xml to compact", |b| {
            b.iter(|| {
                encode(
                    &codec,
                    Compact,
                    &decode(&codec, Xml, black_box(&inputs.xml)),
                )
            })
        });
        group.finish();
    }
    peak_memory(&codec);
}

/// Prints the peak heap of one 10 MB XML → compact transform, relative to the message size.
fn peak_memory(codec: &Codec) {
    let inputs = inputs("10MB", 10 << 20);
    let xml = inputs.xml.clone();
    drop(inputs);
    let baseline = LIVE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let out = encode(codec, Compact, &decode(codec, Xml, &xml));
    let peak = PEAK.load(Ordering::Relaxed) - baseline;
    println!(
        "peak heap of a {:.1} MB XML → compact transform: {:.1} MB ({:.2}× the message; output {:.1} MB)",
        xml.len() as f64 / 1e6,
        peak as f64 / 1e6,
        peak as f64 / xml.len() as f64,
        out.len() as f64 / 1e6
    );
}

criterion_group!(codec_benches, benches);
criterion_main!(codec_benches);
