//! The shape of each schema of the raw document, read once and checked: which properties are XML
//! attributes, child elements or text, their types, bounds and defaults. `tables.rs` writes it as
//! the representation engine's Rust tables, `xsd.rs` as an XML Schema.

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Map, Value};

use crate::document::{Document, schema_ref_name};

/// The keywords a property schema may carry: each is either enforced by the tables or describes
/// the value. Any other keyword is refused, so that the document never states a constraint the
/// server does not enforce.
const PROPERTY_KEYWORDS: [&str; 17] = [
    "type",
    "format",
    "description",
    "xml",
    "items",
    "$ref",
    "enum",
    "default",
    "example",
    "maxLength",
    "pattern",
    "maxItems",
    "minimum",
    "maximum",
    "not",
    "x-message",
    "x-batch",
];

/// One component schema (or query type).
pub(super) struct Shape {
    /// The schema's name.
    pub name: String,
    /// What kind of value it describes.
    pub kind: ShapeKind,
    /// Its root element, when it is a document root.
    pub xml_root: Option<Root>,
    /// Its `description`.
    pub description: Option<String>,
}

/// A document root's element name and namespace (`xml.name`, `xml.namespace`).
pub(super) struct Root {
    /// The element name.
    pub name: String,
    /// Its namespace; `None` for a root in no namespace.
    pub namespace: Option<String>,
}

/// What kind of value a schema describes.
pub(super) enum ShapeKind {
    /// An object with these properties, in document order.
    Object(Vec<FieldShape>),
    /// The same value as the named schema.
    Alias(String),
    /// An object of free keys whose scalar values this field describes.
    Map(Box<FieldShape>),
    /// A named scalar.
    Scalar(ScalarType),
}

/// Where a property's value lives in XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NodeKind {
    /// An attribute.
    Attribute,
    /// A child element (repeated, for an array).
    Element,
    /// The element's text.
    Text,
}

/// The scalar types of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScalarType {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
}

/// The type of a property's value (of each item, for an array).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum FieldType {
    /// A scalar.
    Scalar(ScalarType),
    /// An object described by the named component schema.
    Object(String),
}

/// A documented default.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum DefaultShape {
    /// A boolean default.
    Boolean(bool),
    /// An integer default.
    Integer(i64),
    /// A string default.
    String(String),
}

/// One property of an object schema, with every constraint the codecs enforce.
pub(super) struct FieldShape {
    /// The JSON property name.
    pub name: String,
    /// The XML attribute or element name (of each repeated element, for an array).
    pub xml_name: String,
    /// Where the value lives in XML.
    pub node: NodeKind,
    /// The value's type.
    pub ty: FieldType,
    /// The property is an array.
    pub repeated: bool,
    /// The property is required.
    pub required: bool,
    /// The documented default.
    pub default: Option<DefaultShape>,
    /// The allowed values (`enum`).
    pub allowed: Vec<String>,
    /// A pattern stricter than the document's text pattern.
    pub pattern: Option<String>,
    /// The `format`.
    pub format: Option<String>,
    /// The most characters of a string.
    pub max_length: Option<u32>,
    /// The most items of an array.
    pub max_items: Option<u32>,
    /// The least integer.
    pub minimum: Option<i64>,
    /// The greatest integer.
    pub maximum: Option<i64>,
    /// Integers refused (`not: {enum}`).
    pub excluded: Vec<i64>,
    /// The refusal's wording (`x-message`).
    pub message: Option<String>,
    /// The array holds the items of a batch (`x-batch`).
    pub batch: bool,
    /// The property's `description`.
    pub description: Option<String>,
}

/// Reads and checks the shape of one schema.
pub(super) fn shape(document: &Document, name: &str, schema: &Value) -> Result<Shape> {
    let xml_root = schema
        .pointer("/xml/name")
        .and_then(Value::as_str)
        .map(|root| Root {
            name: root.to_string(),
            namespace: text(schema.pointer("/xml/namespace")),
        });
    if schema.get("type").and_then(Value::as_str) == Some("string") {
        scalar_constraints(document, schema, schema, "string")?;
    }
    Ok(Shape {
        name: name.to_string(),
        kind: kind(document, schema)?,
        xml_root,
        description: text(schema.get("description")),
    })
}

/// Whether a schema stands for another (`allOf` with a single reference and no properties).
pub(super) fn is_alias(schema: &Value) -> bool {
    schema.get("allOf").is_some() && schema.get("properties").is_none()
}

fn kind(document: &Document, schema: &Value) -> Result<ShapeKind> {
    if is_alias(schema) {
        let parts = schema
            .get("allOf")
            .and_then(Value::as_array)
            .context("allOf is not a list")?;
        ensure!(parts.len() == 1, "allOf must hold exactly one reference");
        let target = schema_ref_name(&parts[0]).context("allOf must hold a reference")?;
        return Ok(ShapeKind::Alias(target.to_string()));
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Ok(ShapeKind::Scalar(scalar(
            schema.get("type").and_then(Value::as_str),
        )?));
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    if let (None, Some(additional)) = (
        properties,
        schema.get("additionalProperties").filter(|v| v.is_object()),
    ) {
        let value = field(document, "*", additional, false).context("additionalProperties")?;
        ensure!(
            value.node == NodeKind::Element && matches!(value.ty, FieldType::Scalar(_)),
            "the values of a map must be scalars"
        );
        return Ok(ShapeKind::Map(Box::new(value)));
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let mut fields = Vec::new();
    for (property, definition) in properties.unwrap_or(&empty) {
        let required = required.contains(&property.as_str());
        fields.push(
            field(document, property, definition, required)
                .with_context(|| format!("property {property}"))?,
        );
    }
    let count = |node| fields.iter().filter(|field| field.node == node).count();
    let (texts, elements) = (count(NodeKind::Text), count(NodeKind::Element));
    ensure!(
        texts <= 1,
        "more than one property carries the element text (x-text)"
    );
    ensure!(
        texts == 0 || elements == 0,
        "an element cannot hold both text (x-text) and child elements"
    );
    Ok(ShapeKind::Object(fields))
}

/// The type of a property's items and the `xml` object that places it.
struct Placed<'a> {
    ty: FieldType,
    xml: Option<&'a Value>,
    structured: bool,
}

fn placed<'a>(
    document: &'a Document,
    property: &str,
    definition: &'a Value,
    item: &'a Value,
    repeated: bool,
) -> Result<Placed<'a>> {
    let Some(target) = schema_ref_name(item) else {
        ensure!(
            item.get("type").and_then(Value::as_str) != Some("object"),
            "inline object schemas are not supported: use a component schema"
        );
        let ty = FieldType::Scalar(scalar(item.get("type").and_then(Value::as_str))?);
        let xml = definition.get("xml");
        return Ok(Placed {
            ty,
            xml,
            structured: false,
        });
    };
    let target_schema = document.schema(target)?;
    if let Some(root) = target_schema.pointer("/xml/name").and_then(Value::as_str) {
        ensure!(
            root == property,
            "refers to {target}, whose root element is <{root}>, under another name"
        );
    }
    let structured = is_structured(target_schema);
    let ty = if structured {
        FieldType::Object(target.to_string())
    } else {
        FieldType::Scalar(scalar(target_schema.get("type").and_then(Value::as_str))?)
    };
    // The XML facts of a property: its own `xml` object, or for a reference the target's.
    let xml = if repeated {
        definition.get("xml")
    } else {
        target_schema.get("xml")
    };
    Ok(Placed {
        ty,
        xml,
        structured,
    })
}

fn field(
    document: &Document,
    property: &str,
    definition: &Value,
    required: bool,
) -> Result<FieldShape> {
    for keyword in definition.as_object().into_iter().flatten().map(|(k, _)| k) {
        ensure!(
            PROPERTY_KEYWORDS.contains(&keyword.as_str()),
            "`{keyword}` is not a keyword the tables enforce or the generator reads"
        );
    }
    let repeated = definition.get("type").and_then(Value::as_str) == Some("array");
    let item = if repeated {
        ensure!(
            definition.pointer("/xml/wrapped").and_then(Value::as_bool) != Some(true),
            "wrapped arrays are not used: model the wrapper as an object schema"
        );
        definition.get("items").context("an array without items")?
    } else {
        ensure!(
            definition.get("maxItems").is_none() && definition.get("x-batch").is_none(),
            "maxItems and x-batch belong to arrays"
        );
        definition
    };
    let batch = definition.get("x-batch").and_then(Value::as_bool) == Some(true);
    let Placed {
        ty,
        xml,
        structured,
    } = placed(document, property, definition, item, repeated)?;
    ensure!(
        !batch || structured,
        "the items of a batch (x-batch) are objects"
    );
    let flag = |key: &str| xml.and_then(|xml| xml.get(key)).and_then(Value::as_bool) == Some(true);
    let node = match (flag("attribute"), flag("x-text")) {
        (true, true) => bail!("a property cannot be both an attribute and the text"),
        (true, false) => NodeKind::Attribute,
        (false, true) => NodeKind::Text,
        (false, false) => NodeKind::Element,
    };
    ensure!(
        node == NodeKind::Element || (!repeated && !structured),
        "attributes and text must be single scalars"
    );
    let xml_name = xml
        .and_then(|xml| xml.get("name"))
        .filter(|_| schema_ref_name(item).is_none() || repeated)
        .and_then(Value::as_str)
        .unwrap_or(property);
    // Value constraints come from the item schema, or from the named scalar it refers to.
    let source = match schema_ref_name(item) {
        Some(target) => document.schema(target)?,
        None => item,
    };
    let constraints = if structured {
        Constraints::default()
    } else {
        let ty = source
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        scalar_constraints(document, source, item, ty)?
    };
    Ok(FieldShape {
        name: property.to_string(),
        xml_name: xml_name.to_string(),
        node,
        ty,
        repeated,
        required,
        default: default(definition)?,
        allowed: match source.get("enum") {
            Some(values) => strings(values).context("enum")?,
            None => Vec::new(),
        },
        pattern: constraints.pattern,
        format: text(source.get("format")),
        max_length: constraints.max_length,
        max_items: optional_u32(definition, "maxItems")?.filter(|_| repeated),
        minimum: constraints.minimum,
        maximum: constraints.maximum,
        excluded: constraints.excluded,
        message: constraints.message,
        batch,
        description: text(definition.get("description")),
    })
}

fn default(definition: &Value) -> Result<Option<DefaultShape>> {
    Ok(match definition.get("default") {
        None => None,
        Some(Value::Bool(value)) => Some(DefaultShape::Boolean(*value)),
        Some(Value::Number(value)) => Some(DefaultShape::Integer(
            value
                .as_i64()
                .context("only integer number defaults are supported")?,
        )),
        Some(Value::String(value)) => Some(DefaultShape::String(value.clone())),
        Some(other) => bail!("unsupported default {other}"),
    })
}

/// The constraints of a scalar.
#[derive(Default)]
struct Constraints {
    pattern: Option<String>,
    max_length: Option<u32>,
    minimum: Option<i64>,
    maximum: Option<i64>,
    excluded: Vec<i64>,
    message: Option<String>,
}

/// The constraints of a scalar schema (`source`, a named scalar or the item schema itself; `item`
/// is where the property states it). Every string carries a `maxLength` and a pattern (the
/// document's text pattern, which the codecs check natively, or a stricter one), unless an `enum`
/// bounds it.
fn scalar_constraints(
    document: &Document,
    source: &Value,
    item: &Value,
    ty: &str,
) -> Result<Constraints> {
    let enumerated = source.get("enum").is_some();
    let pattern = source.get("pattern").and_then(Value::as_str);
    let max_length = optional_u32(source, "maxLength")?;
    if ty == "string" && !enumerated {
        ensure!(
            max_length.is_some(),
            "a string states its maxLength (D-56), or an enum"
        );
        ensure!(
            pattern.is_some(),
            "a string states the document's x-text-pattern or a stricter pattern (D-56), or an enum"
        );
    }
    if ty != "string" {
        ensure!(
            pattern.is_none() && max_length.is_none(),
            "pattern and maxLength belong to strings"
        );
    }
    if let Some(pattern) = pattern {
        regress::Regex::new(pattern)
            .map_err(|error| anyhow::anyhow!("pattern {pattern:?} is not ECMA 262: {error}"))?;
    }
    let integer = |key: &str| -> Result<Option<i64>> {
        match source.get(key).or_else(|| item.get(key)) {
            None => Ok(None),
            Some(value) => {
                ensure!(ty == "integer", "{key} belongs to integers");
                value
                    .as_i64()
                    .map(Some)
                    .with_context(|| format!("{key} is not an integer"))
            }
        }
    };
    let text_pattern = document.text_pattern()?;
    Ok(Constraints {
        pattern: pattern
            .filter(|pattern| *pattern != text_pattern)
            .map(str::to_string),
        max_length,
        minimum: integer("minimum")?,
        maximum: integer("maximum")?,
        excluded: excluded(source, ty)?,
        message: text(source.get("x-message")),
    })
}

/// The integers a `not: {enum}` refuses.
fn excluded(source: &Value, ty: &str) -> Result<Vec<i64>> {
    let Some(not) = source.get("not") else {
        return Ok(Vec::new());
    };
    ensure!(ty == "integer", "not belongs to integers");
    ensure!(
        not.as_object().is_some_and(|not| not.len() == 1),
        "not holds only an enum"
    );
    not.get("enum")
        .and_then(Value::as_array)
        .context("not holds an enum")?
        .iter()
        .map(|value| {
            value
                .as_i64()
                .context("an excluded value is not an integer")
        })
        .collect()
}

fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_string)
}

fn optional_u32(schema: &Value, key: &str) -> Result<Option<u32>> {
    match schema.get(key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .map(Some)
            .with_context(|| format!("{key} is not a count")),
    }
}

/// Whether a component schema is an object, a map or an alias (as opposed to a named scalar).
fn is_structured(schema: &Value) -> bool {
    schema.get("allOf").is_some() || schema.get("type").and_then(Value::as_str) == Some("object")
}

fn scalar(ty: Option<&str>) -> Result<ScalarType> {
    Ok(match ty {
        Some("string") => ScalarType::String,
        Some("integer") => ScalarType::Integer,
        Some("number") => ScalarType::Number,
        Some("boolean") => ScalarType::Boolean,
        other => bail!("unsupported scalar type {other:?}"),
    })
}

/// The strings of a list.
pub(super) fn strings(list: &Value) -> Result<Vec<String>> {
    list.as_array()
        .context("not a list")?
        .iter()
        .map(|item| item.as_str().map(str::to_string).context("not a string"))
        .collect()
}
