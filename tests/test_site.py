"""The engine's plan of a calendar (``GET /api/plan/...``) against the server's own counts,
and the static site (``cpmodels site``): its refusals, the tree it writes, and the site
played in headless Chromium from a plain static file server, online and then offline."""

from __future__ import annotations

import base64
import datetime as dt
import fcntl
import hashlib
import inspect
import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from conftest import SPECS, running_server, said_port, screenshot, settled, stop_process
from fastapi.testclient import TestClient
from test_editor_counts import DONE, board_link, counted, sweep_rows
from test_play_game import WAIT, _keyboard_place, _verdict, _within
from test_wasm import _needs_clang

from cpmodels.backends.engine import EngineSession
from cpmodels.errors import CpmodelsError
from cpmodels.geometry import Placement
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.render.scene import piece_colours
from cpmodels.spec import CalendarSpec, load_spec
from cpmodels.sweep import sweep_cover
from cpmodels.web import board, plans
from cpmodels.web.app import create_app
from cpmodels.web.limits import SearchPool
from cpmodels.web.plans import puzzle_parts, puzzle_plan
from cpmodels.web.play import board_layout, check_position
from cpmodels.web.puzzles import Puzzles
from cpmodels.web.routes.pages import SCRIPTS
from cpmodels.web.site import LOCK_FILE, SITE_MARKER, one_worker, without_comment_lines
from cpmodels.web.wording import plain

WEEK = SPECS / "calendar_week.yaml"
DAY = SPECS / "calendar_day.yaml"
LAPTOP = {"width": 1280, "height": 800}

# A small calendar; unless flipped, its pieces are never turned over (no face-up plan).
TINY = """\
kind: calendar
name: {name}
flip: {flip}
board:
  - "A B . ."
  - ". . . ."
groups:
  g: [A, B]
pieces:
  - {{name: I, cells: [[0, 0], [0, 1], [0, 2]]}}
  - {{name: L, cells: [[0, 0], [1, 0], [1, 1], [1, 2]]}}
"""


def _tiny(folder: Path, name: str = "tiny", *, flip: bool = False) -> Path:
    path = folder / f"tiny-{hashlib.sha256(name.encode()).hexdigest()[:8]}.yaml"
    path.write_text(TINY.format(name=json.dumps(name), flip=json.dumps(flip)))
    return path


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    tiny = _tiny(tmp_path_factory.mktemp("specs"))
    with TestClient(create_app([WEEK, DAY, tiny])) as client:
        yield client


def _refused(response, status: int = 404) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "message"}
    return body["error"]


def test_the_plan_route_serves_each_calendars_plan_and_refuses_the_rest(client, monkeypatch):
    week = load_spec(WEEK)
    for face_up in (False, True):
        got = client.get(f"/api/plan/calendar_week{'.face-up' * face_up}.json")
        assert got.status_code == 200
        assert got.json() == json.loads(json.dumps(puzzle_plan(week, face_up)))
    plan = client.get("/api/plan/tiny.json").json()
    assert (plan["spec"], plan["face_up"], plan["letters"], plan["copies"]) == (
        "tiny", False, ["I", "L"], {"I": 1, "L": 1})
    assert "never turned over" in _refused(client.get("/api/plan/tiny.face-up.json"))
    for file in ("nope.json", "nope.face-up.json", "calendar_week", "calendar_week.yaml",
                 ".json", "calendar_week.JSON"):
        _refused(client.get(f"/api/plan/{file}"))
    # the parts the page makes the plan from
    assert client.get("/api/puzzle/calendar_week").json() == json.loads(json.dumps(
        puzzle_parts(week)))
    assert client.get("/api/puzzle/tiny").json()["pieces"][0]["cells"] == [[0, 0], [0, 1],
                                                                           [0, 2]]
    _refused(client.get("/api/puzzle/nope"))
    # without the browser engine the pages ask the API: no plan is served
    with TestClient(create_app([WEEK], browser_engine=False)) as api_only:
        assert "serves no plans" in _refused(api_only.get("/api/plan/calendar_week.json"))
        assert "serves no puzzles" in _refused(api_only.get("/api/puzzle/calendar_week"))
        if plans.engine_built():  # nor the engine, so the editor's counts are the server's
            assert "is off" in _refused(api_only.get("/static/engine/engine.wasm"))
        assert api_only.get("/api/layout/calendar_week").status_code == 200
    # nor where the install built no engine.wasm
    monkeypatch.setattr(plans, "engine_built", lambda: False)
    assert "serves no plans" in _refused(client.get("/api/plan/calendar_week.json"))
    monkeypatch.undo()
    for page in ("/", "/index.html", "/edit", "/edit.html"):
        assert client.get(page).headers["content-type"].startswith("text/html")
    assert client.get("/index.html").text == client.get("/").text
    assert client.get("/edit.html").text == client.get("/edit").text
    for name, kind in (("engine.js", "text/javascript"), ("worker.js", "text/javascript"),
                       ("engine.wasm", "application/wasm")):
        if name == "engine.wasm" and not plans.engine_built():
            _refused(client.get(f"/static/engine/{name}"))
            continue
        answer = client.get(f"/static/engine/{name}")
        assert answer.headers["content-type"].startswith(kind)
        assert answer.content == resources.files("cpmodels.web").joinpath(
            f"static/engine/{name}").read_bytes()
    for name in ("other.js", "..%2Fpage.js", "engine.wasm.map"):
        _refused(client.get(f"/static/engine/{name}"))


def test_the_editor_makes_files_at_make_options_sizes_and_keeps_no_copy_of_them(client):
    """The editor's cut-file sizes are MakeOptions' defaults, written into the page by the
    server (its fields' first values and the JSON edit.js reads): edit.js holds none."""
    from cpmodels.make import MakeOptions

    page = client.get("/edit.html").text
    assert "__MAKE_" not in page
    found = re.search(r'<script type="application/json" id="make-sizes">([^<]*)</script>', page)
    assert found, "the editor's page carries make's sizes"
    o = MakeOptions()
    assert json.loads(found[1]) == {"cell": o.cell, "kerf": o.kerf, "clearance": o.clearance,
                                    "sheet": list(o.sheet), "gap": o.gap, "margin": o.margin}
    for field, value in (("cellmm", f"{o.cell:g}"), ("kerf", f"{o.kerf:g}"),
                         ("sheet", f"{o.sheet[0]:g}x{o.sheet[1]:g}")):
        assert re.search(rf'<input id="{field}"[^>]* value="{re.escape(value)}"', page), field
    script = client.get("/static/edit.js").text
    assert re.search(r"(clearance|gap|margin):\s*[\d.]", script) is None
    assert re.search(r"SHEET_MARGIN\s*=\s*[\d.]", script) is None


def test_no_solution_past_the_last_of_a_puzzle_with_none_says_so(client):
    for labels, said in ((["A"], "A has 1."), (["B"], "B has no solution.")):
        answer = client.post("/api/solution", json={"spec": "tiny", "labels": labels,
                                                    "index": 1})
        assert _refused(answer) and answer.json()["message"] == f"There is no solution 2: {said}"


def _option_ids(plan: dict) -> dict[tuple, int]:
    return {(piece, tuple(map(tuple, cells))): j
            for j, (piece, cells, kind) in enumerate(plan["options"]) if kind == 0}


@pytest.mark.parametrize("face_up", [False, True])
def test_a_dates_counts_from_the_plan_are_the_servers(client, face_up):
    """Each label's slack option leaves its cell open; a position's count on the plan's
    cover (prefix: the date's slack options, then the pieces' options) is check_position's
    on the date's own cover, for a few dates, on the empty board and with pieces placed."""
    spec = load_spec(WEEK)
    plan = client.get(f"/api/plan/calendar_week{'.face-up' * face_up}.json").json()
    cover, _ = sweep_cover(spec, face_up=face_up)
    assert plan["options"] == [[p.piece, [list(c) for c in p.cells], int(p.kind)]
                               for p in cover.placements]
    for label, option in plan["slack"].items():
        group, cells, kind = plan["options"][option]
        assert (kind, cells) == (1, [list(spec.label_cells[label])])
        assert label in spec.groups[group]
    assert set(plan["slack"]) == {label for labels in spec.groups.values() for label in labels}
    ids = _option_ids(plan)
    session = EngineSession(cover)
    for date in (dt.date(2024, 1, 1), dt.date(2025, 2, 28), dt.date(2026, 7, 4)):
        labels = spec.date_labels(date)
        prefix = [plan["slack"][label] for label in labels]
        instance = packing_instance(Query.of(spec, date=date, face_up=face_up))
        solution = sorted(session.first_solution(prefix))
        pieces = [cover.placements[j] for j in solution if j not in prefix]
        assert check_position(instance, pieces).status == "solved"
        for placed in (0, 1, 3):
            shown = [Placement(p.piece, p.cells) for p in pieces[:placed]]
            verdict = check_position(instance, shown)
            count = session.count(prefix + [ids[(p.piece, p.cells)] for p in shown])
            assert count == verdict.completions > 0, (date, placed)


def test_the_sites_worker_is_one_module_only_where_the_two_can_be_one():
    """The site's worker script holds engine.js in the place of its import; a worker that
    imports anything else, or an engine that declares a name the worker declares too
    (which one module cannot hold), stops the site's build instead of writing a worker that
    does not load."""
    worker = b'import {loadEngine} from "./engine.js";\nconst answerer = 1;\n'
    engine = b"const PAGE = 1;\nexport async function loadEngine() {}\n"
    assert one_worker(worker, engine) == engine + b"\nconst answerer = 1;\n"
    # the prose comments left out, and only they
    commented = b"  // how it loads\n" + engine
    assert one_worker(worker, commented) == engine + b"\nconst answerer = 1;\n"
    for bad_worker, bad_engine, said in (
            (worker + b'import {x} from "./dom.js";\n', engine, "imports"),
            (b"const answerer = 1;\n", engine, "imports"),
            (worker, engine + b'import {x} from "./dom.js";\n', "imports"),
            (worker, engine + b"class answerer {}\n", "both declare answerer")):
        with pytest.raises(AssertionError, match=said):
            one_worker(bad_worker, bad_engine)


KEPT_SOURCE = r"""const a = `first
// inside a template literal, kept
${b ? `${c /* } */}` : "}"}
// still inside, kept
`;
const d = "// a string" + '`' + /[/`]\/`/.test(e) + f / 2 / g;
/* a block comment
// inside it, kept
*/
const h = x.replace(/"/g, "'"); // a comment after code, kept
"""


def test_the_sites_worker_leaves_out_whole_comment_lines_alone():
    """Only a line that is a // comment in code is left out: never a line of a template
    literal (however its ${} nest), nor one after a string, a regular expression or a
    division holding a quote, a backtick or a slash, nor one inside a block comment."""
    assert without_comment_lines(KEPT_SOURCE) == KEPT_SOURCE
    dropped = KEPT_SOURCE.replace("const h", "  // dropped\n// dropped\nconst h")
    assert without_comment_lines(dropped) == KEPT_SOURCE
    assert without_comment_lines("// a\nx = 1;\n  //b\n") == "x = 1;\n"
    for misread in ("const a = `open\n", "/* open\n", "x = `${y\n"):
        with pytest.raises(AssertionError, match="misread"):
            without_comment_lines(misread)


def test_site_refuses_a_place_or_specs_it_cannot_take_and_writes_nothing(run_cli, tmp_path,
                                                                          monkeypatch):
    afile = tmp_path / "a-file"
    afile.write_text("mine")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: calendar\nname: [\n")
    dots = _tiny(tmp_path, "..")
    link = tmp_path / "link"
    link.symlink_to(theirs)
    new = tmp_path / "new"
    cases = [
        ((afile, WEEK), f"cannot write the site to {afile}: it is not a directory"),
        ((theirs, WEEK), "it holds files and no earlier site"),
        ((link, WEEK), "it is a symbolic link"),
        ((tmp_path / "none" / "site", _tiny(tmp_path)), "there is no directory"),
        ((new, bad), "bad.yaml"),
        ((new, SPECS / "pentominoes_6x10.yaml"), "the page shows calendars"),
        ((new, WEEK, WEEK), "two specs are named 'calendar_week'"),
        ((new, dots), "cannot be a file of the site"),
        ((new, _tiny(tmp_path, "bell\a")), "cannot be a file of the site"),
        ((new, tmp_path / "missing.yaml"), "missing.yaml"),
        (("", WEEK), "cannot write the site: the folder's name is empty"),
        ((new, _tiny(tmp_path, "a%20b")),
         "a spec named 'a%20b' cannot be a file of the site: a static server reads %20"),
        ((new, _tiny(tmp_path, "Con")), "Windows keeps the name CON for a device"),
        ((new, _tiny(tmp_path, "lpt1.old")), "Windows keeps the name LPT1 for a device"),
        ((new, _tiny(tmp_path, "calendar_day"), _tiny(tmp_path, "Calendar_Day")),
         "specs named 'calendar_day' and 'Calendar_Day' would be files whose names differ "
         "only by case"),
    ]
    for argv, said in cases:
        code, out, err = run_cli("site", *argv)
        assert code == 2, (argv, out, err)
        assert out == "" and err.count("\n") == 1 and said in err, (argv, err)
        assert "Traceback" not in err and "/api/" not in err, err
    monkeypatch.setattr(plans, "engine_built", lambda: False)
    code, out, err = run_cli("site", new, WEEK)
    assert code == 2 and err.count("\n") == 1
    assert "engine.wasm is not installed" in err and "clang" in err
    assert afile.read_text() == "mine" and not new.exists()
    assert not (tmp_path / "none").exists()
    assert [p.name for p in theirs.iterdir()] == ["notes.txt"]


def _files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}


def _listed(out: Path) -> tuple[str, list[str]]:
    worker = (out / "sw.js").read_text()
    version = re.search(r'^const VERSION = "([0-9a-f]+)";$', worker, re.M).group(1)
    files = json.loads(re.search(r"^const FILES = (\[.*\]);$", worker, re.M).group(1))
    return version, files


def test_an_earlier_site_is_written_over_and_nothing_else_is_touched(run_cli, tmp_path):
    out = tmp_path / "site"
    first, second = _tiny(tmp_path, "first"), _tiny(tmp_path, "second?50%")
    assert run_cli("site", out, first)[0] == 0
    earlier, _ = _listed(out)
    (out / "CNAME").write_text("puzzles.example\n")  # a file of the host's, kept
    # an earlier list naming files outside the site (by .., by a path from the root, through
    # a link): none of them is removed
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    (out / "elsewhere").symlink_to(outside)
    worker = (out / "sw.js").read_text()
    _, listed = _listed(out)
    hostile = [*listed, "../outside/keep.txt", str(outside / "keep.txt"), "elsewhere/keep.txt"]
    (out / "sw.js").write_text(worker.replace(f"const FILES = {json.dumps(listed)};",
                                              f"const FILES = {json.dumps(hostile)};"))
    code, said, _ = run_cli("site", out, second)
    assert code == 0 and f"python -m http.server -d {out}" in said
    assert "removed 3 files of the earlier site: api/board/start/first, api/layout/first, " \
        "api/puzzle/first\n" in said
    version, listed = _listed(out)
    assert version != earlier  # the browsers that kept the first site take the second
    assert _files(out) == {*listed, "sw.js", "CNAME"}
    assert (outside / "keep.txt").read_text() == "mine"
    # a name is the file's as it is: the pages ask for it quoted, the host unquotes it
    assert {"api/layout/second?50%", "api/puzzle/second?50%"} <= set(listed)
    assert not (out / "api/layout/first").exists()
    assert (out / "CNAME").read_text() == "puzzles.example\n"


def _snapshot(out: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under ``out``: a file's bytes, a link's target, a folder."""
    return {p.relative_to(out).as_posix():
            ("link", str(p.readlink())) if p.is_symlink()
            else ("dir", "") if p.is_dir() else ("file", p.read_bytes())
            for p in out.rglob("*")}


def test_a_site_refused_part_way_writes_nothing_and_runs_take_turns(run_cli, tmp_path):
    """Every path is checked before a file is written: an earlier site holding a folder or
    a link where the site writes a file is left exactly as it was, and said in words. A
    run while another holds OUT is refused. OUT holding only hidden entries (a Pages
    checkout) is a new site's, its entries kept."""
    tiny = _tiny(tmp_path, "tiny", flip=True)
    out = tmp_path / "site"
    assert run_cli("site", out, tiny)[0] == 0
    breaks = [
        ("api/puzzle/tiny", "dir", "it holds a folder or another thing that is "
         "not a file at api/puzzle/tiny, where the site writes a file; nothing "
         "was written"),
        ("sw.js", "link", "it holds a symbolic link at sw.js, where the site writes a file; "
         "nothing was written"),
        ("api/specs", "link", "it holds a symbolic link at api/specs"),
        ("api/puzzle", "link", "it holds a symbolic link at api/puzzle, where the site writes a "
         "folder"),
        ("static/engine", "file", "it holds a file at static/engine, where the site writes a "
         "folder"),
    ]
    for path, kind, said in breaks:
        target = out / path
        kept = tmp_path / "kept"
        target.rename(kept)
        if kind == "dir":
            target.mkdir()
        elif kind == "link":
            target.symlink_to(kept)  # the file or folder as it was, through a link
        else:
            target.write_text("mine")
        before = _snapshot(out)
        code, said_out, err = run_cli("site", out, tiny)
        assert code == 2 and said_out == "" and err.count("\n") == 1, (path, err)
        assert f"cannot write the site to {out}: {said}" in err, (path, err)
        assert "name the file itself" not in err
        assert _snapshot(out) == before, path  # not one file rewritten
        if kind == "dir":
            target.rmdir()
        else:
            target.unlink()
        kept.rename(target)
    # another run holds the lock, part-way (its sw.js not yet written): refused as such
    (out / "sw.js").rename(tmp_path / "sw.js")
    with (out / LOCK_FILE).open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        before = _snapshot(out)
        code, _, err = run_cli("site", out, tiny)
        assert _snapshot(out) == before
    assert code == 2 and err.count("\n") == 1, err
    assert "another cpmodels site run is writing there now" in err, err
    (tmp_path / "sw.js").rename(out / "sw.js")
    assert run_cli("site", out, tiny)[0] == 0  # the lock let go: the site is written
    assert not (out / LOCK_FILE).exists()  # and its file removed by the run that held it
    # a checkout holding hidden entries alone is a new site's place; they are kept
    pages = tmp_path / "pages"
    (pages / ".git").mkdir(parents=True)
    (pages / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (pages / ".nojekyll").write_text("")
    (pages / ".DS_Store").write_bytes(b"\0\1")
    assert run_cli("site", pages, tiny)[0] == 0
    assert (pages / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert (pages / ".DS_Store").read_bytes() == b"\0\1"
    assert (pages / "index.html").is_file() and (pages / "sw.js").is_file()
    assert LOCK_FILE not in _listed(pages)[1]


def test_the_site_is_every_file_it_lists_each_page_marked_and_addressed_relatively(site):
    out, said = site
    version, listed = _listed(out)
    assert _files(out) == {*listed, "sw.js"}  # the lock file removed when done
    assert f"wrote {len(listed) + 1} files" in said and f"-d {out}" in said
    digest = hashlib.sha256()
    for path in sorted(listed):
        data = (out / path).read_bytes()
        digest.update(f"{path}\0{len(data)}\0".encode() + data)
    assert digest.hexdigest()[:16] == version
    for need in ("index.html", "edit.html", "manifest.webmanifest", "icon.svg",
                 "static/page.js", "static/engine/engine.wasm",
                 "static/engine/worker.js", "api/specs", "api/grids",
                 "api/board/pools/square", "api/board/start/calendar_week",
                 "api/layout/calendar_week", "api/puzzle/calendar_week",
                 "api/puzzle/calendar_day"):
        assert need in listed, need
    for page in ("index.html", "edit.html"):
        text = (out / page).read_text()
        assert text.count(SITE_MARKER) == 1 and 'href="manifest.webmanifest"' in text
    # the engine's worker one script: worker.js with engine.js in the place of its import;
    # it and every other script less the lines that are a comment alone
    assert "static/engine/engine.js" not in listed
    source = resources.files("cpmodels.web").joinpath("static")
    parts = [source.joinpath(f"engine/{name}").read_text() for name in ("worker.js", "engine.js")]
    scripts = {"static/engine/worker.js":
               parts[0].replace('import {loadEngine} from "./engine.js";', parts[1])}
    scripts.update((f"static/{name}", source.joinpath(name).read_text()) for name in SCRIPTS)
    written = {path: (out / path).read_text() for path in scripts}
    for path, whole in scripts.items():  # (no comment line is in a template)
        assert written[path] == "\n".join(line for line in whole.split("\n")
                                           if not re.match(r"\s*//", line)), path
    worker = "static/engine/worker.js"
    assert len(written[worker]) < 0.85 * len(scripts[worker])
    assert sum(map(len, written.values())) < 0.9 * sum(map(len, scripts.values()))
    manifest = json.loads((out / "manifest.webmanifest").read_text())
    assert (manifest["start_url"], manifest["display"]) == (".", "standalone")
    assert manifest["icons"][0]["src"] in listed
    for path in listed:
        if path.endswith((".html", ".js")):
            text = (out / path).read_text()
            assert not re.search(r"""["'`(]/(api|static)\b""", text), path
    # the data files are the server's answers
    with TestClient(create_app([WEEK, DAY, SPECS / "calendar_week_11.yaml"])) as client:
        for path in ("api/grids", "api/layout/calendar_day", "api/board/start/calendar_week",
                     "api/puzzle/calendar_week_11"):
            assert (out / path).read_bytes() == client.get(f"/{path}").content, path
        served = client.get("/api/specs").json()
    assert json.loads((out / "api/specs").read_text())["specs"] == served["specs"]
    assert served["specs"][0]["name"] == "calendar_week"


STATIC_SERVING = r"^Serving HTTP on \S+ port (\d+)"  # what Python's file server says


@contextmanager
def _hosting(out: Path) -> Iterator[str]:
    """``out`` served by Python's plain static file server (no cpmodels in it)."""
    host = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1",
                             "0", "-d", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = f"http://127.0.0.1:{said_port(host, STATIC_SERVING)}/"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the static server did not start"
                time.sleep(0.05)
        yield url
    finally:
        stop_process(host)


@pytest.fixture(scope="module")
def static_host(site):
    with _hosting(site[0]) as url:
        yield url


ENGINE_SAYS = ("document.querySelector('#answers-by').textContent"
               ".startsWith('Answers come from the engine in this browser')")


def _play_today(page, out: Path) -> None:
    """Play today's calendar_week (the browser's today) to the end by keyboard, each
    verdict the count the engine finds here for that position."""
    spec = load_spec(WEEK)
    year, month, day = page.evaluate(
        "(() => { const d = new Date(); return [d.getFullYear(), d.getMonth() + 1, "
        "d.getDate()]; })()")
    labels = spec.date_labels(dt.date(year, month, day))
    plan = puzzle_plan(spec, False)
    layout = json.loads((out / "api/layout/calendar_week").read_text())
    cover, _ = sweep_cover(spec)
    session = EngineSession(cover)
    prefix = [plan["slack"][label] for label in labels]
    pieces = [cover.placements[j] for j in sorted(session.first_solution(prefix))
              if j not in prefix]
    _verdict(page, 0)
    page.focus("#tray .tile")
    for n, p in enumerate(pieces, 1):
        _keyboard_place(page, layout, p.piece, p.cells)
        _verdict(page, n)
        said = page.inner_text("#feedback")
        if n < len(pieces):
            count = session.count(prefix + [cover.placements.index(q) for q in pieces[:n]])
            assert f"{count:,} solution" in said and "still possible" in said, (n, said)
        else:
            assert said == f"{' '.join(labels)}: solved! Every piece fits.", said


def test_the_site_plays_today_from_a_static_server_and_again_offline(browser, site,
                                                                     static_host, tmp_path):
    out, _ = site
    context = browser.new_context(viewport=LAPTOP, reduced_motion="reduce")  # a still picture
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(static_host)
        page.wait_for_function(ENGINE_SAYS, timeout=WAIT)
        _play_today(page, out)
        # the service worker keeps the puzzle opened: offline, a reload plays again
        page.wait_for_function("document.querySelector('#offline-said').textContent !== ''",
                               timeout=WAIT)  # the puzzle's files kept for play offline
        context.set_offline(True)
        # offline, a reload opens the board solved, and the daily record kept
        page.reload()
        page.wait_for_selector("#solved:not([hidden])", timeout=WAIT)
        page.click("#stats-button")
        played = page.inner_text('#stats-numbers dd[data-stat="played"]')
        solved = page.inner_text('#stats-numbers dd[data-stat="solved"]')
        assert (played, solved) == ("1", "1 (100%)"), (played, solved)
        assert page.locator("#stats-calendar a.solved.today").count() == 1
        page.evaluate("localStorage.clear()")
        page.reload()
        page.wait_for_function(ENGINE_SAYS, timeout=WAIT)
        _play_today(page, out)
        screenshot(page, tmp_path, "site-offline.png", "CPMODELS_SCREENSHOT_SITE_OFFLINE")
        assert errors == []
    finally:
        context.close()


NO_ENGINE = ("This browser could not start the puzzle engine (WebAssembly or workers may be "
             "blocked, or a file of the site is missing), and this site has no server to ask.")
# a worker that loads, then is lost at its first question
LOST_WORKER = ("onmessage = ({data}) => { if (data.module) postMessage({ready: true}); "
               "else throw new Error('lost'); };")
PHONE = {"width": 390, "height": 844}


def _open_cells(page) -> list[str]:
    """The labels the play board shows open."""
    return page.eval_on_selector_all("#play-board text.open", "els => els.map(e => e.textContent)")


def _menus(page) -> list[str]:
    return page.eval_on_selector_all("#labels-box select", "els => els.map(e => e.value)")


def test_the_site_without_its_engine_says_so_and_still_shows_the_date(browser, site,
                                                                      static_host):
    """No server to fall back to on the site: wasm blocked, a plan missing, or a worker
    lost at its first question, the page says so in words (never HTTP 501), the footer
    says the engine did not load, and the board shows the date's cells open."""
    blocked = {"wasm": ("**/static/engine/engine.wasm", lambda route: route.abort()),
               "plan": ("**/api/puzzle/**", lambda route: route.fulfill(status=404, body="")),
               "worker": ("**/static/engine/worker.js",
                          lambda route: route.fulfill(body=LOST_WORKER,
                                                      content_type="text/javascript"))}
    for (what, (pattern, handler)), viewport in zip(blocked.items(), (LAPTOP, PHONE, LAPTOP)):
        context = browser.new_context(viewport=viewport, service_workers="block")
        try:
            page = context.new_page()
            page.route(pattern, handler)
            page.goto(f"{static_host}?spec=calendar_week&date=2024-02-29")
            page.wait_for_function(
                "t => document.querySelector('#feedback').textContent === t", arg=NO_ENGINE,
                timeout=WAIT)
            assert page.inner_text("#answers-by") == (
                "The puzzle engine did not load in this browser, and this site has no "
                "server: no answers can be given here."), what
            assert sorted(_open_cells(page)) == ["29", "Feb", "Thu"], what
            assert _menus(page) == ["Feb", "29", "Thu"], what
            assert page.locator("#feedback").is_visible()
            settled(page)
            box = page.locator("#play-board").bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5
            text = page.inner_text("body")
            assert "501" not in text and "server could not answer" not in text, what
        finally:
            context.close()


def test_the_menus_and_the_board_follow_a_linked_date_before_any_answer(browser, site,
                                                                       static_host):
    """A linked date's labels are in the menus and open on the board while the engine has
    not answered (its answers held back), the verdict says it is counting; "Use these
    labels" keeps them; a solved first day of year 1 offers no day before it."""
    context = browser.new_context(viewport=LAPTOP, service_workers="block")
    try:
        page = context.new_page()
        page.goto(f"{static_host}?spec=calendar_week&date=2024-02-29&engine_delay=10000")
        page.wait_for_selector("#play-board text.open", timeout=WAIT)
        page.wait_for_function("document.querySelector('#feedback').textContent !== ''",
                               timeout=WAIT)
        assert sorted(_open_cells(page)) == ["29", "Feb", "Thu"]
        assert _menus(page) == ["Feb", "29", "Thu"]
        assert page.inner_text("#feedback") == "Feb 29 Thu: counting the solutions ..."
        page.goto(f"{static_host}?spec=calendar_week&date=2024-02-29&view=solutions"
                  "&engine_delay=10000")
        page.wait_for_selector("#labels-box select", timeout=WAIT)
        assert _menus(page) == ["Feb", "29", "Thu"]
        page.click("#use-labels")
        assert "labels=Feb,29,Thu" in page.url and _menus(page) == ["Feb", "29", "Thu"]
        # the first day there is: solved, and no day before it to play
        spec = load_spec(WEEK)
        labels = spec.date_labels(dt.date(1, 1, 1))
        plan = puzzle_plan(spec, False)
        cover, _ = sweep_cover(spec)
        prefix = [plan["slack"][label] for label in labels]
        solved = [{"piece": cover.placements[j].piece,
                   "cells": [list(c) for c in cover.placements[j].cells]}
                  for j in sorted(EngineSession(cover).first_solution(prefix))
                  if j not in prefix]
        page.evaluate("kept => localStorage.setItem("
                      "'cpmodels-play:calendar_week:0001-01-01:any', kept)", json.dumps(solved))
        page.goto(f"{static_host}?spec=calendar_week&date=0001-01-01")
        page.wait_for_selector("#solved:not([hidden])", timeout=WAIT)
        assert page.inner_text("#feedback").endswith("solved! Every piece fits.")
        assert page.locator("#yesterday").is_hidden()
        assert page.locator("#another-date").is_visible()
    finally:
        context.close()


def test_serve_without_the_browser_engine_serves_no_plans(run_cli, monkeypatch):
    """``serve --no-browser-engine``: the pages ask the server for every answer."""
    from cpmodels.web import connections

    plans_served = []

    def serve(app, host, port, listening):
        with TestClient(app) as client:
            plans_served.append(client.get("/api/plan/calendar_day.json").status_code)

    monkeypatch.setattr(connections, "serve", serve)
    assert run_cli("serve", "calendar_day")[0] == 0
    assert run_cli("serve", "calendar_day", "--no-browser-engine")[0] == 0
    assert plans_served == [200, 404]


def test_a_puzzle_whose_name_is_quoted_in_addresses_is_kept_for_offline_play(browser, run_cli,
                                                                             tmp_path):
    """The service worker keeps each file at the address the pages ask for it by: a name
    with ? and % in it quoted, as the pages quote it."""
    if not plans.engine_built():
        _needs_clang()
    out = tmp_path / "site"
    assert run_cli("site", out, _tiny(tmp_path, "q?x%"))[0] == 0
    assert (out / "api/layout/q?x%").is_file()
    context = browser.new_context(viewport=LAPTOP)
    try:
        with _hosting(out) as url:
            page = context.new_page()
            page.goto(url)
            page.wait_for_function("document.querySelector('#offline-said').textContent "
                                   "!== ''", timeout=WAIT)  # its files kept
            context.set_offline(True)
            page.reload()
            page.wait_for_function(ENGINE_SAYS, timeout=WAIT)
            _verdict(page, 0)
            assert page.inner_text("#feedback") == "1 solution still possible from here"
            # a puzzle with no solution has no solution 2 either, said so in words
            page.goto(f"{url}?spec=q%3Fx%25&labels=B&view=solutions&solution=2")
            page.click("#reveal")
            page.wait_for_function("document.querySelector('#error').textContent !== ''",
                                   timeout=WAIT)
            said = page.inner_text("#error")
            assert said == "there is no solution 2: B has no solution; showing solution 1", said
    finally:
        context.close()


def test_the_editor_counts_on_the_site_and_an_edit_cancels_the_count(browser, static_host,
                                                                    run_cli, tmp_path):
    """On the static site (no server) the editor starts from the bundled month/day
    calendar; turning its pieces face up while it counts (the engine slowed) cancels that
    count, whose rows never reach the heatmap; the heatmap then holds the sweep of the
    YAML the board's fields make, and the board's check says its arithmetic."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    workers: list[str] = []
    ended: list[str] = []

    def started(worker) -> None:
        workers.append(worker.url)
        worker.on("close", lambda w: ended.append(w.url))

    page.on("worker", started)
    try:
        page.goto(f"{static_host}edit.html?engine_delay=150")
        page.wait_for_function("document.querySelector('footer').textContent.startsWith("
                               "'Counts come')", timeout=WAIT)
        assert page.locator("footer").inner_text() == (
            "Counts come from the engine in this browser (2 workers), and so does the "
            "design question (Try them); DXF and the prints need the cpmodels server "
            "(cpmodels serve); the laser's SVG is made here.".replace(
                "2 workers", page.evaluate("`${navigator.hardwareConcurrency} workers`")))
        page.select_option("#start", "calendar_day")
        page.wait_for_function("document.querySelector('#summary').textContent"
                               ".startsWith('counting')", timeout=WAIT)
        page.uncheck("#flip")  # an edit while the first count runs
        page.wait_for_function(DONE, timeout=WAIT)
        fields = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        assert fields["flip"] is False and fields["name"] == "calendar_day"
        made = tmp_path / "drawn.yaml"
        made.write_text(board.to_yaml(fields))
        want = sweep_rows(run_cli, made, tmp_path)
        assert counted(page) == want and len(want) == 372
        # the first count's running search was ended with its worker, and a fresh one
        # took its place
        assert ended and len(workers) > len(ended)
        assert all(u.endswith("static/engine/worker.js") for u in workers)
        spec = board.board_spec(fields)
        assert page.locator("#arith").inner_text() == board.arithmetic(spec)["message"]
        assert page.locator("#errors").inner_text() == ""
        # boards the page refuses before the engine is asked, each in a sentence (and
        # refused by the server's check too)
        rows = fields["board"]
        first = rows[0].split()
        hostile = {
            "no cell": {**fields, "board": [rows[0].replace(first[0], ".", 1), *rows[1:]]},
            "twice": {**fields, "board": [rows[0].replace(first[1], first[0], 1), *rows[1:]]},
            "no group": {**fields, "groups": {**fields["groups"],
                                              "month": fields["groups"]["month"][1:]}},
            "two groups": {**fields, "groups": {**fields["groups"], "extra": ["Jan"]}},
            "date group": {**fields, "board": [rows[0].replace(first[0], ".", 1), *rows[1:]],
                           "groups": {**fields["groups"],
                                      "month": fields["groups"]["month"][1:]}},
            "count": {**fields, "pieces": [{**fields["pieces"][0], "count": [2, 1]}]},
            "cells": {**fields, "pieces": [{"name": "X", "cells": [[0.5, 0]]}]},
        }
        said = page.evaluate("""async (boards) => {
          const { boardInput } = await import("./static/counts.js");
          return Object.fromEntries(Object.entries(boards).map(([what, fields]) => {
            try { boardInput(fields); return [what, "read"]; }
            catch (e) { return [what, e.message]; } })); }""", hostile)
        assert said == {
            "no cell": f"Label {first[0]} of the group month is on no cell of the board.",
            "twice": f"Label {first[0]} is drawn on two cells of the board.",
            "no group": f"Label {first[0]} is on the board but in no group: add it to a "
                        "group, or make its cell a plain one.",
            "two groups": "Label Jan is in two groups (month and extra); a label belongs "
                          "to one.",
            "date group": "The group month must hold 12 labels in calendar order, not 11.",
            "count": f"The count of {fields['pieces'][0]['name']} is not a whole number of "
                     "copies (nor the fewest and the most, in that order).",
            "cells": "The cells of X are not pairs of whole numbers."}
        for what, bad in hostile.items():
            assert not board.check(bad)["valid"], what
        # a board whose cover the core will not make: its refusal, in its words
        f = {"name": "F", "count": [0, 1], "cells": [[0, 1], [0, 2], [1, 0], [1, 1], [2, 1]]}
        big = {"grid": "square", "board": [" ".join(["A", *"." * 19])] + [" ".join("." * 20)] * 19,
               "groups": {"g": ["A"]}, "pieces": [{**f, "name": f"F{k}"} for k in range(160)]}
        page.goto(f"{static_host}edit.html?large#board={board_link(big)}")
        page.wait_for_function("document.querySelector('#errors').textContent.length > 0",
                               timeout=WAIT)
        assert page.locator("#errors").inner_text() == (
            "The problem is too large: up to 512,000 placements (1280 piece orientations x "
            "400 cells); the limit is 500,000. Use a smaller board or fewer distinct pieces.")
        assert errors == []
    finally:
        context.close()


# --- a board drawn in the editor, played from its link on the site --------------------------

DRAWN = {"name": "triangle_calendar", "grid": "triangle",
         "board": ["A . . . . . . . .", ". . . . . . . . B", ". . C . . . . . ."],
         "groups": {"g": ["A", "B", "C"]},
         "pieces": [{"name": "T", "count": 3, "cells": [[0, 0], [0, 1], [0, 2]]},
                    {"name": "Q", "cells": [[0, 0], [0, 1], [0, 2], [0, 3]]},
                    {"name": "H", "cells": [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]},
                    {"name": "L", "cells": [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]]},
                    {"name": "D", "cells": [[0, 0], [0, 1]]}]}
# Links the page cannot play, each said in the server's words on the site too.
STRIP = {"grid": "triangle", "board": ["A . . . . ."], "groups": {"g": ["A"]},
         "pieces": [{"name": "D", "cells": [[0, 0], [0, 1]]},
                    {"name": "T", "cells": [[0, 0], [0, 1], [0, 2]]},
                    {"name": "H", "count": [0, 1], "cells": DRAWN["pieces"][2]["cells"]}]}
WIDE = {"grid": "square", "groups": {"g": ["A"]}, "pieces": [{"name": "m", "cells": [[0, 0]],
                                                            "count": [0, 1000]}],
        "board": [" ".join(["A", *"." * 20])] + [" ".join("." * 21)] * 20}
HOSTILE_LINKS = {  # (drawn.js reads many more as the server does: the test below)
    "bad base64": "%%%", "bad JSON": base64.urlsafe_b64encode(b"{board").decode(),
    "no cells": board_link({**DRAWN, "board": []}),
    "cannot fill": board_link({**DRAWN, "pieces": DRAWN["pieces"][4:]}),
    "fits nowhere": board_link(STRIP), "too many cells": board_link(WIDE),
    "unknown grid": board_link({**DRAWN, "grid": "octagon"}),
    "huge numbers": board_link({**DRAWN, "pieces": [{"name": "D", "count": 10**30,
                                                     "cells": [[0, 0], [0, 10**40]]}]}),
    "lone surrogate": board_link({**DRAWN, "groups": {"g": ["A", "B", "C\ud800"]}}),
    "nested deep": base64.urlsafe_b64encode(
        b'{"board": ' + b"[" * 5000 + b"]" * 5000 + b"}").decode().rstrip("="),
    # a label holding a comma (%2C in the address) stays one label: the one named is zz
    "comma in a label": ("&labels=x%2Cy,zz", board_link(
        {**DRAWN, "board": ["x,y" + DRAWN["board"][0][1:], *DRAWN["board"][1:]],
         "groups": {"g": ["x,y", "B", "C"]}})),
    "a date": ("&date=2026-01-01", board_link(DRAWN)),
    "too long": "A" * 100_001,
    "two labels": ("&labels=A,B", board_link(DRAWN)),
}


def _drawn_cells(page) -> list[tuple[str, list[float]]]:
    """The play board's cells as drawn: each cell and its corners' pixels."""
    return [(cell, [float(v) for p in points.split() for v in p.split(",")])
            for cell, points in page.eval_on_selector_all(
                "#play-board polygon.cell",
                "els => els.map(e => [e.dataset.cell, e.getAttribute('points')])")]


def _said_of_links(page, base: str) -> dict[str, str]:
    """The sentence the play page says of each hostile link (a fresh page load each)."""
    said = {}
    for k, (what, given) in enumerate(HOSTILE_LINKS.items()):
        query, link = given if isinstance(given, tuple) else ("", given)
        page.goto(f"{base}?link={k}{query}#board={link}")
        page.wait_for_function("document.querySelector('#error').textContent.length > 0",
                               timeout=WAIT)
        said[what] = page.inner_text("#error")
    return said


def test_a_drawn_boards_link_plays_on_the_site_as_on_the_server(browser, site, static_host,
                                                               tmp_path):
    """A triangle board's share link on the static site: the engine in the browser makes it
    a puzzle, played to the end by keyboard with the count after each move the native
    count; board and tray in view on a laptop and a phone. On the server (its API
    answering) the same link makes the puzzle of the same name and draws the same cells,
    and links it cannot play are said in the same words on both."""
    link = board_link(DRAWN)
    spec = board.board_spec(DRAWN)
    layout = board_layout(spec)
    cover, _ = sweep_cover(spec)
    session = EngineSession(cover)
    prefix = [puzzle_plan(spec, False)["slack"]["A"]]
    pieces = [cover.placements[j] for j in sorted(session.first_solution(prefix))
              if j not in prefix]
    errors: list[str] = []
    drawn, said = {}, {}
    for where, viewport in (("site", LAPTOP), ("site", PHONE)):
        context = browser.new_context(viewport=viewport, service_workers="block")
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"{static_host}#board={link}")
            page.wait_for_function(ENGINE_SAYS, timeout=WAIT)
            _verdict(page, 0)
            assert page.inner_text("#feedback") == (
                f"{session.count(prefix):,} solutions still possible from here")
            names = {page.locator("#spec").input_value()}
            assert f"spec={min(names)}" in page.url and f"#board={link}" in page.url
            board_box, tray_box = (_within(page, part, viewport)
                                   for part in ("#play-board", "#tray"))
            # a piece's copies left are said under its shape, never over it
            copies = page.eval_on_selector_all("#tray .tile .copies", """els => els.map((e) =>
                [e.textContent, e.getBoundingClientRect().top,
                 e.parentElement.querySelector("svg").getBoundingClientRect().bottom])""")
            assert copies and all(top >= bottom - 0.5 for _, top, bottom in copies), copies
            # side by side on a laptop, the tray below on a phone: apart either way
            assert (board_box["x"] + board_box["width"] <= tray_box["x"] or
                    board_box["y"] + board_box["height"] <= tray_box["y"])
            if viewport is PHONE:
                assert _drawn_cells(page) == drawn["site"]
                screenshot(page, tmp_path, "site-drawn-phone.png",
                           "CPMODELS_SCREENSHOT_SITE_DRAWN_PHONE")
                continue
            drawn[where] = _drawn_cells(page)
            page.focus("#tray .tile")
            for n, p in enumerate(pieces, 1):
                if page.evaluate("document.activeElement.id") == "play-board":
                    page.keyboard.press("Escape")  # a piece with copies left stays chosen
                    page.focus('#tray .tile[tabindex="0"]')
                _keyboard_place(page, layout, p.piece, p.cells)
                _verdict(page, n)
                if n < len(pieces):
                    count = session.count(prefix + [cover.placements.index(q)
                                                    for q in pieces[:n]])
                    assert page.inner_text("#feedback") == (
                        f"{count:,} solution{'s' * (count != 1)} still possible from here"), n
            assert page.inner_text("#feedback") == "A: solved! Every piece fits."
            screenshot(page, tmp_path, "site-drawn.png", "CPMODELS_SCREENSHOT_SITE_DRAWN")
            said["site"] = _said_of_links(page, static_host)
        finally:
            context.close()
    app = create_app([WEEK, DAY, SPECS / "calendar_week_11.yaml"])
    with running_server(app) as server:
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            page.goto(f"{server}/#board={link}")
            page.wait_for_function("document.querySelector('#answers-by').textContent === "
                                   "'Answers come from the cpmodels server.'", timeout=WAIT)
            _verdict(page, 0)
            assert page.inner_text("#feedback") == (
                f"{session.count(prefix):,} solutions still possible from here")
            served = _drawn_cells(page)
            names.add(page.locator("#spec").input_value())  # the server's name for it
            said["server"] = _said_of_links(page, f"{server}/")
        finally:
            context.close()
    assert [cell for cell, _ in served] == [cell for cell, _ in drawn["site"]]
    assert all(len(a) == len(b) and all(abs(x - y) <= 0.01 for x, y in zip(a, b))
               for (_, a), (_, b) in zip(served, drawn["site"]))
    assert said["site"] == said["server"]
    assert len(names) == 1 and min(names).startswith("drawn-")
    assert said["site"]["no cells"] == (
        "This link's board cannot be played. The board has no cells yet: put cells on the "
        "board. Here is 10-piece weekday calendar instead.")
    assert said["site"]["fits nowhere"].startswith(
        "This link's board cannot be played. Piece 3: piece 'H' (6 cells) fits nowhere")
    assert said["site"]["too many cells"].startswith(
        "This link's board cannot be played. The board has 441 cells; the editor takes at "
        "most 400.")
    assert said["site"]["bad JSON"].startswith("This link's board could not be read")
    assert said["site"]["lone surrogate"] == (
        "This link's board cannot be played. The text holds half of a UTF-16 surrogate pair "
        "alone (an escape such as \\ud800 without its other half), which is no character; "
        "write the character itself. Here is 10-piece weekday calendar instead.")
    assert said["site"]["nested deep"].startswith(
        "This link's board cannot be played. The request body is nested more than 32 levels "
        "deep.")
    assert said["site"]["comma in a label"].endswith(
        'has no label "zz". Showing its labels x,y instead.')
    assert said["site"]["too long"].startswith(
        "This link's board is too long to read: it has 100,001 characters, and a board's "
        "link has at most 100,000.")
    assert said["site"]["a date"].endswith(
        "has no dates: its puzzles are chosen by labels. Showing its labels A instead.")
    assert said["site"]["two labels"].endswith(
        "The link gives two labels of the group g; a puzzle takes one of each. Showing its "
        "labels A instead.")
    assert errors == []


def test_an_engine_question_out_of_time_ends_its_worker_with_the_servers_words(
        browser, static_host):
    """A question the engine has not answered within the server's time limit (the same
    constant, or less where the address asks: here a slowed engine) ends its worker and is
    refused as the server refuses one out of time, at the limit."""
    source = resources.files("cpmodels.web").joinpath("static/answers.js").read_text()
    limit = re.search(r"export const TIME_LIMIT_S = (\d+);", source)
    assert limit is not None and float(limit[1]) == inspect.signature(
        create_app).parameters["time_limit"].default == inspect.signature(
        SearchPool).parameters["time_limit"].default
    page = browser.new_page()
    try:
        page.goto(f"{static_host}?spec=calendar_week&engine_delay=10000&engine_time_limit=0.4")
        _verdict(page, 0)
        assert page.inner_text("#feedback") == (
            "Counting the solutions left from this position took longer than the server "
            "allows; place a few more pieces and try again.")
        assert page.evaluate("performance.now()") < 9000  # ended, not waited for
    finally:
        page.close()


def _with(**changes) -> dict:
    return {**DRAWN, **changes}


def _piece(**changes) -> dict:
    """DRAWN with its last piece changed."""
    return _with(pieces=[*DRAWN["pieces"][:4], {**DRAWN["pieces"][4], **changes}])


SQUARE_BOARD = {"board": ["A B .", ". . .", ". . C"], "groups": {"g": ["A", "B", "C"]},
                "pieces": [{"name": "I", "shape": "###"}, {"name": "L", "shape": ["#.", "##"]}]}
# Boards drawn in the editor, each read in the browser as the server reads it.
BOARDS = [
    DRAWN, SQUARE_BOARD, _with(board=[]), _with(board=["# # #"]), _with(grid="octagon"),
    _with(grid="cube"), _with(grid=5), _with(pieces=[]), _with(pieces="abc"), _with(pieces=[5]),
    _with(kind="packing"), _with(kind=None), _with(colour="red"), _with(name="a b/c"),
    _with(name=""), _with(name=5), _with(flip="maybe"), _with(description=5),
    _with(board=["A . . . . . . . .", ". . . . . . . . A", ". . C . . . . . ."]),
    _with(board="A . .\n. B C"), _with(board=5), _with(board=["A . . .", ". . B C", ". ."]),
    _with(board=[" ".join("." * 30)] * 60), _with(groups={}), _with(groups=[]),
    _with(groups={"g": []}), _with(groups={"g": "ABC"}), _with(groups={"g": ["A", "B", "Z"]}),
    _with(groups={"g": ["A", "B", "C"], "h": ["A"]}), _with(groups={"month": ["A", "B", "C"]}),
    _with(groups={"a b": ["A", "B", "C"]}), _with(groups={"g": ["A", "B", "C d"]}),
    _piece(cells=[[0, 0], [0, 5]]), _piece(shape="##"), _piece(cells="abc"),
    _piece(cells=[[0, 0], [0, 1.5]]), _piece(cells=[[0, 0], [0, 20000]]),
    _piece(cells=[[0, 0], [0, 1e30]]), _piece(count=1e30), _piece(count=5000),
    _piece(count=[2, 1]), _piece(count=[0, 1]), _piece(letter="TT"), _piece(rotate="no"),
    _piece(name="T"), _piece(cells=[[0, 0], [0, 1], [0, 0]]), _piece(cells=[[0, 0], [0, 1, 2]]),
    _piece(cells=[]), _piece(x=1), _piece(name=None), _piece(cells=[[0, c] for c in range(11)]),
    _with(pieces=[{"cells": [[0, 0]]}]), _with(pieces=[{"name": "D"}]),
    {**SQUARE_BOARD, "pieces": [{"name": "I", "shape": "#x#"}, SQUARE_BOARD["pieces"][1]]},
    {**SQUARE_BOARD, "pieces": [{"name": "I", "shape": "#.#"}, SQUARE_BOARD["pieces"][1]]},
    {**SQUARE_BOARD, "pieces": [{"name": "I", "shape": "..."}, SQUARE_BOARD["pieces"][1]]},
    {**SQUARE_BOARD, "pieces": [{"name": f"p{i}", "cells": [[0, 0], [0, 1], [0, 2]],
                                 "count": [0, 1]} for i in range(20)]},
    {**SQUARE_BOARD, "rotate": 0}, WIDE,
    # every row that is not text is named, as the server names them
    _with(board=[1, 2, 3]), _with(board=["A . .", 5, None]),
    {**SQUARE_BOARD, "pieces": [{"name": "I", "shape": ["#", 1, [2]]}]},
    # white space as Python splits a row and as the validator reads a name
    *(_with(board=[f"A{space}. . . . . . . .", *DRAWN["board"][1:]])
      for space in "\x85\x1c\x1f\ufeff\u3000\u200b"),
    *(_with(name=f"a{space}b") for space in "\x85\x1c\x1f\ufeff\u3000\xa0"),
    _with(groups={"g": ["A", "B", "C\x85"]}), _with(groups={"g\ufeff": ["A", "B", "C"]}),
]
# Boards the server refuses as bodies no request carries: (its JSON text), read from the
# text in the browser, refused there in the same words as the server's board/play answers.
BODIES = [
    json.dumps({**DRAWN, "groups": {"g": ["A", "B", "C\ud800"]}}),
    json.dumps({**DRAWN, "name": "\udfffx"}), json.dumps({**DRAWN, "\ud83d": 1}),
    json.dumps({**DRAWN, "pieces": [{"name": "D\udc00", "cells": [[0, 0]]}]}),
    '{"board": ' + "[" * 40 + "]" * 40 + "}", "[" * 5000 + "]" * 5000,
    json.dumps({**DRAWN, "name": "\ud83d\ude00"}),  # a whole pair: a character (an emoji)
]
# Boards the server plays, each named in the browser as the server names it.
NAMED = [DRAWN, _piece(count=[0, 1]), {
    **SQUARE_BOARD, "description": "x\u00e9\"/\\\n\t\u0001\u2028 ok", "flip": False,
    "pieces": [{"name": "I", "shape": "###"}, {"name": "é", "cells": [[0, 0], [0, 1]],
                                               "letter": "Z", "rotate": False},
               {"name": "O", "cells": [[0, 0], [1, 0], [1, 1]], "count": [1, 1]}]}]
NAMES = ["I", "l5", "L5", "x", "X", "5", "éclair", "straße", "Ω", "字", "a-b", "zz", "Z",
         "!", "__", "p1", "P1", "ab", "ba", "ǅ", "ŉ"]


def test_a_drawn_board_is_read_in_the_browser_in_the_servers_words(browser, static_host):
    """drawn.js reads a board drawn in the editor as the server's editor does: each of many
    boards, good and bad, accepted or refused in the server's sentence(s); a puzzle's
    name, letters and colours as the server's (Puzzles.drawn, the spec's letters() and the
    pictures' piece_colours).
    The editor's Play it opens the board's link on the site, where it plays."""
    said = []
    for fields in BOARDS:
        try:
            board.board_spec(json.loads(json.dumps(fields)))
            said.append("read")
        except CpmodelsError as exc:
            said.append(plain(exc))
    rng = random.Random("drawn letters")
    sets = [[{"name": name, "letter": rng.choice([None, None, "L", "x", "5"])}
             for name in rng.sample(NAMES, rng.randint(1, len(NAMES)))] for _ in range(40)]
    sets = [[dict(p, letter=None) if p["letter"] in {q["letter"] for q in ps[:k]} else p
             for k, p in enumerate(ps)] for ps in sets]  # a letter drawn twice is refused
    sets.append([{"name": f"n{k}", "letter": None} for k in range(70)])  # more than the pool
    page = browser.new_page()
    try:
        page.goto(static_host)
        got = page.evaluate("""async ({boards, texts, sets, named}) => {
          const cells = await import("./static/cells.js");
          const drawn = await import("./static/drawn.js");
          await cells.loadDrawings();
          const read = (fields) => {
            try { drawn.checkLimits(drawn.readBoard(fields)); return "read"; }
            catch (e) { return e.message; } };
          const said = boards.map(read);
          const bodies = texts.map((text) => read(JSON.parse(text)));
          return {said, bodies,
                  names: named.map((fields) => drawn.drawnPuzzle(fields).listing.name),
                  letters: sets.map((pieces) => drawn.letters(pieces)),
                  colours: sets.map((pieces) => drawn.colours(pieces.map((p) => p.name)))};
        }""", {"boards": BOARDS, "texts": BODIES, "sets": sets, "named": NAMED})
        # the editor's Play it opens the board's link, which plays here too
        page.goto(f"{static_host}edit.html")
        page.select_option("#start", "calendar_day")
        page.wait_for_function("document.querySelector('#name').value === 'calendar_day'")
        with page.context.expect_page() as opened:
            page.click("#play")
        played = opened.value
        _verdict(played, 0)
        assert "#board=" in played.url and played.inner_text("#error") == ""
        assert played.locator("#spec option:checked").inner_text() == (
            "calendar_day, drawn in the editor")
    finally:
        page.context.close()
    assert got["said"] == said
    assert said.count("read") == 2 + 8 and len(set(said)) > 50  # (a few say the same)
    # rows and columns are counted from 1 wherever they are said
    assert "Row 3 has 2 tokens but row 1 has 4" in said[BOARDS.index(
        _with(board=["A . . .", ". . B C", ". ."]))]
    assert "Row 3 of the board: label 'C' (column 3) is in no group" in "".join(said)
    with TestClient(create_app([WEEK])) as client:
        answers = [client.post("/api/board/play", content=text,
                               headers={"content-type": "application/json"})
                   for text in BODIES]
    assert got["bodies"] == [a.json()["message"] if a.status_code != 200 else "read"
                             for a in answers]
    assert [a.status_code for a in answers] == [422] * 6 + [200]
    puzzles = Puzzles([WEEK])
    assert got["names"] == [puzzles.drawn(board.board_spec(fields)).name for fields in NAMED]
    for pieces, letters, colours in zip(sets, got["letters"], got["colours"]):
        spec = SimpleNamespace(pieces=[SimpleNamespace(**p) for p in pieces])
        assert letters == CalendarSpec.letters(spec)  # type: ignore[arg-type]
        assert colours == piece_colours([p["name"] for p in pieces])
