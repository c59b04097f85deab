"""Every example in README.md and docs/*.md runs, and says what it says it does.

The fenced blocks are found by a Markdown parser (markdown-it-py), each with its file and
line. In a ``python`` block every statement runs; in an ``sh`` block every command that
runs cpmodels runs through the command line's own ``main``, in a scratch folder holding the
bundled specs. A number in parentheses in a line's trailing comment, ``# (10,374)``, is a
stated output: it must appear in what the line prints (or, in Python, in the value).

A block whose fence has a ``title`` that says it is a long run, needs a server or a cluster
runs shortened: the substitutions in :data:`SHORTER` (smaller specs, shorter limits, the
cluster a local one started here), ``serve`` answering requests in-process instead of
listening, ``curl`` sent to the app in-process. Its stated outputs are not checked where a
substitution changed the line. Blocks in other languages (YAML, JSON, text) are data.
The public API's docstring examples run as doctests.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import glob
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT
from markdown_it import MarkdownIt

from cpmodels.cli import main

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHORTENED = ("long run", "server", "cluster")  # words of a fence title that shorten a block
SHORTER = [  # (pattern, replacement) for the lines of a shortened block
    (r"--size [79]x[79]", "--size 4x4"),
    (r"--price-steps \d+", "--price-steps 2"),
    (r"\b7x7\.cert\b", "4x4.cert"),
    (r"pentominoes_8x8_square(\.yaml)?", r"pentominoes_8x8_centre\1"),
    (r"--time-limit \d+", "--time-limit 2"),
    (r"(sweep \S+ .*--prove\b)", r"\1 --time-limit 3"),  # proofs of every unsolvable date
    (r"specs/calendar_week(_11)?\.yaml", "specs/calendar_day.yaml"),
    (r"api\.sweep\(\"specs/calendar_week\.yaml\"\)", 'api.sweep("specs/calendar_day.yaml")'),
    (r"(design \S+)", r"\1 --no-counts --jobs 1"),
    (r"--cluster \S+", "--cluster {cluster}"),
    (r"CPMODELS_CLUSTER=\S+", "CPMODELS_CLUSTER={cluster}"),
]
OUTSIDE = ("cadical", "minizinc")  # outside solvers whose documented lines run for real
STATED = re.compile(r"\((\d[\d,]*)\)")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # the fence's line, 1-based
    language: str
    title: str
    source: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def shortened(self) -> bool:
        return any(word in self.title for word in SHORTENED)


def _blocks() -> list[Block]:
    found = []
    parser = MarkdownIt("commonmark")
    for path in DOCUMENTS:
        for token in parser.parse(path.read_text(encoding="utf-8")):
            if token.type != "fence" or token.map is None:
                continue
            info = token.info.strip()
            language = info.split()[0] if info else ""
            title = re.search(r'title="([^"]*)"', info)
            found.append(Block(path, token.map[0] + 1, language,
                               title.group(1) if title else "", token.content))
    return found


BLOCKS = _blocks()
PYTHON = [b for b in BLOCKS if b.language in ("python", "py")]
SHELL = [b for b in BLOCKS if b.language in ("sh", "bash", "console")]


def _shorten(text: str, cluster: str) -> str:
    for pattern, replacement in SHORTER:
        text = re.sub(pattern, replacement, text)
    return text.replace("{cluster}", cluster)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A folder like a checkout's top level: the bundled specs and docs/images/."""
    folder = tmp_path_factory.mktemp("examples")
    (folder / "specs").symlink_to(ROOT / "specs")
    (folder / "docs" / "images").mkdir(parents=True)
    return folder


@pytest.fixture(scope="module")
def cluster_address():
    """A local Dask cluster for the blocks that need one, started once when first asked."""
    started: list = []

    def address() -> str:
        if not started:
            distributed = pytest.importorskip("distributed")
            local = distributed.LocalCluster(n_workers=1, threads_per_worker=1,
                                             processes=True, host="127.0.0.1",
                                             dashboard_address="127.0.0.1:0", silence_logs=40)
            started.append(local)
        return started[0].scheduler_address

    yield address
    for local in started:
        local.close()


def test_the_documents_hold_examples():
    assert len(PYTHON) >= 3 and len(SHELL) >= 8
    assert all(b.title for b in BLOCKS if b.language in ("python", "sh") and b.shortened)


# --- shell blocks ------------------------------------------------------------------------


def _commands(block: Block) -> list[tuple[int, str, str]]:
    """``(line, command, trailing comment)`` for every command of the block that runs
    cpmodels (``cpmodels ...`` or ``... -m cpmodels ...``, one of a ``&&`` chain)."""
    out = []
    for k, raw in enumerate(block.source.splitlines()):
        text, _, comment = raw.partition("  #")
        for part in text.split("&&"):
            part = part.strip()
            words = part.split()
            if words and words[0] in OUTSIDE:
                out.append((block.line + 1 + k, part, comment))
                continue
            at = next((i for i, w in enumerate(words) if w == "cpmodels"), None)
            if at is None:
                continue
            env = [w for w in words[:at] if "=" in w and not w.startswith("-")]
            if words[at - 1:at] == ["-m"]:
                env = []
            out.append((block.line + 1 + k, " ".join([*env, *words[at:]]), comment))
    return out


def _run(command: str, folder: Path, monkeypatch, capsys) -> tuple[int, str]:
    """Run one documented command line in ``folder``: its exit status and what it printed
    (stdout, or the file it was redirected to)."""
    words = shlex.split(command)
    redirect = None
    if ">" in words:
        redirect = folder / words[words.index(">") + 1]
        words = words[:words.index(">")]
    if words[0] in OUTSIDE:
        return _run_outside(words, folder, redirect)
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        monkeypatch.setenv(name, value)
    assert words[0] == "cpmodels", command
    argv = []
    for word in words[1:]:
        argv += sorted(glob.glob(word, root_dir=folder)) if "*" in word else [word]
    monkeypatch.chdir(folder)
    code = main(argv)
    out = capsys.readouterr().out
    if redirect is not None:
        redirect.write_text(out)
    return code, out


def _run_outside(words: list[str], folder: Path, redirect: Path | None) -> tuple[int, str]:
    """An outside solver's line (CaDiCaL, MiniZinc), run for real in ``folder``."""
    if shutil.which(words[0]) is None:
        if os.environ.get("CPMODELS_SOLVERS") == "require":
            pytest.fail(f"{words[0]} is required (CPMODELS_SOLVERS=require) but not installed")
        pytest.skip(f"{words[0]} is not installed (apt-get install cadical minizinc)")
    done = subprocess.run(words, cwd=folder, capture_output=True, text=True, timeout=120,
                          check=False)
    if redirect is not None:
        redirect.write_text(done.stdout)
    return done.returncode, done.stdout


def _serve_in_process(monkeypatch) -> list:
    """Make ``cpmodels serve`` answer two requests in-process instead of listening."""
    from fastapi.testclient import TestClient

    from cpmodels.web import connections

    answered: list = []

    def serve(app, host, port, listening):
        listening(port)
        client = TestClient(app)
        page, specs = client.get("/"), client.get("/api/specs")
        assert page.status_code == 200 and specs.status_code == 200
        answered.append([s["name"] for s in specs.json()["specs"]])

    monkeypatch.setattr(connections, "serve", serve)
    return answered


def _curl(block: Block) -> None:
    """The ``curl`` request of a block, sent to the app in-process; the JSON in the
    comment lines under it is the answer it must get."""
    from fastapi.testclient import TestClient

    from cpmodels.spec.bundled import bundled_specs
    from cpmodels.web.app import create_app

    text = block.source
    command = " ".join(line for line in text.splitlines() if not line.startswith("#"))
    words = shlex.split(command)
    url = next(w for w in words if "localhost" in w)
    body = json.loads(words[words.index("-d") + 1])
    comments = [line.lstrip("# ") for line in text.splitlines() if line.startswith("#")]
    app = create_app([bundled_specs()[name] for name in ("calendar_week", "calendar_day")])
    response = TestClient(app).post(url.split("localhost:8000", 1)[1], json=body)
    if response.headers["content-type"].startswith("application/x-ndjson"):
        # A stream: each JSON comment line is one of its lines (its keys), the rest is prose.
        lines = [json.loads(line) for line in response.text.splitlines() if line]
        for want in (json.loads(c) for c in comments if c.startswith("{")):
            assert any({k: got.get(k) for k in want} == want for got in lines), \
                f"{block.where}: no line {want}"
        return
    expected = json.loads(" ".join(comments))
    answer = response.json()
    assert {k: answer.get(k) for k in expected} == expected, block.where


@pytest.mark.parametrize("block", SHELL, ids=[b.where for b in SHELL])
def test_shell_examples_run(block, scratch, cluster_address, monkeypatch, capsys):
    if "curl " in block.source:
        _curl(block)
        return
    served = _serve_in_process(monkeypatch)
    for line, command, comment in _commands(block):
        run = command
        if block.shortened:
            run = _shorten(command, cluster_address() if "cluster" in command.lower()
                           else "")
        code, out = _run(run, scratch, monkeypatch, capsys)
        where = f"{block.path.relative_to(ROOT)}:{line}: {command}"
        # 1: proved unsolvable (what prove is for); 3: stopped by its time limit
        # 1 from decode: the solver's answer was "no solution"; 10 and 20: a SAT solver's
        # satisfiable and unsatisfiable
        allowed = (0, 1) if run.split()[1] in ("prove", "decode") else (0, 3) \
            if "--time-limit" in run else (0, 10, 20) if run.split()[0] in OUTSIDE else (0,)
        assert code in allowed, f"{where} exited {code}"
        if run == command:  # as written: what it says it prints, it prints
            printed = out.replace(",", "")
            for stated in STATED.findall(comment):
                assert stated.replace(",", "") in printed, f"{where}: no {stated} in {out!r}"
    if any(cmd.split()[:2] == ["cpmodels", "serve"] for _, cmd, _ in _commands(block)):
        assert served and all(served), f"{block.where}: serve answered nothing"


# --- python blocks -----------------------------------------------------------------------


def _comments(source: str) -> dict[int, str]:
    """The trailing comment of each line (1-based)."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string
    return found


@pytest.mark.parametrize("block", PYTHON, ids=[b.where for b in PYTHON])
def test_python_examples_run(block, scratch, monkeypatch):
    """Each statement runs (tracebacks name the document's own lines); a statement whose
    comment states a number in parentheses must show it in its value."""
    source = _shorten(block.source, "") if block.shortened else block.source
    monkeypatch.chdir(scratch)
    filename = str(block.path)
    padded = "\n" * block.line + source  # line numbers as in the document
    tree = ast.parse(padded, filename)
    comments = _comments(block.source)
    changed = {k + 1 for k, (a, b) in enumerate(zip(block.source.splitlines(),
                                                    source.splitlines())) if a != b}
    namespace: dict = {"__name__": "__example__"}
    for statement in tree.body:
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), filename, "eval"), namespace)
            own = statement.end_lineno - block.line
            stated = STATED.findall(comments.get(own, ""))
            if stated and own not in changed:
                shown = f"{value} {value!r}".replace(",", "")
                for number in stated:
                    assert number.replace(",", "") in shown, (
                        f"{block.path.relative_to(ROOT)}:{statement.end_lineno}: "
                        f"no {number} in {value!r}")
        else:
            exec(compile(ast.Module([statement], []), filename, "exec"), namespace)


# --- docstrings --------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["cpmodels.api", "cpmodels.backends.engine.session"])
def test_docstring_examples_run_as_doctests(module, scratch, monkeypatch):
    import importlib

    monkeypatch.chdir(scratch)
    found = importlib.import_module(module)
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        result = doctest.testmod(found, optionflags=doctest.ELLIPSIS
                                 | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{module} has no examples"
    assert result.failed == 0, report.getvalue()


def test_a_broken_example_names_its_file_and_line(tmp_path, scratch, monkeypatch):
    """What a reader gets when an example drifts (a method renamed): its file and line."""
    doc = tmp_path / "drift.md"
    body = "from cpmodels import api\n\napi.count('calendar_day', labels=['Oct', '6']).frame()\n"
    doc.write_text(f"# Drift\n\n```python\n{body}```\n")
    block = Block(doc, 3, "python", "", body)
    with pytest.raises(AttributeError) as failure:
        test_python_examples_run(block, scratch, monkeypatch)
    frames = [f for f in failure.traceback if str(f.path) == str(doc)]
    assert frames and frames[-1].lineno + 1 == 6  # line 6 of drift.md
