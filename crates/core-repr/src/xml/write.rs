//! Writes the tree as XML: attributes, child elements and text as the tables say, in table
//! order, indented by two spaces.

use core_api_support::{Field, Kind, Node, Schema, Type, XmlRoot};
use serde_json::Value;

use crate::{error::EncodeError, path::Path, text::is_xml_char};

/// Writes the tree as an XML document whose root is described by `schema`.
pub fn write(
    value: &Value,
    schema: &'static Schema,
    namespace: &str,
) -> Result<String, EncodeError> {
    let (root, out) = document(schema)?;
    let mut writer = Writer {
        out,
        path: Path::new(),
    };
    let namespace = root.namespace.map(|_| namespace);
    writer.element(root.name, value, schema.resolve(), 0, namespace)?;
    Ok(writer.out)
}

/// The root of a document of `schema`, and the document's text so far (its XML declaration); the
/// tree writer and the typed writer (`repr::emit::xml`) start alike.
pub(crate) fn document(schema: &'static Schema) -> Result<(&'static XmlRoot, String), EncodeError> {
    let root = schema.xml_root().ok_or_else(|| EncodeError {
        path: String::new(),
        reason: format!("{} has no XML representation", schema.name),
    })?;
    let mut out = String::with_capacity(1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    Ok((root, out))
}

struct Writer {
    out: String,
    path: Path,
}

impl Writer {
    fn fail(&self, reason: impl Into<String>) -> EncodeError {
        EncodeError {
            path: self.path.as_str().to_string(),
            reason: reason.into(),
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn element(
        &mut self,
        name: &str,
        value: &Value,
        schema: &'static Schema,
        depth: usize,
        namespace: Option<&str>,
    ) -> Result<(), EncodeError> {
        let Kind::Object(fields) = schema.kind else {
            return Err(self.fail(format!("{} is not an element", schema.name)));
        };
        let object = value
            .as_object()
            .ok_or_else(|| self.fail("expected an object"))?;
        if let Some(unknown) = object
            .keys()
            .find(|key| !fields.iter().any(|field| field.name == key.as_str()))
        {
            return Err(self.fail(format!("unknown property '{unknown}'")));
        }
        self.indent(depth);
        self.out.push('<');
        self.out.push_str(name);
        if let Some(namespace) = namespace {
            self.out.push_str(" xmlns=\"");
            self.attribute_text(namespace)?;
            self.out.push('"');
        }
        self.attributes(fields, object)?;
        if let Some(field) = fields.iter().find(|field| field.node == Node::Text) {
            let text = match object.get(field.name) {
                Some(value) => self.scalar_text(value)?,
                None => String::new(),
            };
            self.close_with_text(name, &text)?;
            return Ok(());
        }
        let children: Vec<&Field> = fields
            .iter()
            .filter(|field| {
                field.node == Node::Element
                    && object.get(field.name).is_some_and(|v| !is_empty_array(v))
            })
            .collect();
        if children.is_empty() {
            self.out.push_str("/>\n");
            return Ok(());
        }
        self.out.push_str(">\n");
        for field in children {
            let Some(value) = object.get(field.name) else {
                continue;
            };
            if field.repeated {
                let items = value
                    .as_array()
                    .ok_or_else(|| self.fail(format!("{} must be an array", field.name)))?;
                for (index, item) in items.iter().enumerate() {
                    self.path.push_item(field.xml_name, index);
                    self.child(field, item, depth + 1)?;
                    self.path.pop();
                }
            } else {
                self.path.push(field.xml_name);
                self.child(field, value, depth + 1)?;
                self.path.pop();
            }
        }
        self.indent(depth);
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
        Ok(())
    }

    /// Writes the attributes of an element's start tag.
    fn attributes(
        &mut self,
        fields: &[Field],
        object: &serde_json::Map<String, Value>,
    ) -> Result<(), EncodeError> {
        for field in fields.iter().filter(|field| field.node == Node::Attribute) {
            if let Some(value) = object.get(field.name) {
                self.out.push(' ');
                self.out.push_str(field.xml_name);
                self.out.push_str("=\"");
                let text = self.scalar_text(value)?;
                self.attribute_text(&text)?;
                self.out.push('"');
            }
        }
        Ok(())
    }

    fn child(&mut self, field: &Field, value: &Value, depth: usize) -> Result<(), EncodeError> {
        match field.ty {
            Type::Object(schema) => {
                self.element(field.xml_name, value, schema.resolve(), depth, None)
            }
            Type::Scalar(_) => {
                self.indent(depth);
                self.out.push('<');
                self.out.push_str(field.xml_name);
                let text = self.scalar_text(value)?;
                self.close_with_text(field.xml_name, &text)
            }
        }
    }

    /// Finishes an open start tag with text content (or as an empty element).
    fn close_with_text(&mut self, name: &str, text: &str) -> Result<(), EncodeError> {
        if text.is_empty() {
            self.out.push_str("/>\n");
            return Ok(());
        }
        self.out.push('>');
        self.escaped(text, false)?;
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
        Ok(())
    }

    fn attribute_text(&mut self, text: &str) -> Result<(), EncodeError> {
        self.escaped(text, true)
    }

    /// Writes text escaped for element content or for an attribute value.
    fn escaped(&mut self, text: &str, attribute: bool) -> Result<(), EncodeError> {
        escape_into(&mut self.out, text, attribute)
            .map_err(|ch| self.fail(format!("U+{:04X} cannot be written in XML", ch as u32)))
    }

    fn scalar_text(&self, value: &Value) -> Result<String, EncodeError> {
        match value {
            Value::String(text) => Ok(text.clone()),
            Value::Number(number) => Ok(number.to_string()),
            Value::Bool(flag) => Ok(flag.to_string()),
            _ => Err(self.fail("expected a scalar")),
        }
    }
}

/// Writes text escaped for element content or, with `attribute`, for a double-quoted attribute
/// value (where whitespace other than spaces must be referenced to survive); the character XML
/// cannot carry, if any. The tree writer and the typed writer (`repr::emit::xml`) share it.
pub(crate) fn escape_into(out: &mut String, text: &str, attribute: bool) -> Result<(), char> {
    // Most text needs nothing: no markup character, no control character, no U+FFFE/U+FFFF
    // (whose UTF-8 starts with 0xEF).
    if text
        .bytes()
        .all(|byte| byte >= 0x20 && !matches!(byte, b'&' | b'<' | b'>' | b'"' | 0xEF))
    {
        out.push_str(text);
        return Ok(());
    }
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            '"' if attribute => out.push_str("&quot;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            ch if is_xml_char(ch) => out.push(ch),
            ch => return Err(ch),
        }
    }
    Ok(())
}

fn is_empty_array(value: &Value) -> bool {
    value.as_array().is_some_and(Vec::is_empty)
}
