"""Schemathesis hooks of `cargo xtask schemathesis`: the service's three representations.

The published document states each representation's shape (`generated/core-api/openapi.yaml`):

* default JSON is the schema as written;
* compact JSON (`application/json+compact`) has schemas of its own, derived from `x-compact`
  (`<Name>Compact`); Schemathesis generates and validates them as it does JSON, and only needs to
  be told that the media type is JSON text (`serialize_compact`, `deserialize_compact`);
* XML follows the standard `xml` objects of the schemas, plus `x-text`, which marks the property
  that holds an element's text (OpenAPI 3.0 has no way to say so). Schemathesis's own XML writer
  would make that property a child element, so requests are written here (`serialize_xml`), by
  the same rules, and XML answers are read back into the default-JSON tree (`deserialize_xml`) so
  that Schemathesis validates them against the schema.

Requests go out in all three representations; without `Accept`, the answer comes in the
request's (D-12), so answers are checked in all three too. Two kinds of generated case are not
sent (`filter_case`), each because the document cannot state, in a form Schemathesis reads, what
makes it what it claims to be:

* a positive compact case with a map key its `x-propertyNames` refuses (OpenAPI 3.0 has no
  `propertyNames`; the service refuses such a key, 400, as it refuses the same text in `key`);
* a negative XML case whose XML text reads back as a valid message: XML cannot tell a missing
  text property from an empty one (D-54), nor a lone element from a one-item array, so such a
  case is, on the wire, a valid request.
"""

import json
import re
import xml.etree.ElementTree as ElementTree
from xml.sax.saxutils import escape, quoteattr

import jsonschema_rs
import schemathesis
from schemathesis.core.parameters import ParameterLocation

COMPACT = "application/json+compact"
XML = "application/xml"
SCHEMAS = "#/components/schemas/"


# ------------------------------------------------------------------------------- compact JSON


@schemathesis.serializer(COMPACT)
def serialize_compact(ctx, value):
    return json.dumps(value).encode("utf-8")


@schemathesis.deserializer(COMPACT)
def deserialize_compact(ctx, response):
    return json.loads(response.content)


# ------------------------------------------------------------------------------------ schemas


# The hooks run for every generated case and read the same schemas each time: what they make of a
# schema of the document is made once. Schemas are the loaded document's objects, alive for the
# whole run; an entry keeps its schema too, so that its id cannot be reused while it is cached.
# Schemas the hooks make themselves are never cached (an absent one is `_EMPTY`).
_MEMO = {}
_EMPTY = {}


def _memo(kind, schema, compute):
    entry = _MEMO.get((kind, id(schema)))
    if entry is None or entry[0] is not schema:
        if len(_MEMO) > 100_000:
            _MEMO.clear()
        entry = (schema, compute())
        _MEMO[(kind, id(schema))] = entry
    return entry[1]


def _resolve(document, schema):
    """Follows `$ref`s within the document."""
    if not isinstance(schema, dict) or "$ref" not in schema:
        return schema
    return _memo("resolve", schema, lambda: _follow(document, schema))


def _follow(document, schema):
    for _ in range(16):
        if not isinstance(schema, dict) or "$ref" not in schema:
            return schema
        node = document
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        schema = node
    return schema


def _properties(document, schema):
    """The properties of an object schema, those of `allOf` references included (in order).

    Inline `allOf` branches only constrain properties declared beside them, so they are skipped.
    """
    schema = _resolve(document, schema) or _EMPTY
    if schema is _EMPTY:
        return {}
    return _memo("properties", schema, lambda: _merged(document, schema))


def _merged(document, schema):
    merged = {}
    for part in schema.get("allOf", []):
        if isinstance(part, dict) and "$ref" in part:
            merged.update(_properties(document, part))
    merged.update(schema.get("properties", {}))
    return merged


def _xml_of(schema):
    return schema.get("xml", {}) if isinstance(schema, dict) else {}


class _Property:
    """How a property of an object schema stands in XML."""

    __slots__ = ("name", "schema", "resolved", "element", "attribute", "text")

    def __init__(self, document, name, schema):
        self.name = name
        self.schema = schema
        self.resolved = _resolve(document, schema) or _EMPTY
        options = _xml_of(schema) or _xml_of(self.resolved)
        self.element = options.get("name", name)
        self.attribute = bool(options.get("attribute"))
        self.text = bool(options.get("x-text"))


class _Shape:
    """An object schema as the XML writer and reader take it: its properties by JSON name and by
    XML name (with whether that is an attribute), and the property that holds the text."""

    __slots__ = ("properties", "by_xml_name", "text_property")

    def __init__(self, document, schema):
        self.properties = {
            name: _Property(document, name, property_schema)
            for name, property_schema in _properties(document, schema).items()
        }
        self.by_xml_name = {}
        self.text_property = None
        for prop in self.properties.values():
            if prop.text:
                self.text_property = prop.name
            self.by_xml_name[(prop.element, prop.attribute)] = prop


def _shape(document, schema):
    """The `_Shape` of a resolved schema."""
    return _memo("shape", schema, lambda: _Shape(document, schema))


def _media_schema(document, content, media_type):
    """The schema of the media type of a `content` map that names the XML representation."""
    for name, entry in (content or {}).items():
        if name.split(";")[0].strip() == media_type.split(";")[0].strip():
            return entry.get("schema")
    return None


# ------------------------------------------------------------------------------------ XML out

# What XML text cannot carry as is: refused characters (written as references, which every XML
# reader refuses) and carriage returns (written as references so that they are not read as line
# feeds).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0d\x0e-\x1f\ufffe\uffff]")


def _string(value):
    """A generated value as the text XML carries."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _references(text):
    return _FORBIDDEN.sub(lambda match: f"&#x{ord(match.group()):x};", text)


def _text(value):
    """A value as XML text; characters XML cannot carry become character references, which the
    service refuses (400) as any XML reader must."""
    return _references(escape(_string(value)))


def _attribute(value):
    return _references(quoteattr(_string(value)))


def _write(document, out, tag, value, schema, namespace=None):
    schema = _resolve(document, schema) or _EMPTY
    if isinstance(value, list):
        # A list where one element is due: repeated elements, as an array property is written.
        for item in value:
            _write(document, out, tag, item, schema.get("items", schema))
        return
    start = tag
    if namespace:
        start += f' xmlns="{namespace}"'
    if not isinstance(value, dict):
        out.append(f"<{start}>{_text(value)}</{tag}>")
        return
    properties = _shape(document, schema).properties if schema is not _EMPTY else {}
    attributes, text, children = [], None, []
    for name, item in value.items():
        prop = properties.get(name) or _Property(document, name, _EMPTY)
        if prop.attribute:
            attributes.append(f" {prop.element}={_attribute(item)}")
        elif prop.text:
            text = _text(item)
        elif isinstance(item, list):
            for entry in item:
                _write(document, children, prop.element, entry, prop.resolved.get("items", _EMPTY))
        else:
            _write(document, children, prop.element, item, prop.schema)
    out.append(f"<{start}{''.join(attributes)}>")
    if text is not None:
        out.append(text)
    out.extend(children)
    out.append(f"</{tag}>")


@schemathesis.serializer(XML)
def serialize_xml(ctx, value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    document, schema = _body_schema(ctx.case)
    return _xml_document(document, value, schema).encode("utf-8")


def _xml_document(document, value, schema):
    """A request body as an XML document: the root named and namespaced by its schema."""
    schema = _resolve(document, schema) or {}
    options = _xml_of(schema)
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    _write(document, out, options.get("name", "pim"), value, schema, options.get("namespace"))
    return "".join(out)


# ------------------------------------------------------------------------------------- XML in


def _scalar(text, schema):
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return text
    if kind == "boolean" and text in ("true", "false"):
        return text == "true"
    return text


def _local(name):
    return name.rsplit("}", 1)[-1]


def _read(document, element, schema):
    """An element as the default-JSON tree of its schema; what the schema does not name is kept
    under its own name, so that validation reports it."""
    schema = _resolve(document, schema) or _EMPTY
    shape = _shape(document, schema) if schema is not _EMPTY else None
    if shape is None or (not shape.properties and schema.get("type") != "object"):
        return _scalar(element.text or "", schema)
    tree = {}
    for raw_name, raw_value in element.attrib.items():
        local = _local(raw_name)
        prop = shape.by_xml_name.get((local, True))
        name = prop.name if prop else local
        property_schema = shape.properties[name].resolved if name in shape.properties else _EMPTY
        tree[name] = _scalar(raw_value, property_schema)
    if shape.text_property is not None:
        tree[shape.text_property] = element.text or ""
    for child in element:
        local = _local(child.tag)
        prop = shape.by_xml_name.get((local, False))
        name = prop.name if prop else local
        property_schema = shape.properties[name].resolved if name in shape.properties else _EMPTY
        if property_schema.get("type") == "array":
            tree.setdefault(name, []).append(_read(document, child, property_schema.get("items", _EMPTY)))
        else:
            tree[name] = _read(document, child, property_schema)
    return tree


@schemathesis.deserializer(XML, "application/xml; charset=UTF-8")
def deserialize_xml(ctx, response):
    document = ctx.operation.schema.raw_schema
    responses = ctx.operation.definition.raw.get("responses", {})
    answer = responses.get(str(response.status_code)) or responses.get("default") or {}
    answer = _resolve(document, answer)
    content_type = response.headers.get("Content-Type", [XML])
    if isinstance(content_type, list):
        content_type = content_type[0]
    schema = _media_schema(document, answer.get("content"), content_type)
    root = ElementTree.fromstring(response.content)
    return _read(document, root, schema)


# ------------------------------------------------------------------------------ which cases


def _validator(document, schema):
    root = dict(schema)
    root["components"] = {"schemas": document["components"]["schemas"]}
    return jsonschema_rs.Draft4Validator(root)


def _keys_fit(document, value, schema):
    """Whether every key of every map-form object in a compact value fits its `x-propertyNames`."""
    schema = _resolve(document, schema) or {}
    if isinstance(value, dict):
        names = schema.get("x-propertyNames")
        if names is not None:
            names = _validator(document, names)
            if not all(names.is_valid(key) for key in value):
                return False
            extra = schema.get("additionalProperties", {})
            return all(_keys_fit(document, item, extra) for item in value.values())
        properties = _properties(document, schema)
        return all(_keys_fit(document, item, properties.get(name, {})) for name, item in value.items())
    if isinstance(value, list):
        return all(_keys_fit(document, item, schema.get("items", {})) for item in value)
    return True


def _body_schema(case):
    document = case.operation.schema.raw_schema
    body = _resolve(document, case.operation.definition.raw.get("requestBody", {}))
    return document, _media_schema(document, body.get("content"), case.media_type or "")


@schemathesis.hook
def filter_case(context, case):
    media = (case.media_type or "").split(";")[0].strip()
    component = case.meta.components.get(ParameterLocation.BODY) if case.meta else None
    if component is None or media not in (COMPACT, XML) or isinstance(case.body, (bytes, bytearray)):
        return True
    document, schema = _body_schema(case)
    if schema is None:
        return True
    if media == COMPACT:
        return component.mode.is_negative or _keys_fit(document, case.body, schema)
    if not component.mode.is_negative:
        return True
    try:
        root = ElementTree.fromstring(_xml_document(document, case.body, schema).encode("utf-8"))
    except ElementTree.ParseError:
        return True
    return not _validator(document, schema).is_valid(_read(document, root, schema))
