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


def _resolve(document, schema):
    """Follows `$ref`s within the document."""
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
    schema = _resolve(document, schema) or {}
    merged = {}
    for part in schema.get("allOf", []):
        if isinstance(part, dict) and "$ref" in part:
            merged.update(_properties(document, part))
    merged.update(schema.get("properties", {}))
    return merged


def _xml_of(schema):
    return schema.get("xml", {}) if isinstance(schema, dict) else {}


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
    schema = _resolve(document, schema) or {}
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
    properties = _properties(document, schema)
    attributes, text, children = [], None, []
    for name, item in value.items():
        property_schema = properties.get(name, {})
        options = _xml_of(property_schema)
        resolved = _resolve(document, property_schema) or {}
        options = options or _xml_of(resolved)
        element = options.get("name", name)
        if options.get("attribute"):
            attributes.append(f" {element}={_attribute(item)}")
        elif options.get("x-text"):
            text = _text(item)
        elif isinstance(item, list):
            for entry in item:
                _write(document, children, element, entry, resolved.get("items", {}))
        else:
            _write(document, children, element, item, property_schema)
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
    schema = _resolve(document, schema) or {}
    properties = _properties(document, schema)
    if not properties and schema.get("type") != "object":
        return _scalar(element.text or "", schema)
    by_xml_name = {}
    text_property = None
    for name, property_schema in properties.items():
        options = _xml_of(property_schema) or _xml_of(_resolve(document, property_schema))
        if options.get("x-text"):
            text_property = name
        by_xml_name[(options.get("name", name), bool(options.get("attribute")))] = name
    tree = {}
    for raw_name, raw_value in element.attrib.items():
        local = _local(raw_name)
        name = by_xml_name.get((local, True), local)
        property_schema = _resolve(document, properties.get(name, {})) or {}
        tree[name] = _scalar(raw_value, property_schema)
    if text_property is not None:
        tree[text_property] = element.text or ""
    for child in element:
        local = _local(child.tag)
        name = by_xml_name.get((local, False), local)
        property_schema = _resolve(document, properties.get(name, {})) or {}
        if property_schema.get("type") == "array":
            tree.setdefault(name, []).append(_read(document, child, property_schema.get("items", {})))
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
