//! The document itself: it parses, states every operation of the specification exactly once,
//! completely, and every example in it validates against its schema in its representation.

use std::collections::{BTreeMap, BTreeSet};

use contract_tests::{
    Example, document, document_text, examples, published, table, validator, with_type,
};
use core_api_support::Representation;
use core_server::repr::{Codec, Limits, json, tree, xml};
use serde_json::{Value, json};

/// The 26 method + path pairs of the specification, and the link-persist operation at the path
/// decided in D-33.
const SPECIFIED: &[(&str, &str)] = &[
    ("POST", "/api/core/v1/common/transform"),
    ("POST", "/api/core/v1/common/locales/retrieve"),
    ("POST", "/api/core/v1/common/keywords/retrieve"),
    ("POST", "/api/core/v1/common/keywords/persist"),
    ("POST", "/api/core/v1/common/glossaryEntries/persist"),
    ("POST", "/api/core/v1/common/glossaryEntries/perform"),
    ("POST", "/api/core/v1/common/components/retrieve"),
    ("POST", "/api/core/v1/common/messages/persist"),
    ("POST", "/api/core/v1/cm/channels/query"),
    ("POST", "/api/core/v1/cm/channels/retrieve"),
    ("POST", "/api/core/v1/cm/channels/persist"),
    ("POST", "/api/core/v1/cm/channels/briefings/retrieve"),
    ("GET", "/api/core/v1/pim/classes"),
    ("POST", "/api/core/v1/pim/classes/retrieve"),
    ("POST", "/api/core/v1/pim/classes/persist"),
    ("POST", "/api/core/v1/pim/classes/perform"),
    ("POST", "/api/core/v1/pim/attributes/retrieve"),
    ("POST", "/api/core/v1/pim/attributes/query"),
    ("POST", "/api/core/v1/pim/attributes/persist"),
    ("POST", "/api/core/v1/pim/attributes/perform"),
    ("POST", "/api/core/v1/pim/attribute-definitions/query"),
    ("POST", "/api/core/v1/pim/attribute-definitions/perform"),
    ("POST", "/api/core/v1/peo/peos/retrieve"),
    ("POST", "/api/core/v1/peo/peos/query"),
    ("POST", "/api/core/v1/peo/peos/links/persist"),
    ("POST", "/api/core/v1/dam/assets/versions/bin"),
    // Link persist: the path is not shown in the specification (D-33).
    ("POST", "/api/core/v1/common/links/persist"),
];

/// Operation ids the specification gives.
const SPECIFIED_IDS: &[(&str, &str, &str)] = &[
    ("GET", "/api/core/v1/pim/classes", "getClasses"),
    (
        "POST",
        "/api/core/v1/cm/channels/briefings/retrieve",
        "retrieveChannelBriefings",
    ),
];

const MODULES: &[&str] = &["Common", "CM", "PIM", "PEO", "DAM"];

fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            out.push((method.to_uppercase(), path.clone(), operation.clone()));
        }
    }
    out
}

#[test]
fn the_document_parses_with_openapiv3() {
    let parsed: openapiv3::OpenAPI =
        serde_yaml::from_str(&document_text()).expect("openapiv3 parses the document");
    assert_eq!(parsed.openapi, "3.0.3");
    assert_eq!(parsed.operations().count(), SPECIFIED.len());
}

#[test]
fn every_operation_of_the_specification_is_stated_exactly_once() {
    let document = document();
    let stated: Vec<(String, String)> = operations(&document)
        .into_iter()
        .map(|(method, path, _)| (method, path))
        .collect();
    let unique: BTreeSet<_> = stated.iter().cloned().collect();
    assert_eq!(unique.len(), stated.len(), "an operation is stated twice");
    let expected: BTreeSet<(String, String)> = SPECIFIED
        .iter()
        .map(|(method, path)| (method.to_string(), path.to_string()))
        .collect();
    let missing: Vec<_> = expected.difference(&unique).collect();
    let extra: Vec<_> = unique.difference(&expected).collect();
    assert!(missing.is_empty(), "the document lacks {missing:?}");
    assert!(
        extra.is_empty(),
        "the document has operations the specification does not: {extra:?}"
    );
    // The generated metadata serves exactly the same operations.
    let generated: BTreeSet<(String, String)> = core_api::operations::ALL
        .iter()
        .map(|operation| {
            (
                format!("{:?}", operation.method).to_uppercase(),
                operation.path.to_string(),
            )
        })
        .collect();
    assert_eq!(generated, expected, "generated/ is out of date");
}

#[test]
fn operation_ids_follow_the_specification_and_are_unique() {
    let document = document();
    let mut ids = BTreeSet::new();
    for (method, path, operation) in operations(&document) {
        let id = operation["operationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path} has no operationId"));
        assert!(ids.insert(id.to_string()), "operationId {id} is used twice");
        if let Some((_, _, expected)) = SPECIFIED_IDS
            .iter()
            .find(|(m, p, _)| *m == method && *p == path)
        {
            assert_eq!(id, *expected, "{method} {path}");
        }
    }
}

#[test]
fn every_operation_is_complete() {
    let document = document();
    let security = &document["security"];
    assert_eq!(
        security,
        &json!([{"bearerAuth": []}]),
        "bearer security applies to every operation"
    );
    assert_eq!(
        document.pointer("/components/securitySchemes/bearerAuth/scheme"),
        Some(&json!("bearer"))
    );
    for (method, path, operation) in operations(&document) {
        let label = format!("{method} {path}");
        assert!(
            operation.get("security").is_none(),
            "{label} overrides the bearer security"
        );
        for key in ["summary", "description"] {
            assert!(
                operation[key]
                    .as_str()
                    .is_some_and(|text| !text.trim().is_empty()),
                "{label} has no {key}"
            );
        }
        let tags = operation["tags"].as_array().expect("tags");
        assert!(
            tags.len() == 1 && MODULES.contains(&tags[0].as_str().unwrap_or_default()),
            "{label}: module tag"
        );
        let responses = operation["responses"].as_object().expect("responses");
        for status in ["200", "401", "403", "500"] {
            assert!(
                responses.contains_key(status),
                "{label} does not list {status}"
            );
        }
        // At least one request example per request media type (or an example per parameter).
        if let Some(content) = operation
            .pointer("/requestBody/content")
            .and_then(Value::as_object)
        {
            for (media, entry) in content {
                assert!(
                    has_examples(entry),
                    "{label}: no request example for {media}"
                );
            }
        } else if let Some(parameters) = operation["parameters"].as_array() {
            for parameter in parameters {
                let parameter = resolve(&document, parameter);
                assert!(
                    parameter.get("example").is_some()
                        || parameter["examples"]
                            .as_object()
                            .is_some_and(|all| !all.is_empty()),
                    "{label}: parameter {} has no example",
                    parameter["name"]
                );
            }
        }
        // At least one success example per response media type.
        for (media, entry) in operation
            .pointer("/responses/200/content")
            .and_then(Value::as_object)
            .expect("200 content")
        {
            assert!(has_examples(entry), "{label}: no 200 example for {media}");
        }
    }
}

fn has_examples(entry: &Value) -> bool {
    entry
        .get("examples")
        .and_then(Value::as_object)
        .is_some_and(|examples| !examples.is_empty())
}

fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => document
            .pointer(reference.trim_start_matches('#'))
            .expect("a reference resolves"),
        None => value,
    }
}

#[test]
fn the_three_media_types_are_named_exactly() {
    let document = document();
    let allowed = [
        "application/xml; charset=UTF-8",
        "application/json",
        "application/json+compact",
        "application/octet-stream",
    ];
    for example in examples(&document) {
        assert!(
            allowed.contains(&example.media.as_str()),
            "{}: media type {}",
            example.label(),
            example.media
        );
    }
}

/// Every example validates against its schema with an independent JSON Schema validator (on the
/// tree decoded from its representation), decodes into the generated type, and is exactly what
/// the server writes for that tree.
#[test]
fn every_example_validates_against_its_schema() {
    let document = document();
    let codec = Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, Limits::default());
    let examples = examples(&document);
    assert!(examples.len() > 100, "only {} examples", examples.len());
    let mut failures = Vec::new();
    let mut validated = 0;
    for example in &examples {
        let Some(schema_name) = &example.schema else {
            assert_eq!(
                example.representation(),
                Representation::Binary,
                "{}: no schema",
                example.label()
            );
            assert!(
                example.value.is_string(),
                "{}: a binary example is shown as text",
                example.label()
            );
            continue;
        };
        match validate(&document, &codec, example, schema_name) {
            Ok(()) => validated += 1,
            Err(reason) => failures.push(format!("{}: {reason}", example.label())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples fail:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
    assert!(validated > 100);
}

fn validate(
    document: &Value,
    codec: &Codec,
    example: &Example,
    schema_name: &str,
) -> Result<(), String> {
    let schema = table(schema_name);
    let tree = codec
        .decode(example.representation(), &example.bytes(), schema)
        .map_err(|error| format!("does not decode: {error}"))?;
    let validator = validator(document, schema_name)?;
    let errors: Vec<String> = validator
        .iter_errors(&tree)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    if !errors.is_empty() {
        return Err(format!("does not validate: {}", errors.join("; ")));
    }
    typed(codec, schema_name, tree.clone())?;
    let written = codec
        .encode(example.representation(), tree, schema)
        .map_err(|error| format!("does not encode: {error}"))?;
    match example.representation() {
        Representation::Xml => {
            let written = String::from_utf8(written).map_err(|error| error.to_string())?;
            let shown = example.value.as_str().unwrap_or_default();
            if written.trim_end() != shown.trim_end() {
                return Err(format!("the server writes it differently:\n{written}"));
            }
        }
        _ => {
            let written: Value =
                serde_json::from_slice(&written).map_err(|error| error.to_string())?;
            if written != example.value {
                return Err(format!("the server writes it differently:\n{written}"));
            }
        }
    }
    Ok(())
}

/// Deserializes a tree into the generated type of a schema, and checks that the typed value
/// written in each representation (one pass, as answers are) is byte for byte what the normalized
/// tree writes.
fn typed(codec: &Codec, schema: &str, tree: Value) -> Result<(), String> {
    let table = table(schema);
    let mut expected = Vec::new();
    for representation in [
        Representation::Json,
        Representation::Xml,
        Representation::Compact,
    ] {
        if representation == Representation::Xml && table.xml_root().is_none() {
            continue;
        }
        let bytes = codec
            .encode(representation, tree.clone(), table)
            .map_err(|error| format!("the tree does not encode in {representation:?}: {error}"))?;
        expected.push((representation, bytes));
    }
    let same = |value: &dyn erased::Encode| -> Result<(), String> {
        for (representation, normalized) in &expected {
            let direct = value
                .encode(codec, *representation, table)
                .map_err(|error| format!("{representation:?}: {error}"))?;
            if &direct != normalized {
                return Err(format!(
                    "the typed value writes other {representation:?} than its normalized tree:\n{}\n{}",
                    String::from_utf8_lossy(&direct),
                    String::from_utf8_lossy(normalized)
                ));
            }
        }
        Ok(())
    };
    with_type!(schema, |T| {
        let value = serde_json::from_value::<T>(tree).map_err(|error| error.to_string())?;
        same(&value)
    })
}

/// Every request example, in each representation, is read by the fast path straight into its
/// typed value: neither the tree nor the XML node arena reads any of the document's valid
/// requests, those of objects with rules and free keys included.
#[test]
fn every_request_example_takes_the_fast_path() {
    let document = document();
    let mut declined = Vec::new();
    let mut taken = 0;
    for example in examples(&document) {
        let (true, Some(schema)) = (example.place.ends_with(" request"), &example.schema) else {
            continue;
        };
        let representation = example.representation();
        if representation == Representation::Binary {
            continue;
        }
        match taken_by_fast_path(schema, representation, &example.bytes()) {
            Ok(true) => taken += 1,
            Ok(false) => declined.push(example.label()),
            Err(reason) => declined.push(format!("{}: {reason}", example.label())),
        }
    }
    assert!(declined.is_empty(), "declined:\n{}", declined.join("\n"));
    assert!(taken > 20, "only {taken} request examples");
}

/// Whether the fast path of `representation` alone reads `bytes` as a message of `schema`.
fn taken_by_fast_path(
    schema: &str,
    representation: Representation,
    bytes: &[u8],
) -> Result<bool, String> {
    let limits = Limits::default();
    let table = table(schema);
    let namespace = core_api::document::XML_NAMESPACE_DEFAULT;
    with_type!(schema, |T| Ok(match representation {
        Representation::Json => json::stream::read::<T>(bytes, table, &limits).is_some(),
        Representation::Compact => json::stream::read_compact::<T>(bytes, table, &limits).is_some(),
        _ => xml::read_fast::<T>(bytes, table, namespace, &limits).is_some(),
    }))
}

/// Examples of one name, at one place, in several media types show the same tree.
#[test]
fn examples_of_one_name_show_one_tree_in_every_representation() {
    let document = document();
    let codec = Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, Limits::default());
    let mut groups: BTreeMap<(String, String), Vec<(String, Value)>> = BTreeMap::new();
    for example in examples(&document) {
        let Some(schema_name) = &example.schema else {
            continue;
        };
        let schema = table(schema_name);
        let mut tree = codec
            .decode(example.representation(), &example.bytes(), schema)
            .unwrap_or_else(|error| panic!("{}: {error}", example.label()));
        tree::normalize(&mut tree, schema);
        groups
            .entry((example.place.clone(), example.name.clone()))
            .or_default()
            .push((example.media.clone(), tree));
    }
    let mut compared = 0;
    for ((place, name), trees) in groups {
        let (first_media, first) = &trees[0];
        for (media, other) in &trees[1..] {
            assert_eq!(
                other, first,
                "{place} {name}: {media} differs from {first_media}"
            );
            compared += 1;
        }
    }
    assert!(compared > 60, "only {compared} comparisons");
}

/// The operation table, for reviewing contract changes in one place.
#[test]
fn operation_table() {
    let table: Vec<Value> = core_api::operations::ALL
        .iter()
        .map(|operation| {
            json!({
                "operationId": operation.id,
                "method": format!("{:?}", operation.method).to_uppercase(),
                "path": operation.path,
                "aliases": operation.aliases,
                "module": operation.module,
                "request": operation.request.as_ref().map(|body| json!({
                    "required": body.required,
                    "schema": body.schema.name,
                    "media": body.media.iter().map(|media| media.name).collect::<Vec<_>>(),
                })),
                "query": operation.query.map(|schema| schema.name),
                "response": {
                    "schema": operation.response.schema.map(|schema| schema.name),
                    "media": operation.response.media.iter().map(|media| media.name).collect::<Vec<_>>(),
                },
                "statuses": operation.responses.iter().map(|answer| answer.status).collect::<Vec<_>>(),
                "batch": operation.batch.as_ref().map(|batch| json!({
                    "path": batch.path,
                    "items": batch.items.name,
                })),
            })
        })
        .collect();
    insta::with_settings!({prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("operations", table);
    });
}

/// A typed value of any generated type, encoded through the codec.
mod erased {
    use core_api_support::{Representation, Schema};
    use core_server::repr::{Codec, EncodeError};

    /// What `typed` asks of a value of any generated type.
    pub trait Encode {
        /// The value written in `representation` by `Codec::encode_typed`.
        fn encode(
            &self,
            codec: &Codec,
            representation: Representation,
            schema: &'static Schema,
        ) -> Result<Vec<u8>, EncodeError>;
    }

    impl<T: serde::Serialize> Encode for T {
        fn encode(
            &self,
            codec: &Codec,
            representation: Representation,
            schema: &'static Schema,
        ) -> Result<Vec<u8>, EncodeError> {
            codec.encode_typed(representation, self, schema)
        }
    }
}

/// The published document states the compact-JSON shape: every compact example validates against
/// the schema its media type names there (a derived `<Name>Compact` wherever the shape differs).
#[test]
fn compact_examples_validate_against_the_published_compact_schemas() {
    let published = published();
    let mut checked = 0;
    let mut derived = 0;
    let mut failures = Vec::new();
    for example in examples(&published) {
        let Some(schema_name) = &example.schema else {
            continue;
        };
        if example.representation() != Representation::Compact {
            continue;
        }
        derived += usize::from(schema_name.ends_with("Compact"));
        let check = validator(&published, schema_name).and_then(|validator| {
            let errors: Vec<String> = validator
                .iter_errors(&example.value)
                .map(|error| format!("{error} at {}", error.instance_path()))
                .collect();
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors.join("; "))
            }
        });
        match check {
            Ok(()) => checked += 1,
            Err(reason) => failures.push(format!("{}: {reason}", example.label())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 40, "only {checked} compact examples");
    assert!(
        derived > 20,
        "only {derived} compact examples name a derived schema"
    );
}
