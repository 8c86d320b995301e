"""Schemathesis hooks of `cargo xtask schemathesis`.

Schemathesis writes XML from the standard OpenAPI `xml` objects, which cannot say that a property
is an element's text (this document's `x-text`), and it has no serializer for
`application/json+compact`. Its XML and compact request bodies are therefore not this service's
representations, and a run judges the server on JSON request bodies, whose shape is the schema as
written. Answers are checked in every representation the operation lists.
"""

import schemathesis

JSON = "application/json"


def _json_or_none(case):
    return case.media_type is None or case.media_type == JSON


@schemathesis.hook
def filter_case(context, case):
    return _json_or_none(case)


@schemathesis.hook
def before_add_examples(context, examples):
    examples[:] = [case for case in examples if _json_or_none(case)]
