"""Load a YAML spec file into a validated model, or fail with one clear line per problem."""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from pathlib import Path
from typing import Any, get_args, get_origin

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from cpmodels.errors import SpecError
from cpmodels.files import FileRefused, lone_surrogate, open_input, read_bounded
from cpmodels.interrupt import ctrl_c_held
from cpmodels.spec.bundled import MAX_SPEC_BYTES, spec_path
from cpmodels.spec.design import DesignSpec
from cpmodels.spec.models import CalendarSpec, PackingSpec, Spec, SpecFieldError, TowersSpec

MAX_DEPTH = 20
MAX_INT = 2**63 - 1  # an integer in a spec is a 64-bit number at most
MAX_NUMBER_CHARS = 64  # a number's text longer than this is refused before it is read

# The model of each kind. A model builds its validator when it first validates
# (``defer_build``), so a command builds those of the kinds it reads and no others.
_KINDS: dict[str, type[BaseModel]] = {
    "packing": PackingSpec, "calendar": CalendarSpec, "towers": TowersSpec,
}

Path_ = tuple[str | int, ...]


class _BadNumber(yaml.MarkedYAMLError):
    """A number in the YAML that no field can take (too large, not finite); ``node`` is it."""

    def __init__(self, node: Any, problem: str) -> None:
        super().__init__(problem=problem, problem_mark=node.start_mark)
        self.node = node


class _Loader(yaml.SafeLoader):
    """Safe YAML with no aliases (no "billion laughs"), bounded nesting, no duplicate keys,
    and numbers bounded where they are read (64-bit integers, finite floats)."""

    def construct_bounded_int(self, node: Any) -> int:
        shown = node.value if len(node.value) <= 24 else f"{node.value[:20]}..."
        if len(node.value) > MAX_NUMBER_CHARS:
            raise _BadNumber(node, f"the number {shown} has {len(node.value):,} characters; "
                             f"integers in a spec are at most {MAX_INT:,}")
        value = super().construct_yaml_int(node)
        if abs(value) > MAX_INT:
            raise _BadNumber(node, f"the number {shown} is too large; integers in a spec "
                             f"are at most {MAX_INT:,}")
        return value

    def construct_bounded_float(self, node: Any) -> float:
        shown = node.value if len(node.value) <= 24 else f"{node.value[:20]}..."
        if len(node.value) > MAX_NUMBER_CHARS:
            raise _BadNumber(node, f"the number {shown} has {len(node.value):,} characters; "
                             "too long to be a number of a spec")
        value = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise _BadNumber(node, f"{shown} is not a finite number")
        return value

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(problem="YAML aliases (*name) are not allowed in specs",
                                       problem_mark=event.start_mark)
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.MarkedYAMLError(
                    problem=f"nesting deeper than {MAX_DEPTH} levels",
                    problem_mark=self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                raise yaml.MarkedYAMLError(problem="a mapping key must be a plain value",
                                           problem_mark=key_node.start_mark)
            if key in seen:
                raise yaml.MarkedYAMLError(problem=f"duplicate key {key!r}",
                                           problem_mark=key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_bounded_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_bounded_float)


def _path_of(target: Any, node: Any, path: Path_ = ()) -> Path_ | None:
    """The field path of ``target`` below ``node``, if it is there."""
    if node is target:
        return path
    items: list[tuple[Any, Any]] = []
    if isinstance(node, yaml.MappingNode):
        items = [((*path, key_node.value), value) for key_node, value in node.value]
    elif isinstance(node, yaml.SequenceNode):
        items = [((*path, i), item) for i, item in enumerate(node.value)]
    for here, child in items:
        found = _path_of(target, child, here)
        if found is not None:
            return found
    return None


def _node_lines(node: Any, path: Path_, lines: dict[Path_, int]) -> None:
    """Record the 1-based line of every mapping key and sequence item below ``node``."""
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            here = (*path, key)
            lines[here] = key_node.start_mark.line + 1
            _node_lines(value_node, here, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _node_lines(item, (*path, i), lines)


def parse_yaml(text: str, source: str) -> tuple[Any, dict[Path_, int]]:
    """YAML text to plain data plus the line of each field path."""
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise SpecError(source, f"the text holds a character YAML does not allow: "
                                f"{chr(exc.character)!r}", line=line) from None
    node = None
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _BadNumber as exc:
        field = _path_of(exc.node, node)
        raise SpecError(source, exc.problem or "a number no field can take",
                        field=_format_path(field) if field else None,
                        line=exc.node.start_mark.line + 1) from None
    except yaml.reader.ReaderError as exc:
        raise SpecError(source, f"the text holds a character YAML does not allow: "
                                f"{chr(exc.character)!r}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError(source, f"YAML syntax error: {problem}", line=at) from None
    except yaml.YAMLError as exc:
        raise SpecError(source, "YAML error: " + " ".join(str(exc).split())) from None
    except RecursionError:
        raise SpecError(source, "the YAML is nested too deeply") from None
    finally:
        loader.dispose()
    lone = lone_surrogate(data)
    if lone:
        raise SpecError(source, lone)
    lines: dict[Path_, int] = {}
    if node is not None:
        _node_lines(node, (), lines)
    return data, lines


def _field_names(model: type[BaseModel] | None, loc: Path_) -> list[str]:
    """The field names allowed at ``loc`` (walking the model's annotations), if known."""
    current: Any = model
    for key in loc:
        if isinstance(key, int):
            args = get_args(current)
            current = args[0] if args else None
            continue
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = next((f for name, f in current.model_fields.items()
                          if (f.alias or name) == key), None)
            if field is None:
                return []
            current = field.annotation
            while get_origin(current) is not None and get_origin(current) not in (list, dict):
                inner = [a for a in get_args(current) if a is not type(None)]
                current = inner[0] if inner else None
        else:
            return []
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or name for name, f in current.model_fields.items()]
    return []


def _describe(error: dict[str, Any], model: type[BaseModel] | None) -> tuple[Path_, str]:
    """The field path and a human message (with the fix) for one pydantic error."""
    loc: Path_ = tuple(error["loc"])
    kind = error["type"]
    original = (error.get("ctx") or {}).get("error")
    if isinstance(original, SpecFieldError):
        return original.path, str(original)
    message = error["msg"].removeprefix("Value error, ")
    if kind == "extra_forbidden":
        allowed = _field_names(model, loc[:-1])
        hint = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        fix = f"did you mean {hint[0]!r}?" if hint else (
            f"allowed fields: {', '.join(allowed)}" if allowed else "remove it")
        return loc, f"unknown field {loc[-1]!r}; {fix}"
    if kind == "missing":
        return loc, "required field is missing"
    if kind == "string_pattern_mismatch":
        message = "a name is one word: no spaces, '/' or '#'"
    if "input" in error and kind not in ("value_error", "assertion_error"):
        shown = json.dumps(error["input"], default=str, ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        message = f"{message} (got {shown})"
    return loc, message


_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict", "none"}
_BRANCH = re.compile(r"^[a-z][a-z-]*\[.*\]$")  # literal['a','b'], list[...], function-after[...]


def _is_branch(key: object) -> bool:
    """Whether a key of a pydantic error's location names a branch of a union (such as
    ``literal['a','b']``, ``list[...]`` or ``str``) rather than a field: such keys are
    pydantic's internals, not a place in the file."""
    return isinstance(key, str) and (key in _TYPE_TAGS or _BRANCH.match(key) is not None)


def _format_path(path: Path_) -> str:
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text


def validate_data(data: Any, source: str, lines: dict[Path_, int] | None = None,
                  design: bool = False) -> Any:
    """Validate plain data (a parsed spec, or a design file's) into its model, or raise
    :class:`SpecError`.

    The error's message lists every problem, one line each, the first being the most useful.
    """
    lines = lines or {}
    if data is None:
        raise SpecError(source, "the spec is empty; it needs at least 'kind' and 'name'")
    if not isinstance(data, dict):
        raise SpecError(source, f"a spec must be a mapping of fields, not a {type(data).__name__}",
                        line=lines.get(()))
    kind = data.get("kind")
    model = DesignSpec if design else _KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise SpecError(source, f"'kind' must be one of {', '.join(_KINDS)}", field="kind",
                        line=lines.get(("kind",), lines.get(())))
    try:
        # The validator calls back into Python (its patterns), where an exception raised by
        # a Ctrl-C is printed and lost and the field said to be wrong: Ctrl-C waits until
        # the validation is done.
        with ctrl_c_held():
            return model.model_validate(data)
    except ValidationError as exc:
        problems: list[SpecError] = []
        seen: set[Path_] = set()
        for error in exc.errors():
            loc = tuple(key for key in error["loc"] if not _is_branch(key)) or tuple(error["loc"])
            if loc in seen:  # another branch of a union at the same place: one is enough
                continue
            seen.add(loc)
            path, message = _describe({**error, "loc": loc}, model)
            line = next((lines[path[:n]] for n in range(len(path), -1, -1)
                         if path[:n] in lines), None)
            context = {k: v for k, v in (error.get("ctx") or {}).items() if k != "error"}
            problems.append(SpecError(source, message, field=_format_path(path) or None,
                                      line=line, path=path, kind=error["type"],
                                      context=context))
        first = problems[0]
        if len(problems) > 1:
            rest = "\n".join(str(p) for p in problems[1:])
            raise SpecError(first.source, f"{first.reason}\n{rest}", first.field,
                            first.line, path=first.path, kind=first.kind,
                            context=first.context, problems=tuple(problems)) from None
        raise first from None


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec file, or the bundled spec of that name (``calendar_week``);
    every failure is a :class:`SpecError`."""
    path = spec_path(path)
    return parse_spec(_read(path), str(path))


def load_design(path: str | Path) -> DesignSpec:
    """Read and validate a design file, or the bundled design of that name; every failure
    is a :class:`SpecError`."""
    path = spec_path(path)
    source = str(path)
    data, lines = parse_yaml(_read(path), source)
    if isinstance(data, dict) and data.get("kind") != "design":
        raise SpecError(source, "'kind' must be design in a design file", field="kind",
                        line=lines.get(("kind",)))
    return validate_data(data, source, lines, design=True)


def load_board(design: DesignSpec, source: str | Path) -> CalendarSpec:
    """The calendar spec a design file names (relative to the design file; ``source`` is
    the design's path or the name of a bundled design, as ``load_design`` takes it)."""
    path = spec_path(source).parent / design.board
    if not path.is_file():
        raise SpecError(str(source), f"no calendar spec at {path} (the path is relative to "
                                     "the design file)", field="board")
    spec = load_spec(path)
    if not isinstance(spec, CalendarSpec):
        raise SpecError(str(source), f"{design.board} is a {spec.kind} spec; a design "
                                     "needs a calendar board", field="board")
    if spec.grid != "square":
        raise SpecError(str(source), f"{design.board} is on the {spec.grid} grid; a design "
                                     "draws its pieces from pools of polyominoes, so it needs "
                                     "a square-grid board", field="board")
    return spec


DESIGN_KIND = re.compile(r"""(?:^|[{,])\s*["']?kind["']?\s*:\s*["']?design\b""", re.M)


def is_design(path: str | Path) -> bool:
    """Whether a file says ``kind: design`` (a quick look; the loaders check properly)."""
    try:
        with open_input(spec_path(path), MAX_SPEC_BYTES, "spec") as handle:
            head = handle.read(4096).decode("utf-8", errors="replace")
    except (OSError, FileRefused):
        return False  # the loader says why
    return DESIGN_KIND.search(head) is not None


def _read(path: str | Path) -> str:
    """A spec or design file's text, or a :class:`SpecError` saying why it cannot be read."""
    source = str(path)
    try:
        return read_bounded(path, MAX_SPEC_BYTES, "spec").decode("utf-8")
    except FileRefused as exc:
        if not os.path.lexists(path):
            raise SpecError(source, "no such file, and no bundled spec of that name; check "
                                    "the path, or list the bundled specs with `cpmodels "
                                    "specs`") from None
        hint = "; give the path of a .yaml spec" if exc.reason.startswith("not a file") else ""
        raise SpecError(source, exc.reason + hint) from None
    except UnicodeDecodeError:
        raise SpecError(source, "the file is not UTF-8 text") from None


def parse_spec(text: str, source: str = "<spec>") -> Spec:
    """Validate a spec given as YAML text; errors name ``source`` as they would a file."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES:
        raise SpecError(source, f"the spec is over {MAX_SPEC_BYTES:,} bytes")
    data, lines = parse_yaml(text, source)
    return validate_data(data, source, lines)


def json_schema() -> dict[str, Any]:
    """JSON Schema of every spec kind, for editors and other tools."""
    schema = TypeAdapter(Spec).json_schema()
    schema["title"] = "cpmodels spec"
    return schema
