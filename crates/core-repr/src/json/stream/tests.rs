//! The fast path against the reference reader: the regular messages it takes, read the same, and
//! the irregular ones it leaves to the reference reader.

use core_api::{
    tables,
    types::{
        AttributesQueryRequest, AttributesRetrieveRequest, BriefingRequest, ChannelQueryDto,
        ChannelRequestDto, KeywordRequest, LocaleRequest, Message, PeoRequest, PimType,
    },
};
use core_api_support::{
    Field, Kind,
    Representation::{self, Compact, Json},
    Scalar, Schema, Type,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{read, read_compact};
use crate::{Codec, Limits};

fn codec() -> Codec {
    Codec::new("urn:core-interface:v1", Limits::default())
}

/// Reads `text` through the fast path and through the reference reader, requires the same
/// answer when the fast path takes it, and says whether it did.
fn taken<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    text: &str,
    schema: &'static Schema,
) -> bool {
    taken_as::<T>(Json, text, schema)
}

/// As [`taken`], in `representation` (JSON or compact JSON).
fn taken_as<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    representation: Representation,
    text: &str,
    schema: &'static Schema,
) -> bool {
    let fast = match representation {
        Compact => read_compact::<T>(text.as_bytes(), schema, &Limits::default()),
        _ => read::<T>(text.as_bytes(), schema, &Limits::default()),
    };
    let reference = codec().decode_reference::<T>(representation, text.as_bytes(), schema);
    if let Some(fast) = &fast {
        assert_eq!(Some(fast), reference.as_ref().ok(), "taken: {text}");
    }
    // Whatever path it takes, the engine answers as the reference reader does.
    let engine = codec().decode_typed::<T>(representation, text.as_bytes(), schema);
    assert_eq!(
        engine.map_err(|error| error.to_string()),
        reference.map_err(|error| error.to_string()),
        "{text}"
    );
    fast.is_some()
}

fn pim(text: &str) -> bool {
    taken::<PimType>(text, &tables::PIM_TYPE)
}

#[test]
fn the_regular_message_takes_the_fast_path() {
    for text in [
        r#"{}"#,
        r#" {"schemaVersion":"5.6.0"} "#,
        r#"{"xmlns":"urn:x","meta":{"itm":[{"key":"a","value":"x"},{"key":"a","value":"y"},{"key":"b","value":"\u00e9\n"}]}}"#,
        r#"{"kwds":{"kwd":[{"id":1,"path":"/a","name":{"itm":[{"value":"A"},{"value":"Ä","loc":"de_DE"}]}},{"id":2,"parentId":1}]}}"#,
        r#"{"locales":{"locale":[]},"kwds":{"kwd":[]}}"#,
    ] {
        assert!(pim(text), "not taken: {text}");
    }
    assert!(taken::<KeywordRequest>(
        r#"{"path":"/","level":-1,"retrieveLinks":true}"#,
        &tables::KEYWORD_REQUEST
    ));
}

#[test]
fn anything_irregular_goes_to_the_reference_reader() {
    for text in [
        "",
        "  ",
        "[]",
        "null",
        r#"{"kwds":{}} x"#,
        r#"{"kwds":{},"kwds":{}}"#,
        r#"{"xmlns":"a","xmlns":"b"}"#,
        // Found by `cargo fuzz run decode_json`: keys repeated inside an `xmlns` object, which
        // the reference reader refuses.
        r#"{"xmlns":{"itm":[{"value":"a","value":"b"}]}}"#,
        r#"{"xmlns":1}"#,
        r#"{"unknown":1}"#,
        r#"{"kwds":{"kwd":[{"id":"1"}]}}"#,
        r#"{"kwds":{"kwd":[{"id":1.5}]}}"#,
        r#"{"kwds":{"kwd":[{"id":9223372036854775808}]}}"#,
        r#"{"kwds":{"kwd":[{"id":null}]}}"#,
        r#"{"kwds":{"kwd":{"id":1}}}"#,
        r#"{"kwds":{"kwd":[{"path":"/a\u0001"}]}}"#,
        r#"{"meta":{"itm":[{"key":"a","value":"1"},{"key":"b","value":"2"},{"key":"a","value":"3"}]}}"#,
        r#"{"meta":{"itm":[{"key":"a","value":"1"},{"value":"2"},{"key":"a","value":"3"}]}}"#,
    ] {
        assert!(!pim(text), "taken: {text:?}");
    }
    for text in [
        r#"{"path":"/","level":0}"#,
        r#"{"path":"/","level":2147483648}"#,
        r#"{"level":1}"#,
        r#"{"path":"/","retrieveLinks":"yes"}"#,
    ] {
        assert!(
            !taken::<KeywordRequest>(text, &tables::KEYWORD_REQUEST),
            "taken: {text}"
        );
    }
    // Bytes that are not UTF-8, even where nothing is read (the root's `xmlns` is skipped).
    for bytes in [
        &b"{\"xmlns\":{\"\xf6\":1}}"[..],
        b"{\"xmlns\":\"\xf6\"}",
        b"{\"schemaVersion\":\"5.6.0\"}\xf6",
        b"{\"kwds\":{\"kwd\":[{\"path\":\"\xf6\"}]}}",
    ] {
        assert!(read::<PimType>(bytes, &tables::PIM_TYPE, &Limits::default()).is_none());
        assert!(
            codec()
                .decode_typed::<PimType>(Json, bytes, &tables::PIM_TYPE)
                .is_err()
        );
    }
}

/// What the fast path declines in JSON is answered without the tree: its error by the error walk
/// or the typed conversion's trace, an irregular valid message by the second reading, which
/// groups map-form items (`group`).
#[test]
fn what_the_fast_path_declines_in_json_needs_no_tree() {
    let many_keys: Vec<String> = (0..40)
        .map(|key| format!(r#"{{"key":"k{}","value":"{key}"}}"#, key % 35))
        .collect();
    let many_keys = format!(r#"{{"meta":{{"itm":[{}]}}}}"#, many_keys.join(","));
    for text in [
        r#"{"meta":{"itm":[{"key":"a","value":"1"},{"key":"b","value":"2"},{"key":"a","value":"3"}]}}"#,
        r#"{"meta":{"itm":[{"key":"a","value":"1"},{"value":"2"},{"key":"a","value":"3"}]}}"#,
        &many_keys,
        r#"{"kwds":{"kwd":[{"id":"1"}]}}"#,
        r#"{"kwds":{}} x"#,
        r#"{"xmlns":1,"kwds":{}}"#,
        r#"{"xmlns":{"a":[1]}}"#,
    ] {
        assert!(!pim(text), "taken at once: {text}");
        let limits = Limits::default();
        let answered = crate::json::first_error(text.as_bytes(), &tables::PIM_TYPE, &limits)
            .is_some()
            || !matches!(
                super::read_traced::<PimType>(text.as_bytes(), &tables::PIM_TYPE, &limits),
                Err(None)
            );
        assert!(answered, "left to the tree: {text}");
    }
    // Free keys past those the fast path tracks are read by the second reading.
    let keys: Vec<String> = (0..40).map(|key| format!(r#""c{key}":"ACTIVE""#)).collect();
    let components = format!("{{{}}}", keys.join(","));
    assert!(!taken::<core_api::types::Components>(
        &components,
        &tables::COMPONENTS
    ));
    let read = super::read_traced::<core_api::types::Components>(
        components.as_bytes(),
        &tables::COMPONENTS,
        &Limits::default(),
    );
    assert!(read.is_ok(), "{components}");
    // Batch items' rules are the batch layer's: the message reads, as through the reference.
    assert!(taken::<core_api::types::MessagesPersistRequest>(
        r#"{"messages":[{}]}"#,
        &tables::MESSAGES_PERSIST_REQUEST
    ));
}

/// Every schema of the document is one the fast path reads whole once the body is walked: an
/// object of no more fields than its bit set holds, free keys of scalars. A schema past these
/// would have its valid messages declined by every reader.
#[test]
fn every_schema_fits_the_fast_path() {
    for schema in tables::ALL {
        match &schema.kind {
            Kind::Object(fields) => {
                assert!(
                    fields.len() <= super::MAX_FIELDS,
                    "{}: too many fields",
                    schema.name
                );
            }
            Kind::Map(field) => {
                assert!(
                    matches!(field.ty, Type::Scalar(_)),
                    "{}: free keys of objects",
                    schema.name
                );
            }
            Kind::Scalar(_) | Kind::Alias(_) => {}
        }
    }
}

#[test]
fn rules_are_held_as_the_reference_reader_holds_them() {
    // (message, kept): a message that keeps its rules is taken, one that breaks one is left to
    // the reference reader, which refuses it.
    let locale = [
        (r#"{"mode":"ALL"}"#, true),
        (r#"{"mode":"ID","ids":[1,2]}"#, true),
        (r#"{"mode":"TID","tids":["de_DE"]}"#, true),
        (r#"{"mode":"ALL","ids":[]}"#, true),
        (r#"{"mode":"ALL","ids":[1]}"#, false),
        (r#"{"mode":"ID"}"#, false),
        (r#"{"mode":"ID","ids":[]}"#, false),
        (r#"{"mode":"TID","ids":[1],"tids":["x"]}"#, false),
    ];
    for (text, kept) in locale {
        assert_eq!(
            taken::<LocaleRequest>(text, &tables::LOCALE_REQUEST),
            kept,
            "{text}"
        );
    }
    let channel = [
        (r#"{"id":3}"#, true),
        (r#"{"tid":"WEB"}"#, true),
        (r#"{"root":true,"level":2}"#, true),
        (r#"{"id":3,"root":false}"#, true),
        (r#"{"root":false}"#, false),
        (r#"{"id":3,"tid":"WEB"}"#, false),
        (r#"{"tid":"WEB","root":true}"#, false),
        (r#"{}"#, false),
    ];
    for (text, kept) in channel {
        assert_eq!(
            taken::<ChannelQueryDto>(text, &tables::CHANNEL_QUERY_DTO),
            kept,
            "{text}"
        );
    }
    let message = [
        (r#"{"subject":"s","recipientUser":"ann"}"#, true),
        (r#"{"subject":"s","recipientRole":" x "}"#, true),
        (
            r#"{"subject":"s","recipientUser":" ","recipientRole":"r"}"#,
            true,
        ),
        (r#"{"subject":"s","recipientUser":" \t"}"#, false),
        (r#"{"subject":"s"}"#, false),
    ];
    for (text, kept) in message {
        assert_eq!(taken::<Message>(text, &tables::MESSAGE), kept, "{text}");
    }
    // The same in compact JSON, whose form of these objects is default JSON's.
    assert!(taken_as::<LocaleRequest>(
        Compact,
        r#"{"mode":"ID","ids":[1]}"#,
        &tables::LOCALE_REQUEST
    ));
    assert!(!taken_as::<LocaleRequest>(
        Compact,
        r#"{"mode":"ID","ids":[]}"#,
        &tables::LOCALE_REQUEST
    ));
}

#[test]
fn free_keys_are_held_as_the_reference_reader_holds_them() {
    for (text, regular) in [
        (
            r#"{"recipientUser":"ann","parameters":{"a":"1","b":"2"}}"#,
            true,
        ),
        (r#"{"recipientUser":"ann","parameters":{}}"#, true),
        (
            r#"{"recipientUser":"ann","parameters":{"a":"1","a":"2"}}"#,
            false,
        ),
        (r#"{"recipientUser":"ann","parameters":{"a":1}}"#, false),
        (
            r#"{"recipientUser":"ann","parameters":{"a":"\u0001"}}"#,
            false,
        ),
        (r#"{"recipientUser":"ann","parameters":[]}"#, false),
    ] {
        assert_eq!(taken::<Message>(text, &tables::MESSAGE), regular, "{text}");
    }
    let many: Vec<String> = (0..40).map(|at| format!(r#""k{at}":"v""#)).collect();
    let text = format!(
        r#"{{"recipientUser":"ann","parameters":{{{}}}}}"#,
        many.join(",")
    );
    assert!(
        !taken::<Message>(&text, &tables::MESSAGE),
        "more keys than are tracked"
    );
}

#[test]
fn depth_and_counts_are_held_as_the_reference_reader_holds_them() {
    let text = br#"{"kwds":{"kwd":[{"id":1,"name":{"itm":[{"value":"A"}]}}]}}"#;
    let mut answers = Vec::new();
    for max_depth in 0..7 {
        let limits = Limits { max_depth };
        let fast = read::<PimType>(text, &tables::PIM_TYPE, &limits).is_some();
        let reference = Codec::new("urn:core-interface:v1", limits)
            .decode_reference::<PimType>(Json, text, &tables::PIM_TYPE)
            .is_ok();
        assert_eq!(fast, reference, "at most {max_depth} levels");
        answers.push(fast);
    }
    assert_eq!(answers, [false, false, false, false, true, true, true]);
    let many = format!(
        r#"{{"kwds":{{"kwd":[{}]}}}}"#,
        vec![r#"{"id":1}"#; 10_001].join(",")
    );
    pim(&many);
}

fn compact(text: &str) -> bool {
    taken_as::<PimType>(Compact, text, &tables::PIM_TYPE)
}

#[test]
fn the_regular_compact_message_takes_the_fast_path() {
    for text in [
        r#"{}"#,
        r#"{"xmlns":"urn:x","schemaVersion":"5.6.0","meta":{}}"#,
        r#"{"meta":{"messageType":"request","b":{"value":"y","loc":"de_DE","pos":1},"c":"\u00e9\n"}}"#,
        r#"{"kwds":{"entries":[{"id":1,"path":"/a","name":{"itm":[{"value":"A"},{"value":"Ä","loc":"de_DE"}]}},{"id":2,"parentId":1,"meta":{"a":"b"}}]}}"#,
        r#"{"locales":{"entries":[]},"kwds":{"entries":[]}}"#,
        r#"{"peos":{"entries":[{"tid":"P","nodes":{"entries":["N1","N2"]},"vals":{"entries":[{"attr":"Price","value":"19.99"},{"attr":"Sizes","type":"multiple","value":[{"value":"S"},{"value":"M","loc":"de_DE"}]},{"attr":"None","value":[]},{"attr":"Bare"}]}}]}}"#,
    ] {
        assert!(compact(text), "not taken: {text}");
    }
    assert!(taken_as::<KeywordRequest>(
        Compact,
        r#"{"path":"/","level":-1,"retrieveLinks":true}"#,
        &tables::KEYWORD_REQUEST
    ));
}

#[test]
fn anything_irregular_in_compact_goes_to_the_reference_reader() {
    for text in [
        "",
        "[]",
        r#"{"kwds":{"kwd":[{"id":1}]}}"#,
        r#"{"kwds":{"entries":[],"kwd":[]}}"#,
        r#"{"kwds":{"entries":[],"entries":[]}}"#,
        r#"{"kwds":{"entries":{"id":1}}}"#,
        r#"{"meta":{"a":"x","a":"y"}}"#,
        r#"{"meta":{"a":["x","y"]}}"#,
        r#"{"meta":{"a":{"key":"b","value":"x"}}}"#,
        r#"{"meta":{"a":{"loc":"de_DE"}}}"#,
        r#"{"meta":{"a":1}}"#,
        r#"{"meta":{"a":null}}"#,
        r#"{"meta":{"a\u0001":"x"}}"#,
        r#"{"meta":{"a":"x\u0001"}}"#,
        r#"{"meta":[]}"#,
        r#"{"peos":{"entries":[{"tid":"P","vals":{"entries":[{"attr":"A","itm":[{"value":"x"}]}]}}]}}"#,
        r#"{"peos":{"entries":[{"tid":"P","vals":{"entries":[{"attr":"A","value":1}]}}]}}"#,
        r#"{"peos":{"entries":[{"tid":"P","vals":{"entries":[{"attr":"A","value":["x"]}]}}]}}"#,
        r#"{"peos":{"entries":[{"tid":"P","vals":{"entries":[{"attr":"A","value":"x","value":"y"}]}}]}}"#,
    ] {
        assert!(!compact(text), "taken: {text:?}");
    }
    // Past `maxItems` (1000) in a map form.
    let many = (0..1001)
        .map(|index| format!(r#""k{index}":"v""#))
        .collect::<Vec<_>>()
        .join(",");
    assert!(!compact(&format!(r#"{{"meta":{{{many}}}}}"#)));
    let enough = (0..1000)
        .map(|index| format!(r#""k{index}":"v""#))
        .collect::<Vec<_>>()
        .join(",");
    assert!(compact(&format!(r#"{{"meta":{{{enough}}}}}"#)));
}

#[test]
fn compact_depth_is_held_as_the_reference_reader_holds_it() {
    for text in [
        &br#"{"kwds":{"entries":[{"id":1,"meta":{"a":{"value":"x"}}}]}}"#[..],
        br#"{"peos":{"entries":[{"tid":"P","vals":{"entries":[{"attr":"A","value":"x"}]}}]}}"#,
    ] {
        let mut answers = Vec::new();
        for max_depth in 0..8 {
            let limits = Limits { max_depth };
            let fast = read_compact::<PimType>(text, &tables::PIM_TYPE, &limits).is_some();
            let reference = Codec::new("urn:core-interface:v1", limits)
                .decode_reference::<PimType>(Compact, text, &tables::PIM_TYPE)
                .is_ok();
            assert_eq!(fast, reference, "at most {max_depth} levels");
            answers.push(fast);
        }
        assert!(answers.contains(&false) && answers.contains(&true));
    }
}

/// Every combination of values of the properties the rules look at (absent, empty, one item,
/// blank, each allowed value...), the other required properties given: the fast path takes what
/// the reference reader accepts, and no more. Answers how many it took and how many it left.
fn exhaust<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    schema: &'static Schema,
) -> (usize, usize) {
    // A schema that is no object has no message here: the caller's count finds none taken.
    let Kind::Object(fields) = schema.kind else {
        return (0, 0);
    };
    let mut messages = vec![serde_json::Map::new()];
    for field in fields {
        let looked_at = schema.rules.iter().any(|rule| {
            rule.alternatives
                .iter()
                .flat_map(|conditions| conditions.iter())
                .any(|condition| condition.property == field.name)
        });
        let mut options: Vec<Option<Value>> = Vec::new();
        if looked_at {
            if !field.required {
                options.push(None);
            }
            options.extend(sample_values(field).into_iter().map(Some));
        } else {
            options.push(field.required.then(|| minimal_value(field)));
        }
        messages = messages
            .into_iter()
            .flat_map(|message| {
                options.iter().map(move |option| {
                    let mut message = message.clone();
                    if let Some(value) = option {
                        message.insert(field.name.to_string(), value.clone());
                    }
                    message
                })
            })
            .collect();
    }
    let taken_count = messages
        .iter()
        .filter(|message| taken::<T>(&Value::Object((*message).clone()).to_string(), schema))
        .count();
    (taken_count, messages.len() - taken_count)
}

/// Values of a property a rule looks at.
fn sample_values(field: &Field) -> Vec<Value> {
    let one = |field: &Field| -> Vec<Value> {
        match field.ty {
            Type::Scalar(Scalar::String) if !field.allowed.is_empty() => {
                field.allowed.iter().map(|value| json!(value)).collect()
            }
            Type::Scalar(Scalar::String) => vec![json!("x"), json!(" "), json!("")],
            Type::Scalar(Scalar::Boolean) => vec![json!(true), json!(false)],
            _ => vec![minimal_value(field)],
        }
    };
    if field.repeated {
        let item = one(field).remove(0);
        vec![
            json!([]),
            json!([item.clone()]),
            json!([item.clone(), item]),
        ]
    } else {
        one(field)
    }
}

/// The least value a property takes: its first allowed value, or a scalar, or an object of its
/// required properties.
fn minimal_value(field: &Field) -> Value {
    let single = match field.ty {
        Type::Scalar(_) if !field.allowed.is_empty() => json!(field.allowed[0]),
        Type::Scalar(Scalar::String) => json!("x"),
        Type::Scalar(Scalar::Integer | Scalar::Number) => json!(1),
        Type::Scalar(Scalar::Boolean) => json!(true),
        Type::Object(schema) => match schema.resolve().kind {
            Kind::Object(fields) => Value::Object(
                fields
                    .iter()
                    .filter(|field| field.required)
                    .map(|field| (field.name.to_string(), minimal_value(field)))
                    .collect(),
            ),
            _ => json!({}),
        },
    };
    if field.repeated {
        json!([single])
    } else {
        single
    }
}

#[test]
fn every_object_with_rules_is_read_as_the_reference_reader_reads_it() {
    let counts = [
        (
            "LocaleRequest",
            exhaust::<LocaleRequest>(&tables::LOCALE_REQUEST),
        ),
        ("Message", exhaust::<Message>(&tables::MESSAGE)),
        (
            "ChannelQueryDto",
            exhaust::<ChannelQueryDto>(&tables::CHANNEL_QUERY_DTO),
        ),
        (
            "ChannelRequestDto",
            exhaust::<ChannelRequestDto>(&tables::CHANNEL_REQUEST_DTO),
        ),
        (
            "BriefingRequest",
            exhaust::<BriefingRequest>(&tables::BRIEFING_REQUEST),
        ),
        (
            "AttributesRetrieveRequest",
            exhaust::<AttributesRetrieveRequest>(&tables::ATTRIBUTES_RETRIEVE_REQUEST),
        ),
        (
            "AttributesQueryRequest",
            exhaust::<AttributesQueryRequest>(&tables::ATTRIBUTES_QUERY_REQUEST),
        ),
        ("PeoRequest", exhaust::<PeoRequest>(&tables::PEO_REQUEST)),
    ];
    for (name, (taken, left)) in counts {
        assert!(taken > 0 && left > 0, "{name}: {taken} taken, {left} left");
    }
}
