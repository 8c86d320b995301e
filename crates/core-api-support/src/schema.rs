//! The shape of one schema of the document, as the representation engine needs it: which
//! properties are XML attributes, child elements or text, their scalar types, and the compact-JSON
//! form. Generated as `static` tables from the document's `xml` objects and `x-compact` extensions.

/// A generated type that knows its schema table, so codecs can map it to XML and compact JSON.
pub trait Described {
    /// The table of the component schema the type was generated from.
    const SCHEMA: &'static Schema;
}

/// One component schema of the document.
#[derive(Debug)]
pub struct Schema {
    /// The component name in the document (`PimType`, `Kwd`, …).
    pub name: &'static str,
    /// What kind of value the schema describes.
    pub kind: Kind,
    /// Element name and namespace when the schema is a document root (its `xml` object).
    pub xml_root: Option<XmlRoot>,
    /// How the schema looks in compact JSON (`x-compact`).
    pub compact: Compact,
    /// The rules a valid object keeps beyond its properties (the `allOf` entries of an object
    /// schema), in document order.
    pub rules: &'static [Rule],
}

/// A rule over several properties of an object, stated in the document as an `allOf` entry holding
/// `anyOf` or `oneOf` alternatives.
#[derive(Debug)]
pub struct Rule {
    /// How many alternatives must hold.
    pub kind: RuleKind,
    /// The refusal's text (`x-message`); without one, the rule is "exactly one of" the properties
    /// its alternatives require.
    pub message: Option<&'static str>,
    /// The alternatives, each a conjunction of conditions.
    pub alternatives: &'static [&'static [Condition]],
}

/// How many alternatives of a rule must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// At least one (`anyOf`).
    AnyOf,
    /// Exactly one (`oneOf`).
    OneOf,
}

/// One condition of an alternative, on one property. As in JSON Schema, every test but
/// [`Test::Present`] holds when the property is absent.
#[derive(Debug)]
pub struct Condition {
    /// The property's JSON name.
    pub property: &'static str,
    /// What must hold of it.
    pub test: Test,
}

/// What a condition tests.
#[derive(Debug)]
pub enum Test {
    /// The property is present (`required`).
    Present,
    /// Its value, as text, is one of these (`enum`).
    In(&'static [&'static str]),
    /// Its value, as text, is none of these (`not: {enum}`).
    NotIn(&'static [&'static str]),
    /// The array has at least this many items (`minItems`).
    MinItems(u32),
    /// The array has at most this many items (`maxItems`).
    MaxItems(u32),
    /// The string contains a match of this pattern (`pattern`).
    Matches(&'static str),
}

/// What kind of value a schema describes.
#[derive(Debug)]
pub enum Kind {
    /// An object with these properties, in document order (which is XML child order).
    Object(&'static [Field]),
    /// The same value as another schema (`allOf` with a single reference).
    Alias(&'static Schema),
    /// A JSON object of free keys whose values are scalars this field describes
    /// (`additionalProperties`).
    Map(Field),
    /// A scalar (a named string type such as `SchemaVersion`).
    Scalar(Scalar),
}

/// Element name and namespace of a document root.
#[derive(Debug)]
pub struct XmlRoot {
    /// The element name (`pim`, `response`, `patch-briefing`).
    pub name: &'static str,
    /// The namespace the document states, which is the default of the `xml_namespace` setting;
    /// `None` for a root without a namespace.
    pub namespace: Option<&'static str>,
}

/// One property of an object schema.
#[derive(Debug)]
pub struct Field {
    /// The JSON property name.
    pub name: &'static str,
    /// The XML attribute or element name (for an array, the name of each repeated element).
    pub xml_name: &'static str,
    /// Where the value lives in XML.
    pub node: Node,
    /// The type of the value (of each item, for an array).
    pub ty: Type,
    /// The property is an array: repeated elements in XML.
    pub repeated: bool,
    /// The property is listed in the schema's `required`.
    pub required: bool,
    /// The documented `default`, if any.
    pub default: Option<DefaultValue>,
    /// The allowed values (`enum`), empty when any value of the type is allowed.
    pub allowed: &'static [&'static str],
    /// The `pattern` a string must match, if any, beyond the characters every string is held to
    /// (the document's `x-text-pattern`, which the codecs check themselves).
    pub pattern: Option<&'static str>,
    /// The `format` (`int32`, `int64`, …), if any.
    pub format: Option<&'static str>,
    /// The most characters a string may have (`maxLength`).
    pub max_length: Option<u32>,
    /// The most items an array may have (`maxItems`).
    pub max_items: Option<u32>,
    /// The least integer allowed (`minimum`).
    pub minimum: Option<i64>,
    /// The greatest integer allowed (`maximum`).
    pub maximum: Option<i64>,
    /// Integers not allowed (`not: {enum: [...]}`).
    pub excluded: &'static [i64],
    /// How a value breaking these constraints is refused (`x-message`, in which `{value}` stands
    /// for the value); `None` for the codecs' own wording.
    pub message: Option<&'static str>,
    /// The array holds the items of a batch operation (`x-batch`): one result record each.
    pub batch: bool,
}

/// Where a property's value lives in XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    /// An attribute of the element (`xml.attribute: true`).
    Attribute,
    /// A child element (or a sequence of them, for an array).
    Element,
    /// The element's own text content (`xml.x-text: true`).
    Text,
}

/// The type of a property value.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    /// A scalar.
    Scalar(Scalar),
    /// An object described by another schema.
    Object(&'static Schema),
}

/// The scalar types of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// `type: string`.
    String,
    /// `type: integer`.
    Integer,
    /// `type: number`.
    Number,
    /// `type: boolean`.
    Boolean,
}

/// A documented default value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// A boolean default.
    Boolean(bool),
    /// An integer default.
    Integer(i64),
    /// A string default.
    String(&'static str),
}

/// The compact-JSON form of a schema (`x-compact`).
#[derive(Debug)]
pub enum Compact {
    /// The same shape as default JSON.
    Same,
    /// `{form: entries, items}`: the array property `items` is renamed `entries`.
    Entries {
        /// The array property that becomes `entries`.
        items: &'static str,
    },
    /// `{form: map, items, key, value}`: the object becomes a map of each item's key to its value.
    Map {
        /// The array property holding the items.
        items: &'static str,
        /// The item property that becomes the map key.
        key: &'static str,
        /// The item property that becomes the map value.
        value: &'static str,
    },
    /// `{form: val, items, value, listTypes}`: the items collapse into one `value` property.
    Val {
        /// The array property holding the items.
        items: &'static str,
        /// The item property holding the text, and the name of the collapsed property.
        value: &'static str,
        /// Values of the object's `type` for which `value` is always an array.
        list_types: &'static [&'static str],
    },
}

impl Schema {
    /// The schema this one stands for, following aliases.
    pub fn resolve(&'static self) -> &'static Schema {
        let mut schema = self;
        while let Kind::Alias(target) = schema.kind {
            schema = target;
        }
        schema
    }

    /// The properties of an object schema (none for other kinds), following aliases.
    pub fn fields(&'static self) -> &'static [Field] {
        match self.resolve().kind {
            Kind::Object(fields) => fields,
            _ => &[],
        }
    }

    /// The property with this JSON name.
    pub fn field(&'static self, name: &str) -> Option<&'static Field> {
        self.fields().iter().find(|field| field.name == name)
    }

    /// The root element, following aliases (ServiceType is rooted like PimType).
    pub fn xml_root(&'static self) -> Option<&'static XmlRoot> {
        let mut schema = self;
        loop {
            if let Some(root) = &schema.xml_root {
                return Some(root);
            }
            match schema.kind {
                Kind::Alias(target) => schema = target,
                _ => return None,
            }
        }
    }
}
