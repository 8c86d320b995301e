"""The two halves of the operations that `cargo xtask schemathesis` runs at once, one Schemathesis
process each (each process takes one core of the two CI has).

Usage: python split.py DOCUMENT  (the published document, as Schemathesis loads it)

Prints one line per half: the operation ids it takes, separated by spaces.

The stateful phase follows the links between operations, those Schemathesis infers included; a
half's stateful phase sees only the links between operations of that half. So the operations are
first grouped by link (two operations a link joins, directly or through others, are one group) and
whole groups are dealt to the halves, heaviest first, each to the lighter half: every link falls
inside one half and is checked there, as in a run over every operation.

A group weighs what its operations do, by `weight`: the cases Schemathesis generates for an
operation grow with its request schema (the coverage phase writes cases per keyword and per
property), so an operation weighs the schema nodes its parameters and request bodies reach.
"""

import json
import sys

import schemathesis

SCHEMAS = "#/components/schemas/"


def _nodes(document, value, seen):
    """How many schema nodes `value` holds, following each `$ref` once."""
    if isinstance(value, list):
        return sum(_nodes(document, item, seen) for item in value)
    if not isinstance(value, dict):
        return 0
    reference = value.get("$ref")
    if isinstance(reference, str):
        if reference in seen or not reference.startswith(SCHEMAS):
            return 0
        seen.add(reference)
        return _nodes(document, document["components"]["schemas"][reference[len(SCHEMAS) :]], seen)
    return 1 + sum(_nodes(document, item, seen) for key, item in value.items() if key != "example")


def weight(document, operation):
    """The schema nodes an operation's parameters and request bodies reach (at least 1)."""
    body = operation.get("requestBody", {})
    reached = _nodes(document, operation.get("parameters", []), set())
    for entry in body.get("content", {}).values():
        reached += _nodes(document, entry.get("schema", {}), set())
    return max(reached, 1)


def operations(document):
    """Every operation: its id, the document's entry, and its `METHOD path` label."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                yield operation["operationId"], operation, f"{method.upper()} {path}"


def links(schema):
    """The pairs of operation ids a link joins, inferred links included."""
    if schema.analysis.should_inject_links():
        schema.analysis.inject_links()
    document = schema.raw_schema
    by_pointer = {}
    for operation_id, operation, label in operations(document):
        method, path = label.split(" ", 1)
        pointer = "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method.lower()
        by_pointer[pointer] = operation_id
    for operation_id, operation, _ in operations(document):
        for answer in operation.get("responses", {}).values():
            for link in (answer.get("links") or {}).values():
                target = link.get("operationId") or by_pointer.get(link.get("operationRef"))
                if target is None:
                    raise SystemExit(f"split.py: a link of {operation_id} names no operation: {link}")
                yield operation_id, target


def groups(ids, pairs):
    """The operations grouped by link (union-find)."""
    parent = {operation_id: operation_id for operation_id in ids}

    def find(operation_id):
        while parent[operation_id] != operation_id:
            parent[operation_id] = parent[parent[operation_id]]
            operation_id = parent[operation_id]
        return operation_id

    for one, other in pairs:
        parent[find(one)] = find(other)
    grouped = {}
    for operation_id in ids:
        grouped.setdefault(find(operation_id), []).append(operation_id)
    return list(grouped.values())


def main():
    schema = schemathesis.openapi.from_path(sys.argv[1])
    document = schema.raw_schema
    weights = {operation_id: weight(document, operation) for operation_id, operation, _ in operations(document)}
    pairs = list(links(schema))
    halves = [[], []]
    loads = [0, 0]
    for group in sorted(groups(list(weights), pairs), key=lambda g: (-sum(weights[i] for i in g), g)):
        lighter = loads.index(min(loads))
        halves[lighter].extend(group)
        loads[lighter] += sum(weights[i] for i in group)
    for half, load in zip(halves, loads):
        print(" ".join(sorted(half)))
        print(f"split.py: {len(half)} operations, weight {load}", file=sys.stderr)
    print(f"split.py: {len(pairs)} links, each inside one half", file=sys.stderr)


if __name__ == "__main__":
    main()
