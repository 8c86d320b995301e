//! What every decoder target checks: the decoder never panics, and a message it accepts encodes
//! in all three representations and decodes back to the same typed value; and that the fast path
//! and the reference reader give the same answer, on the catalogue message and, in JSON and
//! compact JSON, on requests whose objects have rules or free keys.
//!
//! A library, not a module of each target: its generic readers and writers are then compiled
//! once for all three targets, where each copy costs minutes of an optimized, instrumented build.

use core_api::{
    document::XML_NAMESPACE_DEFAULT,
    tables,
    types::{ChannelQueryDto, LocaleRequest, MessagesPersistRequest, PimType},
};
use core_api_support::{Representation, Schema};
use serde::de::DeserializeOwned;
use core_repr::{Codec, Limits};

/// Checks one input in `representation`; panics (a finding) where the engine is wrong.
pub fn check(representation: Representation, data: &[u8]) {
    let codec = Codec::new(XML_NAMESPACE_DEFAULT, Limits::default());
    if representation != Representation::Xml {
        agree::<LocaleRequest>(&codec, representation, data, &tables::LOCALE_REQUEST);
        agree::<ChannelQueryDto>(&codec, representation, data, &tables::CHANNEL_QUERY_DTO);
        agree::<MessagesPersistRequest>(&codec, representation, data, &tables::MESSAGES_PERSIST_REQUEST);
    }
    // The fast path and the reference reader give the same answer.
    let fast = codec.decode_typed::<PimType>(representation, data, &tables::PIM_TYPE);
    let reference = codec.decode_reference::<PimType>(representation, data, &tables::PIM_TYPE);
    match (&fast, &reference) {
        (Ok(fast), Ok(reference)) => assert_eq!(fast, reference, "the {representation:?} readers disagree"),
        (Err(fast), Err(reference)) => assert_eq!(fast.to_string(), reference.to_string()),
        _ => panic!("the {representation:?} readers disagree: {fast:?} / {reference:?}"),
    }
    let Ok(message) = codec.decode_typed::<PimType>(representation, data, &tables::PIM_TYPE) else {
        return;
    };
    for target in [Representation::Xml, Representation::Json, Representation::Compact] {
        let bytes = codec
            .encode_typed(target, message.clone(), &tables::PIM_TYPE)
            .unwrap_or_else(|error| panic!("an accepted message does not encode in {target:?}: {error}"));
        let back: PimType = codec
            .decode_typed(target, &bytes, &tables::PIM_TYPE)
            .unwrap_or_else(|error| panic!("{target:?} written by the engine does not decode: {error}"));
        assert_eq!(back, message, "{target:?} changes the message");
    }
}

/// The fast path and the reference reader give the same answer on a request of `T`.
fn agree<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    codec: &Codec,
    representation: Representation,
    data: &[u8],
    schema: &'static Schema,
) {
    let fast = codec.decode_typed::<T>(representation, data, schema);
    let reference = codec.decode_reference::<T>(representation, data, schema);
    match (&fast, &reference) {
        (Ok(fast), Ok(reference)) => assert_eq!(fast, reference, "the {representation:?} readers disagree on {}", schema.name),
        (Err(fast), Err(reference)) => assert_eq!(fast.to_string(), reference.to_string()),
        _ => panic!("the {representation:?} readers disagree on {}: {fast:?} / {reference:?}", schema.name),
    }
}

