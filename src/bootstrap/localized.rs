//! Texts by locale tid (`names` of keywords, classifications, nodes and domain values), held as
//! one short sorted list rather than a `BTreeMap`: a map's first node takes about 540 bytes for
//! the two or three entries a record has, which made it most of a million-keyword document in
//! memory. It reads and writes the same JSON object a map does, and its JSON Schema is a map's.

use std::{collections::BTreeMap, fmt};

use schemars::{JsonSchema, r#gen::SchemaGenerator, schema::Schema};
use serde::{
    Deserialize, Deserializer, Serialize, Serializer,
    de::{MapAccess, Visitor},
    ser::SerializeMap,
};

/// Texts by locale tid, in bytewise order of the tid, each tid once (a tid given twice keeps its
/// last text, as a map read from JSON does).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Localized {
    /// `(locale tid, text)`, sorted by tid, no tid twice.
    entries: Vec<(String, String)>,
}

impl Localized {
    /// How many texts it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none (an export leaves it out then).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `(locale tid, text)` in tid order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.into_iter()
    }

    /// The texts in tid order.
    pub fn values(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(_, text)| text)
    }

    /// The texts of `entries` in any order, sorted, a tid given twice keeping its last text.
    fn sorted(mut entries: Vec<(String, String)>) -> Localized {
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            // Stable: the texts of one tid stay in the order given, and the last one is kept.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(&mut later.1, &mut kept.1);
                }
                same
            });
        }
        Localized { entries }
    }
}

impl<'l> IntoIterator for &'l Localized {
    type Item = (&'l String, &'l String);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'l, (String, String)>,
        fn(&'l (String, String)) -> (&'l String, &'l String),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(loc, text)| (loc, text))
    }
}

impl FromIterator<(String, String)> for Localized {
    fn from_iter<T: IntoIterator<Item = (String, String)>>(entries: T) -> Localized {
        Localized::sorted(entries.into_iter().collect())
    }
}

impl Serialize for Localized {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (loc, text) in &self.entries {
            map.serialize_entry(loc, text)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Localized {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Localized, D::Error> {
        deserializer.deserialize_map(LocalizedVisitor)
    }
}

/// Reads a JSON object of texts by locale tid.
struct LocalizedVisitor;

impl<'de> Visitor<'de> for LocalizedVisitor {
    type Value = Localized;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Localized, A::Error> {
        // No more room is taken ahead than a hint of a few entries asks: a hint is the
        // document's word, not a measure.
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(16));
        while let Some(entry) = map.next_entry::<String, String>()? {
            entries.push(entry);
        }
        Ok(Localized::sorted(entries))
    }
}

impl JsonSchema for Localized {
    fn is_referenceable() -> bool {
        <BTreeMap<String, String>>::is_referenceable()
    }

    fn schema_name() -> String {
        <BTreeMap<String, String>>::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <BTreeMap<String, String>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of `json` as `(tid, text)` pairs, in the order `iter` gives them.
    fn read(json: &str) -> Vec<(String, String)> {
        let localized: Localized = serde_json::from_str(json).expect("a map of texts");
        localized
            .iter()
            .map(|(loc, text)| (loc.clone(), text.clone()))
            .collect()
    }

    #[test]
    fn reads_as_a_map_reads_sorted_by_tid_with_the_last_text_of_a_tid_given_twice() {
        let json = r#"{"fr_FR": "un", "de_DE": "eins", "fr_FR": "deux", "en_GB": "one", "fr_FR": "trois"}"#;
        let map: BTreeMap<String, String> = serde_json::from_str(json).expect("a map");
        let expected: Vec<(String, String)> = map.into_iter().collect();
        assert_eq!(read(json), expected);
        assert_eq!(expected[2], ("fr_FR".to_string(), "trois".to_string()));
    }

    #[test]
    fn writes_the_object_it_read_and_refuses_what_a_map_refuses() {
        let json = r#"{"":"Default","de_DE":"Name"}"#;
        let localized: Localized = serde_json::from_str(json).expect("a map of texts");
        assert_eq!(serde_json::to_string(&localized).expect("written"), json);
        assert_eq!(read("{}"), Vec::new());
        for refused in [r#"{"de_DE": 1}"#, r#"["de_DE"]"#, "null"] {
            let error = serde_json::from_str::<Localized>(refused).expect_err(refused);
            let map = serde_json::from_str::<BTreeMap<String, String>>(refused).expect_err(refused);
            assert_eq!(error.to_string(), map.to_string(), "{refused}");
        }
    }

    #[test]
    fn collects_in_tid_order() {
        let localized: Localized = [("de_DE", "b"), ("", "a"), ("de_DE", "c")]
            .into_iter()
            .map(|(loc, text)| (loc.to_string(), text.to_string()))
            .collect();
        let values: Vec<&String> = localized.values().collect();
        assert_eq!(values, ["a", "c"]);
        assert_eq!(localized.len(), 2);
    }
}
