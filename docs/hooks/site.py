"""MkDocs hooks: pages that take their text from elsewhere, so nothing is written twice.

* ``<!-- readme: Title -->`` is replaced by the README's section of that title (its links
  into ``docs/`` and to the changelog made relative to the site);
* ``<!-- file: NAME -->`` by a file of the repository (the changelog);
* ``<!-- cli-reference -->`` by every command's help, generated from the argument parser;
* ``<!-- fields: Model -->`` by a table of a spec model's fields (type, default, meaning),
  read from the pydantic model the loader validates with.

Docstrings are written with Sphinx roles (:class:`Query`); on the site a role shows as the
code it names.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- (readme|file|fields): (.+?) -->|<!-- cli-reference -->")


def readme_section(title: str) -> str:
    """The README's ``## title`` section, without its heading."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    try:
        start = lines.index(f"## {title}") + 1
    except ValueError:
        raise ValueError(f"README.md has no section '## {title}'") from None
    end = next((k for k in range(start, len(lines)) if lines[k].startswith("## ")), len(lines))
    text = "\n".join(lines[start:end])
    return text.replace("](docs/", "](").replace("](CHANGELOG.md)", "](changelog.md)")


def cli_reference() -> str:
    """Every command's ``--help``, straight from the parser the command line uses."""
    import os

    from cpmodels.cli import build_parser

    os.environ["COLUMNS"] = "100"  # the help's line width, the same on every machine
    parser = build_parser()
    parts = ["```text", parser.format_help().rstrip(), "```"]
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in commands.choices.items():
        parts += ["", f"## cpmodels {name}", "", "```text", sub.format_help().rstrip(), "```"]
    return "\n".join(parts)


def field_table(model_name: str) -> str:
    """The fields of a spec model (``cpmodels.spec.models`` or ``cpmodels.spec.design``)."""
    from pydantic_core import PydanticUndefined

    from cpmodels.spec import design, models

    model = getattr(models, model_name, None) or getattr(design, model_name)
    rows = ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, info in model.model_fields.items():
        shown = info.alias or name
        kind = str(info.annotation).replace("typing.", "").replace("|", "or")
        kind = re.sub(r"<class '([^']+)'>", r"\1", kind)
        kind = re.sub(r"cpmodels\.[a-z_.]+\.", "", kind)
        if info.is_required():
            default = "required"
        elif info.default is PydanticUndefined:
            default = "(empty)"
        else:
            default = f"`{info.default!r}`"
        meaning = (info.description or "").replace("|", "or")
        rows.append(f"| `{shown}` | {kind} | {default} | {meaning} |")
    return "\n".join(rows)


def _replace(match: re.Match[str]) -> str:
    kind, what = match.group(1), match.group(2)
    if kind == "fields":
        return field_table(what)
    if kind == "readme":
        return readme_section(what)
    if kind == "file":
        return (ROOT / what).read_text(encoding="utf-8").split("\n", 1)[1]  # without its title
    return cli_reference()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return MARKER.sub(_replace, markdown)


ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):<code>~?(?:[\w.]+\.)?([^<]+)</code>")


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return ROLE.sub(r"<code>\1</code>", html)
