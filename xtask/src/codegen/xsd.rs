//! The XML Schema (XSD 1.0) of every XML message, from the shapes of the schemas the document's
//! XML roots reach: `generated/core-v1.xsd` (target namespace: the roots' namespace, every element
//! qualified, attributes not) and `generated/core-v1-briefing.xsd` (the roots in no namespace and
//! their unqualified elements; a schema document has one target namespace, so the first imports
//! the second).
//!
//! A schema becomes a complex type of its name; a property that is an attribute, a child element
//! (repeated for an array, in the order of `properties`) or the text becomes the same in the type.
//! What XSD 1.0 cannot say (an excluded integer, a pattern it cannot read) is said in an
//! annotation, and the server checks it.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result, bail, ensure};

use super::shape::{
    DefaultShape, FieldShape, FieldType, NodeKind, ScalarType, Shape, ShapeKind, shape,
};
use crate::document::Document;

/// Where the namespaced schema is written.
pub const XSD_PATH: &str = "generated/core-v1.xsd";
/// Where the schema of the roots in no namespace is written; [`XSD_PATH`] imports it by this
/// file name, which the server serves beside it.
pub const UNQUALIFIED_XSD_PATH: &str = "generated/core-v1-briefing.xsd";

/// One XML root element and the schemas whose messages it roots.
struct RootElement<'s> {
    name: &'s str,
    /// The schema whose type the element declares: the one every other fits.
    envelope: &'s Shape,
    /// The other schemas rooted at the same element.
    others: Vec<&'s str>,
}

/// The shapes by name, and which of them XML reaches.
struct Shapes {
    all: BTreeMap<String, Shape>,
    order: Vec<String>,
}

impl Shapes {
    fn get(&self, name: &str) -> Result<&Shape> {
        self.all
            .get(name)
            .with_context(|| format!("no schema {name}"))
    }

    /// Follows aliases.
    fn resolve(&self, name: &str) -> Result<&Shape> {
        let mut shape = self.get(name)?;
        while let ShapeKind::Alias(target) = &shape.kind {
            shape = self.get(target)?;
        }
        Ok(shape)
    }

    /// Every schema reachable from these, the roots included, in document order.
    fn reached(&self, roots: &[&str]) -> Result<Vec<&Shape>> {
        let mut seen = BTreeSet::new();
        let mut pending: Vec<String> = roots.iter().map(|name| name.to_string()).collect();
        while let Some(name) = pending.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            match &self.get(&name)?.kind {
                ShapeKind::Alias(target) => pending.push(target.clone()),
                ShapeKind::Object(fields) => pending.extend(fields.iter().filter_map(object)),
                ShapeKind::Map(_) => bail!("{name} is a map, which has no XML form"),
                ShapeKind::Scalar(_) => {}
            }
        }
        let mut reached = Vec::new();
        for name in self.order.iter().filter(|name| seen.contains(*name)) {
            reached.push(self.get(name)?);
        }
        Ok(reached)
    }

    /// Whether every message of `small` is one of `large` as far as XML can tell: each of its
    /// attributes, elements and text is one of `large`, repeated only where `large` repeats, of
    /// the same scalar type or of a type that fits in turn.
    fn fits(&self, small: &str, large: &str, assumed: &mut BTreeSet<(String, String)>) -> bool {
        if !assumed.insert((small.to_string(), large.to_string())) {
            return true;
        }
        let (Ok(small), Ok(large)) = (self.resolve(small), self.resolve(large)) else {
            return false;
        };
        let (ShapeKind::Object(small), ShapeKind::Object(large)) = (&small.kind, &large.kind)
        else {
            return false;
        };
        small.iter().all(|field| {
            large.iter().any(|other| {
                other.xml_name == field.xml_name
                    && other.node == field.node
                    && (other.repeated || !field.repeated)
                    && match (&field.ty, &other.ty) {
                        (FieldType::Scalar(a), FieldType::Scalar(b)) => a == b,
                        (FieldType::Object(a), FieldType::Object(b)) => self.fits(a, b, assumed),
                        _ => false,
                    }
            })
        })
    }
}

fn object(field: &FieldShape) -> Option<String> {
    match &field.ty {
        FieldType::Object(name) => Some(name.clone()),
        FieldType::Scalar(_) => None,
    }
}

/// The two schema documents: path and text, each starting with `header` (the XML declaration and
/// the generated comment).
pub fn generate(document: &Document, header: &str) -> Result<Vec<(&'static str, String)>> {
    let mut shapes = Shapes {
        all: BTreeMap::new(),
        order: Vec::new(),
    };
    for (name, schema) in document.schemas()? {
        shapes.all.insert(
            name.clone(),
            shape(document, name, schema).with_context(|| format!("schema {name}"))?,
        );
        shapes.order.push(name.clone());
    }
    let version = document
        .raw
        .pointer("/info/version")
        .and_then(serde_json::Value::as_str)
        .context("info.version")?;
    let mut namespaces: BTreeMap<Option<&str>, Vec<&Shape>> = BTreeMap::new();
    for name in &shapes.order {
        let shape = shapes.get(name)?;
        if let Some(root) = &shape.xml_root {
            namespaces
                .entry(root.namespace.as_deref())
                .or_default()
                .push(shape);
        }
    }
    ensure!(
        namespaces.keys().filter(|key| key.is_some()).count() == 1,
        "the XML roots must share one namespace"
    );
    let mut files = Vec::new();
    let mut claimed = BTreeSet::new();
    for (namespace, roots) in &namespaces {
        let names: Vec<&str> = roots.iter().map(|root| root.name.as_str()).collect();
        let reached = shapes.reached(&names)?;
        for shape in &reached {
            ensure!(
                claimed.insert(shape.name.clone()),
                "{} is reached from roots in two namespaces",
                shape.name
            );
        }
        let elements = root_elements(&shapes, roots)?;
        let path = match namespace {
            Some(_) => XSD_PATH,
            None => UNQUALIFIED_XSD_PATH,
        };
        let text = SchemaDocument {
            namespace: *namespace,
            version,
            header,
            import: namespace.is_some() && namespaces.contains_key(&None),
        }
        .write(&elements, &reached)?;
        files.push((path, text));
    }
    Ok(files)
}

/// Groups the roots by element name, each under the schema every other of its name fits.
fn root_elements<'s>(shapes: &'s Shapes, roots: &[&'s Shape]) -> Result<Vec<RootElement<'s>>> {
    let mut names: Vec<&str> = Vec::new();
    for root in roots {
        let name = root.xml_root.as_ref().map(|root| root.name.as_str());
        if let Some(name) = name.filter(|name| !names.contains(name)) {
            names.push(name);
        }
    }
    let mut elements = Vec::new();
    for name in names {
        let same: Vec<&Shape> = roots
            .iter()
            .copied()
            .filter(|root| root.xml_root.as_ref().is_some_and(|root| root.name == name))
            .collect();
        let envelope = same
            .iter()
            .copied()
            .filter(|candidate| !matches!(candidate.kind, ShapeKind::Alias(_)))
            .find(|candidate| {
                same.iter()
                    .all(|other| shapes.fits(&other.name, &candidate.name, &mut BTreeSet::new()))
            })
            .with_context(|| {
                format!("no schema rooted at <{name}> has room for every other rooted there")
            })?;
        let others = same
            .iter()
            .filter(|other| other.name != envelope.name)
            .map(|other| other.name.as_str())
            .collect();
        elements.push(RootElement {
            name,
            envelope,
            others,
        });
    }
    Ok(elements)
}

/// One schema document being written.
struct SchemaDocument<'a> {
    namespace: Option<&'a str>,
    version: &'a str,
    header: &'a str,
    /// Import the schema of the roots in no namespace.
    import: bool,
}

impl SchemaDocument<'_> {
    fn write(&self, elements: &[RootElement], reached: &[&Shape]) -> Result<String> {
        let mut out = String::new();
        out.push_str(self.header);
        out.push_str("<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"");
        if let Some(namespace) = self.namespace {
            let namespace = escape(namespace);
            out.push_str(&format!(
                "\n  xmlns=\"{namespace}\"\n  targetNamespace=\"{namespace}\"\n  elementFormDefault=\"qualified\""
            ));
        }
        out.push_str(&format!(
            "\n  attributeFormDefault=\"unqualified\"\n  version=\"{}\">\n",
            escape(self.version)
        ));
        documentation(&mut out, 1, &self.about());
        if self.import {
            let location = file_name(UNQUALIFIED_XSD_PATH);
            out.push_str(&format!("  <xs:import schemaLocation=\"{location}\"/>\n"));
        }
        for element in elements {
            out.push_str(&format!(
                "  <xs:element name=\"{}\" type=\"{}\">\n",
                element.name, element.envelope.name
            ));
            let mut about = format!(
                "The root element `{}`, of type {}.",
                element.name, element.envelope.name
            );
            if !element.others.is_empty() {
                about.push_str(&format!(
                    " The messages of the types {} have it as their root too; each of them fits {}, a message of one of them is valid here, and each is declared below for bindings and for stricter checks.",
                    element.others.join(", "),
                    element.envelope.name
                ));
            }
            documentation(&mut out, 2, &about);
            out.push_str("  </xs:element>\n");
        }
        for shape in reached {
            complex_type(&mut out, shape)?;
        }
        out.push_str("</xs:schema>\n");
        Ok(out)
    }

    fn about(&self) -> String {
        let mut about = String::from(
            "The XML messages of the Core Interface v1, generated from its OpenAPI document (the `xml` objects of its schemas) by `cargo xtask codegen`. Each complex type is the schema of the same name; child elements appear in the order of its properties. The server checks, beyond this schema, what an annotation says XSD 1.0 cannot state, and the rules the document states as `allOf` entries (which no XML request body carries).",
        );
        if self.namespace.is_none() {
            about.push_str(" This document holds the roots in no namespace (the channel briefing `patch-briefing`), whose elements are unqualified; core-v1.xsd imports it.");
        }
        about
    }
}

/// The file name of a generated path.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn complex_type(out: &mut String, shape: &Shape) -> Result<()> {
    let fields = match &shape.kind {
        ShapeKind::Object(fields) => fields,
        ShapeKind::Alias(target) => {
            out.push_str(&format!("  <xs:complexType name=\"{}\">\n", shape.name));
            if let Some(description) = &shape.description {
                documentation(out, 2, description);
            }
            out.push_str(&format!(
                "    <xs:complexContent>\n      <xs:extension base=\"{target}\"/>\n    </xs:complexContent>\n  </xs:complexType>\n"
            ));
            return Ok(());
        }
        ShapeKind::Scalar(_) => return Ok(()),
        ShapeKind::Map(_) => bail!("{} is a map, which has no XML form", shape.name),
    };
    let text = fields.iter().find(|field| field.node == NodeKind::Text);
    // The text's type: a built-in one, or a named restriction of it written first (an
    // extension's base must be named).
    let base = text.map(|text| {
        let simple = simple_type(text);
        if simple.facets.is_empty() {
            return simple.base.to_string();
        }
        let name = text_type_name(shape, text);
        out.push_str(&format!("  <xs:simpleType name=\"{name}\">\n"));
        restriction(out, 2, &simple);
        out.push_str("  </xs:simpleType>\n");
        name
    });
    out.push_str(&format!("  <xs:complexType name=\"{}\">\n", shape.name));
    if let Some(description) = &shape.description {
        documentation(out, 2, description);
    }
    let attributes = fields
        .iter()
        .filter(|field| field.node == NodeKind::Attribute);
    if let Some(base) = base {
        out.push_str(&format!(
            "    <xs:simpleContent>\n      <xs:extension base=\"{base}\">\n"
        ));
        for field in attributes {
            attribute(out, 4, field);
        }
        out.push_str("      </xs:extension>\n    </xs:simpleContent>\n  </xs:complexType>\n");
        return Ok(());
    }
    let elements: Vec<&FieldShape> = fields
        .iter()
        .filter(|field| field.node == NodeKind::Element)
        .collect();
    if !elements.is_empty() {
        out.push_str("    <xs:sequence>\n");
        for field in elements {
            element(out, field);
        }
        out.push_str("    </xs:sequence>\n");
    }
    for field in attributes {
        attribute(out, 2, field);
    }
    out.push_str("  </xs:complexType>\n");
    Ok(())
}

/// The name of the simple type of an object's text: the schema's name and the property's.
fn text_type_name(shape: &Shape, text: &FieldShape) -> String {
    let mut name = shape.name.clone();
    let mut chars = text.name.chars();
    if let Some(first) = chars.next() {
        name.push(first.to_ascii_uppercase());
        name.push_str(chars.as_str());
    }
    name
}

fn element(out: &mut String, field: &FieldShape) {
    let mut occurs = String::new();
    if field.repeated || !field.required {
        occurs.push_str(" minOccurs=\"0\"");
    }
    if field.repeated {
        match field.max_items {
            Some(most) => occurs.push_str(&format!(" maxOccurs=\"{most}\"")),
            None => occurs.push_str(" maxOccurs=\"unbounded\""),
        }
    }
    let name = escape(&field.xml_name);
    match &field.ty {
        FieldType::Object(target) => {
            out.push_str(&format!(
                "      <xs:element name=\"{name}\" type=\"{target}\"{occurs}"
            ));
            close(out, 6, field.description.as_deref(), "xs:element");
        }
        FieldType::Scalar(_) => {
            let default = default_attribute(field);
            out.push_str(&format!(
                "      <xs:element name=\"{name}\"{occurs}{default}"
            ));
            scalar_node(out, 6, field, "xs:element");
        }
    }
}

fn attribute(out: &mut String, indent: usize, field: &FieldShape) {
    let pad = "  ".repeat(indent);
    let name = escape(&field.xml_name);
    let required = if field.required {
        " use=\"required\""
    } else {
        ""
    };
    let default = default_attribute(field);
    out.push_str(&format!(
        "{pad}<xs:attribute name=\"{name}\"{required}{default}"
    ));
    scalar_node(out, indent, field, "xs:attribute");
}

fn default_attribute(field: &FieldShape) -> String {
    match &field.default {
        None => String::new(),
        Some(DefaultShape::Boolean(value)) => format!(" default=\"{value}\""),
        Some(DefaultShape::Integer(value)) => format!(" default=\"{value}\""),
        Some(DefaultShape::String(value)) => format!(" default=\"{}\"", escape(value)),
    }
}

/// Ends an attribute or element of a scalar: its type as a reference, or inline with its facets.
fn scalar_node(out: &mut String, indent: usize, field: &FieldShape, tag: &str) {
    let simple = simple_type(field);
    let pad = "  ".repeat(indent);
    if simple.facets.is_empty() {
        out.push_str(&format!(" type=\"{}\"", simple.base));
        close(out, indent, simple.note.as_deref(), tag);
        return;
    }
    out.push_str(">\n");
    if let Some(note) = simple.note.as_deref() {
        documentation(out, indent + 1, note);
    }
    out.push_str(&format!("{pad}  <xs:simpleType>\n"));
    restriction(out, indent + 2, &simple);
    out.push_str(&format!("{pad}  </xs:simpleType>\n{pad}</{tag}>\n"));
}

/// Ends a start tag: empty, or with an annotation inside.
fn close(out: &mut String, indent: usize, note: Option<&str>, tag: &str) {
    match note {
        None => out.push_str("/>\n"),
        Some(note) => {
            out.push_str(">\n");
            documentation(out, indent + 1, note);
            out.push_str(&format!("{}</{tag}>\n", "  ".repeat(indent)));
        }
    }
}

/// A scalar as XSD sees it: a built-in base, the facets that restrict it, and what it cannot say.
struct SimpleType {
    base: &'static str,
    facets: Vec<(&'static str, String)>,
    note: Option<String>,
}

fn simple_type(field: &FieldShape) -> SimpleType {
    let FieldType::Scalar(scalar) = field.ty else {
        return SimpleType {
            base: "xs:anyType",
            facets: Vec::new(),
            note: None,
        };
    };
    let mut facets: Vec<(&'static str, String)> = Vec::new();
    let mut notes = Vec::new();
    let base = match scalar {
        ScalarType::String => "xs:string",
        ScalarType::Integer => match field.format.as_deref() {
            Some("int32") => "xs:int",
            Some("int64") => "xs:long",
            _ => "xs:integer",
        },
        ScalarType::Number => "xs:double",
        ScalarType::Boolean => {
            // The codecs read and write exactly these two words (xs:boolean alone allows 1 and 0).
            facets.push(("pattern", "true|false".to_string()));
            "xs:boolean"
        }
    };
    facets.extend(field.allowed.iter().map(|v| ("enumeration", v.clone())));
    if let Some(most) = field.max_length {
        facets.push(("maxLength", most.to_string()));
    }
    if let Some(least) = field.minimum {
        facets.push(("minInclusive", least.to_string()));
    }
    if let Some(most) = field.maximum {
        facets.push(("maxInclusive", most.to_string()));
    }
    if let Some(pattern) = &field.pattern {
        match xsd_pattern(pattern) {
            Some(translated) => facets.push(("pattern", translated)),
            None => notes.push(format!(
                "The server also holds the value to the pattern {pattern} (ECMA 262), which is not stated here."
            )),
        }
    }
    if !field.excluded.is_empty() {
        let excluded: Vec<String> = field.excluded.iter().map(i64::to_string).collect();
        notes.push(format!(
            "The server also refuses {} (XSD 1.0 states no excluded values).",
            excluded.join(", ")
        ));
    }
    let note = match (&field.description, notes.is_empty()) {
        (None, true) => None,
        (description, _) => Some(
            description
                .iter()
                .map(|text| text.trim().to_string())
                .chain(notes)
                .collect::<Vec<_>>()
                .join(" "),
        ),
    };
    SimpleType { base, facets, note }
}

fn restriction(out: &mut String, indent: usize, simple: &SimpleType) {
    let pad = "  ".repeat(indent);
    out.push_str(&format!("{pad}<xs:restriction base=\"{}\">\n", simple.base));
    for (facet, value) in &simple.facets {
        out.push_str(&format!(
            "{pad}  <xs:{facet} value=\"{}\"/>\n",
            escape(value)
        ));
    }
    out.push_str(&format!("{pad}</xs:restriction>\n"));
}

/// An ECMA 262 pattern as an XSD regular expression, when it is anchored at both ends and uses
/// only what both dialects read alike (XSD expressions are anchored implicitly).
fn xsd_pattern(pattern: &str) -> Option<String> {
    let inner = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let mut previous = ' ';
    let mut escaped = false;
    for ch in inner.chars() {
        if escaped {
            if !matches!(
                ch,
                '.' | '-' | '\\' | '[' | ']' | '(' | ')' | '{' | '}' | '+' | '*' | '?' | '|'
            ) {
                return None;
            }
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if ch == '$' || (ch == '^' && previous != '[') || (ch == '?' && previous == '(') {
            return None;
        }
        previous = ch;
    }
    Some(inner.to_string())
}

fn documentation(out: &mut String, indent: usize, text: &str) {
    let pad = "  ".repeat(indent);
    out.push_str(&format!(
        "{pad}<xs:annotation>\n{pad}  <xs:documentation>{}</xs:documentation>\n{pad}</xs:annotation>\n",
        escape(text.trim())
    ));
}

/// Escapes text for an attribute value or element content.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::xsd_pattern;

    #[test]
    fn patterns_anchored_at_both_ends_are_read_alike() {
        assert_eq!(
            xsd_pattern(r"^5\.[0-9]+\.[0-9]+$").as_deref(),
            Some(r"5\.[0-9]+\.[0-9]+")
        );
        assert_eq!(
            xsd_pattern("^[a-z]{2,3}_[A-Z]{2}$").as_deref(),
            Some("[a-z]{2,3}_[A-Z]{2}")
        );
        assert_eq!(xsd_pattern("[^ \\t\\n\\r]"), None);
        assert_eq!(xsd_pattern(r"^\x00$"), None);
        assert_eq!(xsd_pattern("^(?:a)$"), None);
    }
}
