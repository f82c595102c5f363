"""A mkdocs hook: the page ``schemas.md`` lists every JSON Schema found in ``docs/schemas/``
at build time, each with its title, in place of the line ``{{ schema list }}``."""

from __future__ import annotations

import json
from pathlib import Path

MARKER = "{{ schema list }}"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    folder = Path(config["docs_dir"]) / "schemas"
    lines = []
    for path in sorted(folder.glob("*.schema.json")):
        title = json.loads(path.read_text(encoding="utf-8")).get("title", "")
        lines.append(f"- [`{path.name}`](schemas/{path.name})" + (f": {title}" if title else ""))
    return markdown.replace(MARKER, "\n".join(lines) or "No schema is published.")
