"""The typed shapes of every document, written from the JSON Schemas, so that mypy sees every field.

The schemas in ``bench/records/schemas`` are the one description of each document's shape:
``jsonschema`` checks documents against them when they are read back, and this module turns
them into ``TypedDict``\\ s (``bench/records/documents.py``) for the code that builds and reads
them. Run it after changing a schema; a test fails while the two differ::

    python -m bench.records.generate

Each object with ``properties`` becomes a TypedDict named after its schema and its place
(``ResultsBot`` for ``$defs/bot`` of results.schema.json, ``ResultsMachine`` for the property
``machine``); ``required`` decides ``NotRequired``; ``const`` and ``enum`` become ``Literal``;
an object of ``additionalProperties`` a ``dict[str, ...]``; anything looser ``Any``.
Refinements a type cannot say (ranges, patterns, if/then) stay the schema's to check.
"""

from __future__ import annotations

import json
import keyword
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from bench.records.schema import schema
from solver.files import write_atomic
from solver.text import show

HEADER = '''"""The typed shapes of every document (``bench/records/schemas``), written by ``python -m
bench.records.generate``: do not edit by hand; change the schema and run it again."""

# ruff: noqa: E501
from __future__ import annotations

import sys
from typing import Any, Literal, TypedDict

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:
    from typing_extensions import NotRequired

'''

JSON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None",
              "array": "list[Any]", "object": "dict[str, Any]"}


def camel(name: str) -> str:
    """``hand-grade`` -> ``HandGrade``; ``row_results`` -> ``RowResults``."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


class Writer:
    """The TypedDicts of one schema, in the order they are first needed."""

    def __init__(self, stem: str, schema: dict[str, Any]):
        self.prefix = camel(stem)
        self.schema = schema
        self.classes: dict[str, str] = {}  # name -> its definition
        self.defs: dict[str, str] = {}  # $defs name -> its type

    def root(self) -> str:
        return self.type_of(self.schema, self.prefix + "Document")

    def ref(self, target: str) -> str:
        name = target.removeprefix("#/$defs/")
        if name not in self.defs:
            self.defs[name] = "..."  # a recursive reference names itself while it is written
            self.defs[name] = self.type_of(self.schema["$defs"][name], self.prefix + camel(name))
        return self.defs[name]

    def type_of(self, node: dict[str, Any], name: str) -> str:
        if "$ref" in node:
            return self.ref(node["$ref"])
        if "const" in node:
            return f"Literal[{node['const']!r}]"
        if "enum" in node:
            literals = [repr(v) for v in node["enum"] if v is not None]
            parts = [f"Literal[{', '.join(literals)}]"] if literals else []
            return self.union(parts + (["None"] if None in node["enum"] else []))
        for key in ("oneOf", "anyOf"):
            if key in node:
                return self.union([self.type_of(option, f"{name}{i}" if i else name)
                                   for i, option in enumerate(node[key])])
        kinds = node.get("type")
        if isinstance(kinds, list):
            return self.union([self.type_of(node | {"type": kind}, name) for kind in kinds])
        if kinds == "object" and "properties" in node:
            return self.typed_dict(node, name)
        if kinds == "object" and isinstance(node.get("additionalProperties"), dict):
            return f"dict[str, {self.type_of(node['additionalProperties'], name + 'Value')}]"
        if kinds == "array" and isinstance(node.get("items"), dict):
            return f"list[{self.type_of(node['items'], name + 'Item')}]"
        if kinds is None and "properties" in node:
            return self.typed_dict(node | {"type": "object"}, name)
        return JSON_TYPES.get(kinds, "Any") if isinstance(kinds, str) else "Any"

    @staticmethod
    def union(parts: list[str]) -> str:
        unique = list(dict.fromkeys(parts))
        return " | ".join(unique)

    def typed_dict(self, node: dict[str, Any], name: str) -> str:
        if name in self.classes:
            return name
        self.classes[name] = ""  # reserve the name before the fields, which may need classes of their own
        required = set(node.get("required", ()))
        fields = []
        for field, spec in node["properties"].items():
            kind = self.type_of(spec, name + camel(field))
            fields.append((field, kind if field in required else f"NotRequired[{kind}]"))
        lines = []
        if all(f.isidentifier() and not keyword.iskeyword(f) for f, _ in fields):
            lines.append(f"class {name}(TypedDict):")
            described = node.get("description") or node.get("title")
            if described:
                lines.append(f"    {json.dumps(described[:300].splitlines()[0] if described else '')}")
            lines += [f"    {field}: {kind}" for field, kind in fields] or ["    pass"]
        else:
            body = ", ".join(f"{field!r}: {kind!r}" for field, kind in fields)  # a string: it may name a later class
            lines.append(f"{name} = TypedDict({name!r}, {{{body}}})")
        self.classes[name] = "\n".join(lines)
        return name


def schema_files() -> list[tuple[str, dict[str, Any]]]:
    """Every schema the package ships, by name, read as ``bench report`` reads them."""
    folder = resources.files("bench.records").joinpath("schemas")
    names = sorted(entry.name.removesuffix(".schema.json") for entry in folder.iterdir()
                   if entry.name.endswith(".schema.json"))
    return [(name, schema(name)) for name in names]


def source() -> str:
    """The text of ``bench/records/documents.py``, as the schemas say it."""
    blocks = []
    for stem, document in schema_files():
        writer = Writer(stem, document)
        root = writer.root()
        definitions = [text for text in writer.classes.values() if text]
        alias = f"{writer.prefix}Document"
        if root != alias:
            definitions.append(f"{alias} = {root}")
        blocks.append(f"# --- {stem}.schema.json\n\n" + "\n\n\n".join(definitions))
    return HEADER + "\n" + "\n\n\n".join(blocks) + "\n"


def main() -> int:
    target = Path(__file__).with_name("documents.py")
    write_atomic(target, source())
    show(f"wrote {target}", sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
