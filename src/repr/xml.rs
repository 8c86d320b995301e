//! The XML representation: reads XML into the tree and writes the tree as XML, both driven by
//! the schema tables (attribute, child element or text; scalar type; repetition; order).
//!
//! The reader never expands anything: a DOCTYPE is refused, and only the five predefined
//! entities and character references are resolved.

use core_api_support::{Field, Kind, Node, Schema, Type};
use quick_xml::{
    NsReader, XmlVersion,
    escape::resolve_predefined_entity,
    events::{BytesStart, Event},
    name::ResolveResult,
};
use serde_json::{Map, Value};

use super::{
    Limits,
    error::{DecodeError, EncodeError, Problem},
    path::Path,
    tree,
};

/// Reads an XML message whose root is described by `schema`.
pub fn read(
    bytes: &[u8],
    schema: &'static Schema,
    namespace: &str,
    limits: &Limits,
) -> Result<Value, DecodeError> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        DecodeError::whole(Problem::InvalidUtf8 {
            offset: error.valid_up_to(),
        })
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(DecodeError::whole(Problem::Empty));
    }
    let root = schema.xml_root().ok_or_else(|| {
        DecodeError::whole(Problem::Malformed(format!(
            "{} has no XML representation",
            schema.name
        )))
    })?;
    let expected_namespace = root.namespace.map(|_| namespace);
    Reader {
        reader: NsReader::from_str(text),
        path: Path::new(),
        stack: Vec::new(),
        limits,
    }
    .document(schema, root.name, expected_namespace)
}

/// One open element.
enum Frame {
    /// An element described by an object schema.
    Object {
        fields: &'static [Field],
        object: Map<String, Value>,
        text: String,
    },
    /// A child element holding a scalar (`<name>…</name>`).
    Scalar { field: &'static Field, text: String },
}

struct Reader<'a> {
    reader: NsReader<&'a [u8]>,
    path: Path,
    stack: Vec<(Frame, Option<&'static Field>)>,
    limits: &'a Limits,
}

impl Reader<'_> {
    fn document(
        mut self,
        schema: &'static Schema,
        root: &'static str,
        namespace: Option<&str>,
    ) -> Result<Value, DecodeError> {
        let mut result = None;
        loop {
            let position = self.reader.buffer_position();
            let (resolved, event) = self
                .reader
                .read_resolved_event()
                .map_err(|error| malformed(error, position))?;
            let resolved = namespace_of(&resolved);
            match event {
                Event::Start(start) if self.stack.is_empty() && result.is_none() => {
                    self.open_root(schema, root, namespace, &start, resolved)?;
                }
                Event::Empty(start) if self.stack.is_empty() && result.is_none() => {
                    self.open_root(schema, root, namespace, &start, resolved)?;
                    result = self.close()?;
                }
                Event::Start(start) => {
                    self.child(&start, resolved, namespace)?;
                }
                Event::Empty(start) => {
                    self.child(&start, resolved, namespace)?;
                    if let Some(value) = self.close()? {
                        result = Some(value);
                    }
                }
                Event::End(_) => {
                    if let Some(value) = self.close()? {
                        result = Some(value);
                    }
                }
                Event::Text(text) => self.text(&text.xml_content(XmlVersion::Implicit1_0))?,
                Event::CData(data) => self.text(&data.xml_content(XmlVersion::Implicit1_0))?,
                Event::GeneralRef(reference) => {
                    let resolved = if reference.is_char_ref() {
                        match reference.resolve_char_ref() {
                            Ok(Some(ch)) => ch.to_string(),
                            _ => {
                                return Err(
                                    self.error(Problem::UnknownEntity(reference.to_string()))
                                );
                            }
                        }
                    } else {
                        match resolve_predefined_entity(&reference) {
                            Some(text) => text.to_string(),
                            None => {
                                return Err(
                                    self.error(Problem::UnknownEntity(reference.to_string()))
                                );
                            }
                        }
                    };
                    self.text(&resolved)?;
                }
                Event::DocType(_) => return Err(DecodeError::whole(Problem::Doctype)),
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::Eof => {
                    return match (result, self.stack.is_empty()) {
                        (Some(value), true) => Ok(value),
                        _ => Err(DecodeError::whole(Problem::Malformed(
                            "unexpected end of the document".into(),
                        ))),
                    };
                }
            }
        }
    }

    fn open_root(
        &mut self,
        schema: &'static Schema,
        root: &'static str,
        namespace: Option<&str>,
        start: &BytesStart<'_>,
        resolved: Option<String>,
    ) -> Result<(), DecodeError> {
        let name = local(start);
        if name != root {
            return Err(DecodeError::whole(Problem::WrongRoot {
                expected: root,
                found: name,
            }));
        }
        if resolved.as_deref() != namespace {
            return Err(DecodeError::whole(Problem::WrongNamespace {
                expected: namespace.unwrap_or_default().to_string(),
                found: resolved,
            }));
        }
        let frame = self.open_object(schema.resolve(), start)?;
        self.stack.push((frame, None));
        Ok(())
    }

    fn error(&self, problem: Problem) -> DecodeError {
        DecodeError::at(self.path.as_str(), problem)
    }

    /// Opens a child element of the current element.
    fn child(
        &mut self,
        start: &BytesStart<'_>,
        resolved: Option<String>,
        namespace: Option<&str>,
    ) -> Result<(), DecodeError> {
        let name = local(start);
        let Some((parent, _)) = self.stack.last_mut() else {
            return Err(DecodeError::whole(Problem::Malformed(
                "content after the root element".into(),
            )));
        };
        let Frame::Object { fields, object, .. } = parent else {
            return Err(DecodeError::at(
                self.path.as_str(),
                Problem::Unknown {
                    what: "element",
                    name,
                },
            ));
        };
        if resolved.as_deref() != namespace {
            return Err(DecodeError::at(
                self.path.as_str(),
                Problem::Unknown {
                    what: "element",
                    name,
                },
            ));
        }
        let Some(field) = fields
            .iter()
            .find(|field| field.node == Node::Element && field.xml_name == name)
        else {
            return Err(DecodeError::at(
                self.path.as_str(),
                Problem::Unknown {
                    what: "element",
                    name,
                },
            ));
        };
        if field.repeated {
            let index = object
                .get(field.name)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            self.path.push_item(field.xml_name, index);
        } else {
            if object.contains_key(field.name) {
                return Err(DecodeError::at(
                    self.path.as_str(),
                    Problem::Duplicate(name),
                ));
            }
            self.path.push(field.xml_name);
        }
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.error(Problem::TooDeep {
                limit: self.limits.max_depth,
            }));
        }
        let frame = match field.ty {
            Type::Object(schema) => self.open_object(schema.resolve(), start)?,
            Type::Scalar(_) => {
                if let Some(attribute) = start
                    .attributes()
                    .flatten()
                    .find(|attribute| !is_namespace_declaration(attribute.key.as_ref()))
                {
                    let name = attribute.key.as_ref().to_string();
                    return Err(self.error(Problem::Unknown {
                        what: "attribute",
                        name,
                    }));
                }
                Frame::Scalar {
                    field,
                    text: String::new(),
                }
            }
        };
        self.stack.push((frame, Some(field)));
        Ok(())
    }

    fn open_object(
        &self,
        schema: &'static Schema,
        start: &BytesStart<'_>,
    ) -> Result<Frame, DecodeError> {
        let Kind::Object(fields) = schema.kind else {
            return Err(self.error(Problem::Malformed(format!(
                "{} is not an element",
                schema.name
            ))));
        };
        let mut object = Map::new();
        for attribute in start.attributes() {
            let attribute =
                attribute.map_err(|error| self.error(Problem::Malformed(error.to_string())))?;
            let key = attribute.key.as_ref();
            if is_namespace_declaration(key) {
                continue;
            }
            let (resolved, local_name) = self.reader.resolver().resolve_attribute(attribute.key);
            let local_name = local_name.as_ref().to_string();
            let field = match resolved {
                ResolveResult::Unbound => fields
                    .iter()
                    .find(|field| field.node == Node::Attribute && field.xml_name == local_name),
                _ => None,
            };
            let Some(field) = field else {
                return Err(self.error(Problem::Unknown {
                    what: "attribute",
                    name: key.to_string(),
                }));
            };
            let text = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|error| self.error(Problem::Malformed(error.to_string())))?;
            let path = self.path.child(field.xml_name);
            let value = scalar(&text, field, &path)?;
            object.insert(field.name.to_string(), value);
        }
        Ok(Frame::Object {
            fields,
            object,
            text: String::new(),
        })
    }

    fn text(&mut self, text: &str) -> Result<(), DecodeError> {
        match self.stack.last_mut() {
            Some((Frame::Object { text: buffer, .. } | Frame::Scalar { text: buffer, .. }, _)) => {
                buffer.push_str(text);
                Ok(())
            }
            None if text.trim().is_empty() => Ok(()),
            None => Err(DecodeError::whole(Problem::Malformed(
                "text outside the root element".into(),
            ))),
        }
    }

    /// Closes the current element; returns the root's value when the root closes.
    fn close(&mut self) -> Result<Option<Value>, DecodeError> {
        let Some((frame, field)) = self.stack.pop() else {
            return Err(DecodeError::whole(Problem::Malformed(
                "unexpected end tag".into(),
            )));
        };
        let value = match frame {
            Frame::Scalar { field, text } => scalar(&text, field, self.path.as_str())?,
            Frame::Object {
                fields,
                mut object,
                text,
            } => {
                match fields.iter().find(|field| field.node == Node::Text) {
                    Some(text_field) => {
                        let value = scalar(&text, text_field, self.path.as_str())?;
                        object.insert(text_field.name.to_string(), value);
                    }
                    None if !text.trim().is_empty() => {
                        return Err(self.error(Problem::UnexpectedText(abbreviate(text.trim()))));
                    }
                    None => {}
                }
                for required in fields.iter().filter(|field| field.required) {
                    if !object.contains_key(required.name) {
                        if required.repeated {
                            object.insert(required.name.to_string(), Value::Array(Vec::new()));
                        } else {
                            return Err(self.error(Problem::Missing(required.xml_name.to_string())));
                        }
                    }
                }
                Value::Object(object)
            }
        };
        let Some(field) = field else {
            return Ok(Some(value));
        };
        self.path.pop();
        let Some((Frame::Object { object, .. }, _)) = self.stack.last_mut() else {
            return Err(DecodeError::whole(Problem::Malformed(
                "element outside an element".into(),
            )));
        };
        if field.repeated {
            match object
                .entry(field.name.to_string())
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                Value::Array(items) => items.push(value),
                _ => {
                    return Err(DecodeError::whole(Problem::Duplicate(
                        field.xml_name.to_string(),
                    )));
                }
            }
        } else {
            object.insert(field.name.to_string(), value);
        }
        Ok(None)
    }
}

fn namespace_of(resolved: &ResolveResult<'_>) -> Option<String> {
    match resolved {
        ResolveResult::Bound(namespace) => Some(namespace.0.to_string()),
        ResolveResult::Unbound => None,
        ResolveResult::Unknown(prefix) => Some(format!("(undeclared prefix {prefix})")),
    }
}

fn local(start: &BytesStart<'_>) -> String {
    start.local_name().as_ref().to_string()
}

fn is_namespace_declaration(key: &str) -> bool {
    key == "xmlns" || key.starts_with("xmlns:")
}

fn malformed(error: quick_xml::Error, position: u64) -> DecodeError {
    DecodeError::whole(Problem::Malformed(format!(
        "{error} (near byte {position})"
    )))
}

fn abbreviate(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Parses the text of an attribute, a text node or a scalar element by the field's type.
fn scalar(text: &str, field: &Field, path: &str) -> Result<Value, DecodeError> {
    let Type::Scalar(scalar) = field.ty else {
        return Err(DecodeError::at(
            path,
            Problem::Malformed(format!("{} is not a scalar", field.name)),
        ));
    };
    tree::parse_scalar(text, scalar, path)
}

/// Writes the tree as an XML document whose root is described by `schema`.
pub fn write(
    value: &Value,
    schema: &'static Schema,
    namespace: &str,
) -> Result<String, EncodeError> {
    let root = schema.xml_root().ok_or_else(|| EncodeError {
        path: String::new(),
        reason: format!("{} has no XML representation", schema.name),
    })?;
    let mut out = String::with_capacity(1024);
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut writer = Writer {
        out,
        path: Path::new(),
    };
    let namespace = root.namespace.map(|_| namespace);
    writer.element(root.name, value, schema.resolve(), 0, namespace)?;
    Ok(writer.out)
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
        for ch in text.chars() {
            match ch {
                '&' => self.out.push_str("&amp;"),
                '<' => self.out.push_str("&lt;"),
                '>' => self.out.push_str("&gt;"),
                '\r' => self.out.push_str("&#13;"),
                ch if is_xml_char(ch) => self.out.push(ch),
                ch => {
                    return Err(self.fail(format!("U+{:04X} cannot be written in XML", ch as u32)));
                }
            }
        }
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push_str(">\n");
        Ok(())
    }

    fn attribute_text(&mut self, text: &str) -> Result<(), EncodeError> {
        for ch in text.chars() {
            match ch {
                '&' => self.out.push_str("&amp;"),
                '<' => self.out.push_str("&lt;"),
                '>' => self.out.push_str("&gt;"),
                '"' => self.out.push_str("&quot;"),
                '\t' => self.out.push_str("&#9;"),
                '\n' => self.out.push_str("&#10;"),
                '\r' => self.out.push_str("&#13;"),
                ch if is_xml_char(ch) => self.out.push(ch),
                ch => {
                    return Err(self.fail(format!("U+{:04X} cannot be written in XML", ch as u32)));
                }
            }
        }
        Ok(())
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

fn is_empty_array(value: &Value) -> bool {
    value.as_array().is_some_and(Vec::is_empty)
}

/// Whether XML 1.0 can carry the character (production `Char`).
pub fn is_xml_char(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}
