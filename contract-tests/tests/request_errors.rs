//! Every JSON request example of the document, broken in many ways (one break, two breaks at
//! once, properties in reverse order, a key given twice, the text cut short), reports the same
//! error through the server's error walk (`json::first_error`, no tree) as through the reference
//! reader (the tree, then `tree::check`).

use contract_tests::{document, examples, table, with_type};
use core_api_support::{Representation, Schema};
use core_server::repr::{Codec, Limits, compact, json, tree};
use serde_json::{Value, json};

/// One step from a value to one of its children.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Item(usize),
}

/// One way to break a message at one of its values.
#[derive(Clone, Debug)]
enum Break {
    /// The value replaced by another.
    Replace(Value),
    /// An object given an unknown property, first or last.
    Unknown { first: bool, name: &'static str },
    /// A property left out (the value is an object's).
    Remove,
    /// An object's properties in reverse order.
    Reverse,
    /// An object's first key given again, after its others.
    Repeat,
    /// An array's first item moved to its end.
    Rotate,
}

/// The paths of every value of `value`, the root's (empty) first.
fn paths(value: &Value) -> Vec<Vec<Step>> {
    let mut found = vec![Vec::new()];
    let mut index = 0;
    while index < found.len() {
        let path = found[index].clone();
        match at(value, &path) {
            Some(Value::Object(object)) => found.extend(object.keys().map(|key| {
                let mut child = path.clone();
                child.push(Step::Key(key.clone()));
                child
            })),
            Some(Value::Array(items)) => found.extend((0..items.len()).map(|item| {
                let mut child = path.clone();
                child.push(Step::Item(item));
                child
            })),
            _ => {}
        }
        index += 1;
    }
    found
}

fn at<'v>(value: &'v Value, path: &[Step]) -> Option<&'v Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get(key),
        Step::Item(item) => value.get(item),
    })
}

fn at_mut<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key),
        Step::Item(item) => value.get_mut(item),
    })
}

/// The breaks tried at every value.
fn breaks() -> Vec<Break> {
    let replacements = [
        json!(null),
        json!(true),
        json!(1),
        json!(-1),
        json!(1.5),
        json!(18_446_744_073_709_551_615u64),
        json!("x"),
        json!("\u{1}"),
        json!([]),
        json!([1]),
        json!({}),
        json!({"zz": 1}),
    ];
    let mut breaks: Vec<Break> = replacements.into_iter().map(Break::Replace).collect();
    breaks.extend([
        Break::Unknown {
            first: true,
            name: "zz",
        },
        Break::Unknown {
            first: false,
            name: "yy",
        },
    ]);
    // Names the compact forms give meaning: the items under their own names, an entry naming
    // its key property, the names of the forms.
    breaks.extend(
        ["key", "itm", "val", "kwd", "locale", "entries", "value"]
            .map(|name| Break::Unknown { first: false, name }),
    );
    breaks.extend([Break::Remove, Break::Reverse, Break::Repeat, Break::Rotate]);
    breaks
}

/// Applies `broken` at `path`; the repeated keys to write are added to `repeats`. Returns
/// whether it applied.
fn apply(value: &mut Value, path: &[Step], broken: &Break, repeats: &mut Vec<Vec<Step>>) -> bool {
    if let (Break::Remove, Some((Step::Key(key), parent))) = (broken, path.split_last()) {
        return match at_mut(value, parent) {
            Some(Value::Object(object)) => object.shift_remove(key).is_some(),
            _ => false,
        };
    }
    let Some(target) = at_mut(value, path) else {
        return false;
    };
    match (broken, target) {
        (Break::Replace(replacement), target) => *target = replacement.clone(),
        (Break::Unknown { first, name }, Value::Object(object)) => {
            if *first {
                let rest = std::mem::take(object);
                object.insert(name.to_string(), json!(1));
                object.extend(rest);
            } else {
                object.insert(name.to_string(), json!(1));
            }
        }
        (Break::Reverse, Value::Object(object)) => {
            let entries: Vec<(String, Value)> = std::mem::take(object).into_iter().rev().collect();
            object.extend(entries);
        }
        (Break::Repeat, Value::Object(object)) if !object.is_empty() => repeats.push(path.to_vec()),
        (Break::Rotate, Value::Array(items)) if items.len() > 1 => items.rotate_left(1),
        _ => return false,
    }
    true
}

/// Writes `value` as JSON, the objects at `repeats` giving their first key again at their end.
fn write(value: &Value, path: &mut Vec<Step>, repeats: &[Vec<Step>], out: &mut String) {
    match value {
        Value::Object(object) => {
            out.push('{');
            let mut entries: Vec<(&String, &Value)> = object.iter().collect();
            if repeats.iter().any(|repeat| same_path(repeat, path))
                && let Some(first) = entries.first().copied()
            {
                entries.push(first);
            }
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                path.push(Step::Key(key.clone()));
                write(item, path, repeats, out);
                path.pop();
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                path.push(Step::Item(index));
                write(item, path, repeats, out);
                path.pop();
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn same_path(one: &[Step], other: &[Step]) -> bool {
    one.len() == other.len()
        && one.iter().zip(other).all(|pair| match pair {
            (Step::Key(a), Step::Key(b)) => a == b,
            (Step::Item(a), Step::Item(b)) => a == b,
            _ => false,
        })
}

/// The error the readers give before the typed conversion: the server's (for compact JSON the
/// rewrite to default-JSON text, then the error walk), and the reference's (the tree, its rewrite
/// for compact JSON, then `tree::check`).
fn errors_before_conversion(
    representation: Representation,
    text: &str,
    schema: &'static Schema,
) -> (Result<Option<String>, String>, Option<String>) {
    let limits = Limits::default();
    let bytes = text.as_bytes();
    let walked = match representation {
        Representation::Compact => json::rewrite_compact(bytes, schema, &limits),
        _ => Ok(text.to_string()),
    }
    .map(|rewritten| {
        json::first_error(rewritten.as_bytes(), schema, &limits).map(|error| error.to_string())
    })
    .map_err(|error| error.to_string());
    let reference = json::parse(bytes, &limits)
        .and_then(|value| match representation {
            Representation::Compact => compact::from_compact(value, schema),
            _ => Ok(value),
        })
        .and_then(|value| tree::check(&value, schema, limits.max_depth))
        .err()
        .map(|error| error.to_string());
    (walked, reference)
}

/// The server's error walk and the reference agree on `text`, and so do the whole engine and the
/// reference reader, without the engine leaving it to the tree; returns whether it is refused.
fn agree(representation: Representation, text: &str, name: &str, label: &str) -> bool {
    let limits = Limits::default();
    let schema = table(name);
    let (walked, reference) = errors_before_conversion(representation, text, schema);
    let walked_error = walked.clone().unwrap_or_else(Some);
    assert_eq!(walked_error, reference, "{label}: {text}");
    let codec = Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, limits.clone());
    let bytes = text.as_bytes();
    let engine: Result<Option<String>, String> = with_type!(name, |T| Ok({
        // The engine's readers answer every body themselves: none is left to the tree.
        let fast = match representation {
            Representation::Compact => json::stream::read_compact::<T>(bytes, schema, &limits),
            _ => json::stream::read::<T>(bytes, schema, &limits),
        };
        let rewritten = match representation {
            Representation::Compact => json::rewrite_compact(bytes, schema, &limits).ok(),
            _ => Some(text.to_string()),
        };
        let declined = fast.is_none()
            && rewritten.is_some_and(|rewritten| {
                // A compact body's rewrite goes straight to the walk and the second reading.
                let bytes = rewritten.as_bytes();
                matches!(walked, Ok(None))
                    && matches!(
                        json::stream::read_traced::<T>(bytes, schema, &limits),
                        Err(None)
                    )
            });
        assert!(!declined, "{label}: only the tree reads {text}");
        match (
            codec.decode_typed::<T>(representation, bytes, schema),
            codec.decode_reference::<T>(representation, bytes, schema),
        ) {
            (Ok(engine), Ok(reference)) => {
                assert_eq!(engine, reference, "{label}: {text}");
                None
            }
            (engine, reference) => {
                let engine = engine.err().map(|error| error.to_string());
                let reference = reference.err().map(|error| error.to_string());
                assert_eq!(engine, reference, "{label}: {text}");
                engine
            }
        }
    }));
    engine
        .unwrap_or_else(|reason| panic!("{label}: {reason}"))
        .is_some()
}

/// The JSON and compact request examples of the document, and each JSON one written in compact
/// JSON too (which reaches properties no compact example has): representation, label, schema,
/// value.
fn cases(document: &Value) -> Vec<(Representation, String, String, Value)> {
    let codec = Codec::new(core_api::document::XML_NAMESPACE_DEFAULT, Limits::default());
    let mut cases = Vec::new();
    for example in examples(document) {
        let (true, Some(schema)) = (example.place.ends_with(" request"), &example.schema) else {
            continue;
        };
        let representation = example.representation();
        if !matches!(
            representation,
            Representation::Json | Representation::Compact
        ) {
            continue;
        }
        if representation == Representation::Json
            && let Ok(bytes) = codec.encode(
                Representation::Compact,
                example.value.clone(),
                table(schema),
            )
            && let Ok(compact) = serde_json::from_slice::<Value>(&bytes)
        {
            let label = format!("{} (written compact)", example.label());
            cases.push((Representation::Compact, label, schema.clone(), compact));
        }
        cases.push((
            representation,
            example.label(),
            schema.clone(),
            example.value.clone(),
        ));
    }
    cases
}

/// A small deterministic generator, so that a failure is found again on every run.
struct Dice(u64);

impl Dice {
    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }
}

/// Breaks `example` with `chosen` (a path and a break each), reversing every object too when
/// `reverse`, and checks the readers agree.
fn try_breaks(
    representation: Representation,
    example: &Value,
    chosen: &[(Vec<Step>, Break)],
    reverse: bool,
    schema: &str,
    label: &str,
) -> Option<bool> {
    let mut value = example.clone();
    let mut repeats = Vec::new();
    for (path, broken) in chosen {
        if !apply(&mut value, path, broken, &mut repeats) {
            return None;
        }
    }
    if reverse {
        for path in paths(&value) {
            apply(&mut value, &path, &Break::Reverse, &mut repeats);
        }
    }
    let mut text = String::new();
    write(&value, &mut Vec::new(), &repeats, &mut text);
    Some(agree(representation, &text, schema, label))
}

#[test]
fn every_broken_request_example_reads_to_the_reference_error() {
    let document = document();
    let breaks = breaks();
    let mut dice = Dice(0x9e37_79b9_7f4a_7c15);
    let (mut tried, mut refused, mut examples_seen) = (0usize, 0usize, 0usize);
    for (representation, label, schema, value) in cases(&document) {
        let schema = schema.as_str();
        examples_seen += 1;
        let text = value.to_string();
        // The text cut short, at a few places.
        for cut in [
            1,
            text.len() / 3,
            text.len() / 2,
            text.len().saturating_sub(1),
        ] {
            if let Some(prefix) = text.get(..cut) {
                tried += 1;
                refused += usize::from(agree(representation, prefix, schema, &label));
            }
        }
        let paths = paths(&value);
        // Every break at every value, alone.
        for path in &paths {
            for broken in &breaks {
                if let Some(was) = try_breaks(
                    representation,
                    &value,
                    &[(path.clone(), broken.clone())],
                    false,
                    schema,
                    &label,
                ) {
                    tried += 1;
                    refused += usize::from(was);
                }
            }
        }
        // Two and three breaks at once, in both orders of the properties.
        for round in 0..600 {
            let count = 2 + dice.below(2);
            let chosen: Vec<(Vec<Step>, Break)> = (0..count)
                .map(|_| {
                    (
                        paths[dice.below(paths.len())].clone(),
                        breaks[dice.below(breaks.len())].clone(),
                    )
                })
                .collect();
            if let Some(was) = try_breaks(
                representation,
                &value,
                &chosen,
                round % 2 == 1,
                schema,
                &label,
            ) {
                tried += 1;
                refused += usize::from(was);
            }
        }
    }
    eprintln!("{tried} broken bodies of {examples_seen} examples, {refused} refused");
    assert!(
        examples_seen > 60,
        "only {examples_seen} JSON and compact request examples"
    );
    assert!(
        refused > tried / 2,
        "only {refused} of {tried} broken bodies were refused"
    );
}

/// Bytes changed at random in every JSON and compact request example (a byte replaced, removed,
/// or one of JSON's own characters put in), as the fuzz targets change them: the engine and the
/// reference reader give the same value or the same error.
#[test]
fn request_examples_changed_byte_by_byte_read_as_the_reference_reads_them() {
    let document = document();
    let mut dice = Dice(0x2545_f491_4f6c_dd1d);
    let specials = b"{}[]\\\",:01-.e \x01tfn";
    let mut tried = 0;
    for (representation, label, schema, value) in cases(&document) {
        let text = value.to_string().into_bytes();
        for _ in 0..300 {
            let mut bytes = text.clone();
            for _ in 0..1 + dice.below(3) {
                let at = dice.below(bytes.len().max(1));
                match dice.below(3) {
                    0 if !bytes.is_empty() => {
                        bytes.remove(at);
                    }
                    1 => bytes.insert(at, specials[dice.below(specials.len())]),
                    _ if at < bytes.len() => bytes[at] = specials[dice.below(specials.len())],
                    _ => {}
                }
            }
            let Ok(changed) = std::str::from_utf8(&bytes) else {
                continue;
            };
            tried += 1;
            agree(representation, changed, &schema, &label);
        }
    }
    assert!(tried > 10_000, "only {tried} changed bodies");
}
