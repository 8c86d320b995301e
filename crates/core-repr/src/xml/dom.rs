//! Reads an XML message into a compact arena of nodes, checking it against the tables on the way:
//! the root and its namespace, known elements and attributes, single elements occurring once, no
//! stray text, the depth limit. Text stays borrowed from the input where it can.
//!
//! Nothing is ever expanded: a DOCTYPE is refused, and only the five predefined entities and
//! character references are resolved.

use std::borrow::Cow;

use core_api_support::{Compact, Field, Kind, Node as XmlNode, Schema, Type};
use quick_xml::{
    NsReader, XmlVersion,
    escape::resolve_predefined_entity,
    events::{BytesRef, BytesStart, Event},
    name::ResolveResult,
};

use crate::{
    Limits,
    error::{DecodeError, Problem},
    path::Path,
    text::{find_forbidden, is_blank, is_xml_char},
    tree::group_by_key,
};

/// "No node".
pub const NONE: u32 = u32::MAX;

/// The nodes of one message; node 0 is the root.
pub struct Dom<'a> {
    /// Elements, in document order.
    pub nodes: Vec<Node<'a>>,
    /// Attributes of all elements, each element's in one run.
    pub attributes: Vec<Attribute<'a>>,
}

/// One element.
pub struct Node<'a> {
    /// The properties of the element's schema (empty for a scalar element).
    pub fields: &'static [Field],
    /// For an element described by an object schema, the schema.
    pub schema: Option<&'static Schema>,
    /// The index, in the parent's fields, of the property this element fills.
    pub field: u16,
    /// The parent element (`NONE` for the root).
    pub parent: u32,
    /// The first child element.
    pub first_child: u32,
    /// The next sibling element.
    pub next_sibling: u32,
    /// The run of its attributes in `Dom::attributes`.
    pub attributes: (u32, u32),
    /// Its text: the value of a scalar element or of the object's text property.
    pub text: Cow<'a, str>,
}

/// One attribute.
pub struct Attribute<'a> {
    /// The index of its property in the element's fields.
    pub field: u16,
    /// Its normalized value.
    pub value: Cow<'a, str>,
}

impl Dom<'_> {
    /// The property a node fills in its parent (`None` for the root).
    pub fn field_of(&self, id: u32) -> Option<&'static Field> {
        let node = &self.nodes[id as usize];
        (node.parent != NONE).then(|| &self.nodes[node.parent as usize].fields[node.field as usize])
    }

    /// The path of a node, in element names: `kwds/kwd[2]`.
    pub fn path(&self, id: u32) -> String {
        let mut chain = Vec::new();
        let mut current = id;
        while current != NONE && current != 0 {
            chain.push(current);
            current = self.nodes[current as usize].parent;
        }
        let mut path = Path::new();
        for &id in chain.iter().rev() {
            let Some(field) = self.field_of(id) else {
                continue;
            };
            if field.repeated {
                path.push_item(field.xml_name, self.index_among_same(id));
            } else {
                path.push(field.xml_name);
            }
        }
        path.as_str().to_string()
    }

    /// How many earlier siblings fill the same property.
    fn index_among_same(&self, id: u32) -> usize {
        let node = &self.nodes[id as usize];
        let mut count = 0;
        let mut sibling = self.nodes[node.parent as usize].first_child;
        while sibling != id && sibling != NONE {
            if self.nodes[sibling as usize].field == node.field {
                count += 1;
            }
            sibling = self.nodes[sibling as usize].next_sibling;
        }
        count
    }
}

/// Reads the message whose root is described by `schema`; `namespace` is the one the root must
/// be in (`None` for a root without namespace).
pub fn read<'a>(
    text: &'a str,
    schema: &'static Schema,
    root: &'static str,
    namespace: Option<&str>,
    limits: &Limits,
) -> Result<Dom<'a>, DecodeError> {
    let mut builder = Builder {
        input: text,
        reader: NsReader::from_str(text),
        dom: Dom {
            nodes: Vec::with_capacity(text.len() / 64),
            attributes: Vec::with_capacity(text.len() / 48),
        },
        stack: Vec::with_capacity(16),
        limits,
        namespace,
        done: false,
    };
    loop {
        let position = builder.reader.buffer_position();
        let (resolved, event) = builder.reader.read_resolved_event().map_err(|error| {
            DecodeError::whole(Problem::Malformed(format!(
                "{error} (near byte {position})"
            )))
        })?;
        let resolved = matches!(resolved, ResolveResult::Bound(bound) if Some(bound.0) == namespace)
            || (namespace.is_none() && matches!(resolved, ResolveResult::Unbound));
        match event {
            Event::Start(start) => builder.open(start, resolved, schema, root)?,
            Event::Empty(start) => {
                builder.open(start, resolved, schema, root)?;
                builder.close()?;
            }
            Event::End(_) => builder.close()?,
            Event::Text(text) => builder.text(text.xml_content(XmlVersion::Implicit1_0))?,
            Event::CData(data) => builder.text(data.xml_content(XmlVersion::Implicit1_0))?,
            Event::GeneralRef(reference) => {
                let mut resolved = String::new();
                push_reference(&reference, &mut resolved)
                    .map_err(|problem| builder.error(problem))?;
                builder.text(Cow::Owned(resolved))?;
            }
            Event::DocType(_) => return Err(DecodeError::whole(Problem::Doctype)),
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => {
                return if builder.done && builder.stack.is_empty() {
                    Ok(builder.dom)
                } else {
                    Err(DecodeError::whole(Problem::Malformed(
                        "unexpected end of the document".into(),
                    )))
                };
            }
        }
    }
}

/// An open element.
struct Open {
    id: u32,
    /// The last child appended, to link the next one.
    last_child: u32,
    /// Which single-valued properties are already present (by field index).
    seen: u64,
    /// Whether the element takes text (a scalar element or an object with a text property).
    takes_text: bool,
}

struct Builder<'a, 'l> {
    input: &'a str,
    reader: NsReader<&'a [u8]>,
    dom: Dom<'a>,
    stack: Vec<Open>,
    limits: &'l Limits,
    namespace: Option<&'l str>,
    done: bool,
}

impl<'a> Builder<'a, '_> {
    fn error(&self, problem: Problem) -> DecodeError {
        let path = self
            .stack
            .last()
            .map(|open| self.dom.path(open.id))
            .unwrap_or_default();
        DecodeError::at(path, problem)
    }

    fn open(
        &mut self,
        start: BytesStart<'a>,
        in_namespace: bool,
        schema: &'static Schema,
        root: &'static str,
    ) -> Result<(), DecodeError> {
        let name = start.local_name();
        let name: &str = name.as_ref();
        let Some(parent) = self.stack.last() else {
            if self.done {
                return Err(DecodeError::whole(Problem::Malformed(
                    "content after the root element".into(),
                )));
            }
            if name != root {
                return Err(DecodeError::whole(Problem::WrongRoot {
                    expected: root,
                    found: name.to_string(),
                }));
            }
            if !in_namespace {
                let (resolved, _) = self.reader.resolver().resolve_element(start.name());
                let found = match resolved {
                    ResolveResult::Bound(namespace) => Some(namespace.0.to_string()),
                    ResolveResult::Unbound => None,
                    ResolveResult::Unknown(prefix) => Some(format!("(undeclared prefix {prefix})")),
                };
                return Err(DecodeError::whole(Problem::WrongNamespace {
                    expected: self.namespace.unwrap_or_default().to_string(),
                    found,
                }));
            }
            return self.push(&start, schema.resolve(), 0, NONE);
        };
        let parent_id = parent.id;
        let fields = self.dom.nodes[parent_id as usize].fields;
        let position = fields
            .iter()
            .position(|field| field.node == XmlNode::Element && field.xml_name == name)
            .filter(|_| in_namespace);
        let Some(index) = position else {
            return Err(self.error(Problem::Unknown {
                what: "element",
                name: name.to_string(),
            }));
        };
        let field = &fields[index];
        if !field.repeated {
            let bit = 1u64 << index;
            if parent.seen & bit != 0 {
                return Err(self.error(Problem::Duplicate(name.to_string())));
            }
            if let Some(parent) = self.stack.last_mut() {
                parent.seen |= bit;
            }
        }
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.error(Problem::TooDeep {
                limit: self.limits.max_depth,
            }));
        }
        match field.ty {
            Type::Object(child) => self.push(&start, child.resolve(), index as u16, parent_id),
            Type::Scalar(_) => {
                self.push(&start, &SCALAR, index as u16, parent_id)?;
                Ok(())
            }
        }
    }

    /// Appends a node for an element and reads its attributes.
    fn push(
        &mut self,
        start: &BytesStart<'a>,
        schema: &'static Schema,
        field: u16,
        parent: u32,
    ) -> Result<(), DecodeError> {
        let id = self.dom.nodes.len() as u32;
        let (fields, object) = match schema.kind {
            Kind::Object(fields) if !std::ptr::eq(schema, &SCALAR) => (fields, Some(schema)),
            _ => (&[][..], None),
        };
        if fields.len() > 64 {
            return Err(self.error(Problem::Malformed(format!(
                "{} has more than 64 properties",
                schema.name
            ))));
        }
        let first_attribute = self.dom.attributes.len() as u32;
        self.dom.nodes.push(Node {
            fields,
            schema: object,
            field,
            parent,
            first_child: NONE,
            next_sibling: NONE,
            attributes: (first_attribute, first_attribute),
            text: Cow::Borrowed(""),
        });
        if let Some(open) = self.stack.last_mut() {
            match open.last_child {
                NONE => self.dom.nodes[open.id as usize].first_child = id,
                last => self.dom.nodes[last as usize].next_sibling = id,
            }
            open.last_child = id;
        }
        let takes_text = object.is_none() || fields.iter().any(|field| field.node == XmlNode::Text);
        self.stack.push(Open {
            id,
            last_child: NONE,
            seen: 0,
            takes_text,
        });
        let seen_attributes = self.attributes(start, fields)?;
        if let Some(open) = self.stack.last_mut() {
            open.seen |= seen_attributes;
        }
        self.dom.nodes[id as usize].attributes.1 = self.dom.attributes.len() as u32;
        Ok(())
    }

    /// Reads an element's attributes into the DOM: a bitmask of the fields they set.
    #[inline]
    fn attributes(
        &mut self,
        start: &BytesStart<'a>,
        fields: &'static [Field],
    ) -> Result<u64, DecodeError> {
        let mut seen_attributes = 0u64;
        // The attributes, read from the input itself so that their values borrow from it; the
        // bitmask below finds repeated attributes, so quick-xml's quadratic check is off.
        let raw = within(self.input, start.attributes_raw())
            .ok_or_else(|| self.error(Problem::Malformed("attributes outside the input".into())))?;
        let mut attributes = quick_xml::events::attributes::Attributes::new(raw, 0);
        attributes.with_checks(false);
        for attribute in attributes {
            let attribute =
                attribute.map_err(|error| self.error(Problem::Malformed(error.to_string())))?;
            let key: &str = attribute.key.as_ref();
            if key == "xmlns" || key.starts_with("xmlns:") {
                continue;
            }
            let (resolved, local) = self.reader.resolver().resolve_attribute(attribute.key);
            let local: &str = local.as_ref();
            let index = match resolved {
                ResolveResult::Unbound => fields
                    .iter()
                    .position(|field| field.node == XmlNode::Attribute && field.xml_name == local),
                _ => None,
            };
            let Some(index) = index else {
                return Err(self.error(Problem::Unknown {
                    what: "attribute",
                    name: key.to_string(),
                }));
            };
            if seen_attributes & (1 << index) != 0 {
                return Err(self.error(Problem::Duplicate(key.to_string())));
            }
            seen_attributes |= 1 << index;
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|error| self.error(Problem::Malformed(error.to_string())))?;
            // A character reference can name a character the input itself may not contain.
            if let Cow::Owned(resolved) = &value
                && let Some(ch) = find_forbidden(resolved)
            {
                return Err(self.error(Problem::ForbiddenCharacter(ch)));
            }
            self.dom.attributes.push(Attribute {
                field: index as u16,
                value,
            });
        }
        Ok(seen_attributes)
    }

    fn text(&mut self, text: Cow<'a, str>) -> Result<(), DecodeError> {
        let Some(open) = self.stack.last() else {
            return if is_blank(&text) {
                Ok(())
            } else {
                Err(DecodeError::whole(Problem::Malformed(
                    "text outside the root element".into(),
                )))
            };
        };
        if !open.takes_text {
            if is_blank(&text) {
                return Ok(());
            }
            return Err(self.error(Problem::UnexpectedText(abbreviate(text.trim()))));
        }
        let node = &mut self.dom.nodes[open.id as usize];
        if node.text.is_empty() {
            node.text = text;
        } else {
            node.text.to_mut().push_str(&text);
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), DecodeError> {
        let Some(open) = self.stack.last() else {
            return Err(DecodeError::whole(Problem::Malformed(
                "unexpected end tag".into(),
            )));
        };
        let id = open.id;
        self.dom.order_map_items(id);
        self.stack.pop();
        if self.stack.is_empty() {
            self.done = true;
        }
        Ok(())
    }
}

impl Dom<'_> {
    /// Relinks the items of a map-form collection (`meta`) in their canonical order, as
    /// `tree::order_map_items` does for the tree (decision D-08).
    fn order_map_items(&mut self, id: u32) {
        let node = &self.nodes[id as usize];
        let Some(Schema {
            compact: Compact::Map { items, key, .. },
            ..
        }) = node.schema
        else {
            return;
        };
        let Some(items) = node.fields.iter().position(|field| field.name == *items) else {
            return;
        };
        let mut children = Vec::new();
        let mut child = node.first_child;
        while child != NONE {
            children.push(child);
            child = self.nodes[child as usize].next_sibling;
        }
        let mut keyed: Vec<(u32, Option<&str>)> = children
            .iter()
            .filter(|child| self.nodes[**child as usize].field as usize == items)
            .map(|&child| (child, self.attribute(child, key)))
            .collect();
        group_by_key(&mut keyed, |(_, key)| *key);
        let mut ordered = keyed.into_iter().map(|(child, _)| child);
        let order: Vec<u32> = children
            .iter()
            .map(|&child| {
                if self.nodes[child as usize].field as usize == items {
                    ordered.next().unwrap_or(child)
                } else {
                    child
                }
            })
            .collect();
        if order == children {
            return;
        }
        self.nodes[id as usize].first_child = order.first().copied().unwrap_or(NONE);
        for pair in order.windows(2) {
            self.nodes[pair[0] as usize].next_sibling = pair[1];
        }
        if let Some(&last) = order.last() {
            self.nodes[last as usize].next_sibling = NONE;
        }
    }

    /// The value of the attribute filling the property `name` of element `id`.
    fn attribute(&self, id: u32, name: &str) -> Option<&str> {
        let node = &self.nodes[id as usize];
        let (start, end) = node.attributes;
        self.attributes[start as usize..end as usize]
            .iter()
            .find(|attribute| {
                node.fields
                    .get(attribute.field as usize)
                    .is_some_and(|field| field.name == name)
            })
            .map(|attribute| attribute.value.as_ref())
    }
}

/// Stands for "a scalar element" in `push`.
static SCALAR: Schema = Schema {
    name: "(scalar element)",
    kind: Kind::Object(&[]),
    xml_root: None,
    compact: core_api_support::Compact::Same,
    rules: &[],
};

/// Resolves a character reference or one of the five predefined entities onto the end of `out`,
/// allocating nothing of its own; nothing else is ever expanded.
pub fn push_reference(reference: &BytesRef<'_>, out: &mut String) -> Result<(), Problem> {
    if reference.is_char_ref() {
        return match reference.resolve_char_ref() {
            Ok(Some(ch)) if is_xml_char(ch) => {
                out.push(ch);
                Ok(())
            }
            Ok(Some(ch)) => Err(Problem::ForbiddenCharacter(ch)),
            _ => Err(Problem::UnknownEntity(reference.to_string())),
        };
    }
    let resolved = resolve_predefined_entity(reference)
        .ok_or_else(|| Problem::UnknownEntity(reference.to_string()))?;
    out.push_str(resolved);
    Ok(())
}

/// The same text as a slice of the input, which it is for a reader over a string.
fn within<'a>(input: &'a str, part: &str) -> Option<&'a str> {
    let offset = (part.as_ptr() as usize).wrapping_sub(input.as_ptr() as usize);
    input
        .get(offset..offset.wrapping_add(part.len()))
        .filter(|slice| slice.as_ptr() == part.as_ptr())
}

fn abbreviate(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
