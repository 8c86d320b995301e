//! Throughput of the representation engine on generated 1 MB and 10 MB PimType messages, with the
//! floors it is measured against: quick-xml's raw event scan of the same XML and serde_json's
//! parse of the same JSON into a `Value`. Also the peak heap of one 10 MB XML → compact transform,
//! and the time of one request's codec work in `cargo xtask bench-http`'s transform scenario (its
//! 2 KB JSON body decoded, answered in XML), which that scenario's floor holds to a budget; and
//! the decoding of two small requests whose objects have rules, against the reference reader.
//!
//! `cargo bench --bench codecs`; each group prints MB/s (criterion's throughput).

use std::{
    alloc::{GlobalAlloc, Layout},
    hint::black_box,
    sync::atomic::{AtomicBool, AtomicIsize, Ordering},
    time::Duration,
};

use core_api::{tables, types};
use core_api_support::Representation::{self, Compact, Json, Xml};
use core_server::repr::{Codec, Limits};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// The server's allocator, counting live heap bytes and their peak for the memory measurement.
struct Counting;

/// Counting is on only while memory is measured, so it does not slow the throughput runs.
static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { core_server::Allocator.alloc(layout) };
        if !pointer.is_null() && COUNTING.load(Ordering::Relaxed) {
            let size = layout.size() as isize;
            let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { core_server::Allocator.dealloc(pointer, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
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

impl Inputs {
    /// The message in each representation, with the name its benchmarks carry.
    fn bodies(&self) -> [(&'static str, Representation, &Vec<u8>); 3] {
        [
            ("xml", Xml, &self.xml),
            ("json", Json, &self.json),
            ("compact", Compact, &self.compact),
        ]
    }
}

/// A benchmark group of one kind of work on one message size, with the sampling every group uses.
fn benchmark_group<'c>(
    c: &'c mut Criterion,
    kind: &str,
    inputs: &Inputs,
) -> criterion::BenchmarkGroup<'c, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(format!("{kind} {}", inputs.label));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    group
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

/// What the server does with a body: bytes to the typed value.
fn decode(codec: &Codec, representation: Representation, bytes: &[u8]) -> types::PimType {
    codec
        .decode_typed(representation, bytes, &tables::PIM_TYPE)
        .expect("decodes")
}

/// What the server does with an answer: the typed value (given up) to bytes.
fn encode(codec: &Codec, representation: Representation, value: types::PimType) -> Vec<u8> {
    codec
        .encode_typed(representation, value, &tables::PIM_TYPE)
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
        let mut group = benchmark_group(c, "decode", &inputs);
        for (name, representation, bytes) in inputs.bodies() {
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
        // The same floor over the compact body, the compact decoder's own input.
        group.throughput(Throughput::Bytes(inputs.compact.len() as u64));
        group.bench_function("floor: serde_json into Value (compact body)", |b| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(&inputs.compact)).expect("parses"))
        });
        group.finish();

        let mut group = benchmark_group(c, "encode", &inputs);
        for (name, representation, bytes) in inputs.bodies() {
            group.throughput(Throughput::Bytes(bytes.len() as u64));
            group.bench_function(name, |b| {
                b.iter_batched(
                    || inputs.typed.clone(),
                    |typed| encode(&codec, representation, black_box(typed)),
                    BatchSize::LargeInput,
                )
            });
        }
        group.finish();

        let mut group = benchmark_group(c, "transform", &inputs);
        group.throughput(Throughput::Bytes(inputs.xml.len() as u64));
        group.bench_function("xml to compact", |b| {
            b.iter(|| encode(&codec, Compact, decode(&codec, Xml, black_box(&inputs.xml))))
        });
        group.finish();
    }
    request_sized(c, &codec);
    refused_requests(c, &codec);
    peak_memory(&codec);
}

/// A 1 MB message refused for a property it gives last, in JSON and compact JSON: the server's
/// readers (the fast path, then the error walk or the compact rewrite) against the reference
/// reader (the tree), in time and in peak heap.
fn refused_requests(c: &mut Criterion, codec: &Codec) {
    let inputs = inputs("1MB", 1 << 20);
    let refused = |body: &[u8]| {
        let mut body = body.to_vec();
        body.pop();
        body.extend_from_slice(br#","zz":1}"#);
        body
    };
    let bodies = [
        ("json", Json, refused(&inputs.json)),
        ("compact", Compact, refused(&inputs.compact)),
    ];
    let mut group = c.benchmark_group("refused 1MB");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    for (name, representation, body) in &bodies {
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| {
                codec.decode_typed::<types::PimType>(
                    *representation,
                    black_box(body),
                    &tables::PIM_TYPE,
                )
            })
        });
        group.bench_function(format!("{name}, reference reader"), |b| {
            b.iter(|| {
                codec.decode_reference::<types::PimType>(
                    *representation,
                    black_box(body),
                    &tables::PIM_TYPE,
                )
            })
        });
    }
    group.finish();
    for (name, representation, body) in &bodies {
        let server = heap_peak(|| {
            codec.decode_typed::<types::PimType>(*representation, body, &tables::PIM_TYPE)
        });
        let reference = heap_peak(|| {
            codec.decode_reference::<types::PimType>(*representation, body, &tables::PIM_TYPE)
        });
        println!(
            "peak heap refusing a {:.1} MB {name} body: {:.2} MB through the server's readers, {:.2} MB through the tree",
            body.len() as f64 / 1e6,
            server as f64 / 1e6,
            reference as f64 / 1e6
        );
    }
}

/// The peak heap `work` allocates beyond what was live when it started.
fn heap_peak<T>(work: impl FnOnce() -> T) -> isize {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    drop(black_box(work()));
    COUNTING.store(false, Ordering::Relaxed);
    PEAK.load(Ordering::Relaxed)
}

/// The body of `cargo xtask bench-http`'s transform scenario, built as
/// `xtask/src/bench_http/scenarios.rs` builds it: 24 keywords with two names each, one meta item.
fn transform_scenario_body() -> Vec<u8> {
    let kwd: Vec<Value> = (0..24)
        .map(|at| json!({"id": at, "path": format!("/Season/Keyword{at:02}"), "name": {"itm": [{"value": format!("Keyword {at:02}")}, {"value": format!("Schlagwort {at:02}"), "loc": "de_DE"}]}}))
        .collect();
    json!({"meta": {"itm": [{"key": "sourceEnv", "value": "bench"}]}, "kwds": {"kwd": kwd}})
        .to_string()
        .into_bytes()
}

/// One transform request's codec work, per request rather than per megabyte: the scenario's floor
/// answers in a few microseconds, so this says how much of the ratio's budget the codecs take.
fn request_sized(c: &mut Criterion, codec: &Codec) {
    let body = transform_scenario_body();
    let mut group = c.benchmark_group(format!("request {} B", body.len()));
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(4));
    group.bench_function("transform json to xml", |b| {
        b.iter(|| {
            let typed = codec
                .decode_typed::<types::ServiceType>(Json, black_box(&body), &tables::SERVICE_TYPE)
                .expect("decodes");
            codec
                .encode_typed(Xml, typed, &tables::SERVICE_TYPE)
                .expect("encodes")
        })
    });
    group.bench_function("decode json", |b| {
        b.iter(|| {
            codec
                .decode_typed::<types::ServiceType>(Json, black_box(&body), &tables::SERVICE_TYPE)
                .expect("decodes")
        })
    });
    group.bench_function("floor: serde_json into Value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&body)).expect("parses"))
    });
    group.finish();
    ruled_requests(c, codec);
}

/// The requests of the load benchmark's locales and channels scenarios, objects with rules:
/// decoded as the server decodes them, and through the reference reader (the tree), which read
/// them all before the fast path held rules.
fn ruled_requests(c: &mut Criterion, codec: &Codec) {
    let mut group = c.benchmark_group("request with rules");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(3));
    let locales = br#"{"mode":"ALL"}"#;
    decoding::<types::LocaleRequest>(
        &mut group,
        codec,
        "locales",
        locales,
        &tables::LOCALE_REQUEST,
    );
    let channels = br#"{"tids":["CAT-2027","CAT-2027-SHIRTS-P1","WEB-SHOP"]}"#;
    decoding::<types::ChannelRequestDto>(
        &mut group,
        codec,
        "channels",
        channels,
        &tables::CHANNEL_REQUEST_DTO,
    );
    group.finish();
}

/// Benchmarks decoding `body` as the server does, and through the reference reader alone.
fn decoding<T: serde::de::DeserializeOwned>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    codec: &Codec,
    name: &str,
    body: &[u8],
    schema: &'static core_api_support::Schema,
) {
    group.bench_function(name, |b| {
        b.iter(|| {
            codec
                .decode_typed::<T>(Json, black_box(body), schema)
                .expect("decodes")
        })
    });
    group.bench_function(format!("{name}, reference reader"), |b| {
        b.iter(|| {
            codec
                .decode_reference::<T>(Json, black_box(body), schema)
                .expect("decodes")
        })
    });
}

/// Prints the peak heap of one 10 MB XML → compact transform as the server runs it: the body is
/// held while it is decoded and dropped before the answer is encoded.
fn peak_memory(codec: &Codec) {
    let inputs = inputs("10MB", 10 << 20);
    let source = inputs.xml.clone();
    let size = source.len();
    drop(inputs);
    let mb = |bytes: isize| bytes as f64 / 1e6;
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let body = source.clone();
    let typed = decode(codec, Xml, &body);
    drop(body);
    let decode_peak = PEAK.swap(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let held = LIVE.load(Ordering::Relaxed);
    let out = encode(codec, Compact, typed);
    COUNTING.store(false, Ordering::Relaxed);
    let encode_peak = PEAK.load(Ordering::Relaxed);
    let peak = decode_peak.max(encode_peak);
    println!(
        "peak heap of a {:.1} MB XML → compact transform: {:.1} MB ({:.2}× the message): decoding {:.1} MB \
         (body included), typed value {:.1} MB, encoding {:.1} MB; output {:.1} MB",
        mb(size as isize),
        mb(peak),
        peak as f64 / size as f64,
        mb(decode_peak),
        mb(held),
        mb(encode_peak),
        mb(out.len() as isize)
    );
}

criterion_group!(codec_benches, benches);
criterion_main!(codec_benches);
