"""The editor's files on the static site (no server): Save YAML writes the YAML that the
server's ``api/board/yaml`` writes, byte for byte on the bundled calendars; Open YAML (or a
file dropped on the editor) reads a file as ``api/board/open`` does and refuses what it
refuses, in its sentences, before anything is drawn; the laser's SVG is made in the browser
by the engine (cpmodels make's sheet, engraving and all, byte for byte).
The page asks for nothing but the site's own files meanwhile."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import screenshot, wait_until
from fastapi.testclient import TestClient
from test_site import _listed, static_host  # noqa: F401 (a fixture)

from cpmodels.errors import CpmodelsError
from cpmodels.web import board
from cpmodels.web.app import create_app
from cpmodels.web.wording import plain

SPECS = Path(__file__).resolve().parent.parent / "specs"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WAIT = 60_000
CALENDARS = ("calendar_week", "calendar_day", "calendar_week_11")
SAID = "document.querySelector('#shared').textContent.length > 0"


def _editor(browser, url: str, viewport: dict, out: Path):
    """The site's editor in a fresh page, every request it makes kept (method, path under
    the site) and every error it logs."""
    context = browser.new_context(viewport=viewport, accept_downloads=True)
    page = context.new_page()
    asked: list[tuple[str, str]] = []
    errors: list[str] = []
    page.on("request", lambda r: asked.append((r.method, r.url.removeprefix(url).split("?")[0]
                                               .split("#")[0])) if r.url.startswith(url)
            else asked.append((r.method, r.url)))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}edit.html")
    page.wait_for_function("document.querySelector('#start').options.length > 1",
                           timeout=WAIT)
    page.wait_for_function("document.querySelector('footer').textContent"
                           ".startsWith('Counts come')", timeout=WAIT)
    return context, page, asked, errors


def _only_site_files(asked: list[tuple[str, str]], out: Path) -> None:
    """Every request was a GET of a file the site lists (no /api/ answer made on the fly,
    nothing posted)."""
    _, listed = _listed(out)
    files = {*listed, "sw.js", "edit.html", ""}
    strays = [(m, p) for m, p in asked if m != "GET" or p not in files]
    assert not strays, strays


def _saved(page) -> str:
    with page.expect_download(timeout=WAIT) as download:
        page.click("#save")
    return Path(download.value.path()).read_text(encoding="utf-8")


MAKE_ON_SERVER = (
    "The laser's SVG is made here, engraving and all; the DXF and the 3-D prints (STL, 3MF) "
    "are made by the cpmodels server: Save YAML, then run cpmodels make on the file, or run "
    "cpmodels serve and make them in its editor.")


def _cut(page) -> str:
    """The laser's SVG the page makes (the make button, the page's sizes), downloaded."""
    page.evaluate("document.querySelector('#shared').textContent = ''")
    with page.expect_download(timeout=WAIT) as download:
        page.click("#make")
    return Path(download.value.path()).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def made_sheet(tmp_path_factory) -> Callable[[dict], str]:
    """cpmodels make's sheet-1.svg of a board (its fields) at the page's sizes (cell 20,
    kerf 0.15, sheet 600x400), engraving and all: made once a board, for the runs of each
    size to compare their page's file with."""
    from cpmodels.make import MakeOptions, make

    made: dict[str, str] = {}

    def sheet(fields: dict) -> str:
        key = json.dumps(fields, sort_keys=True)
        if key not in made:
            out = tmp_path_factory.mktemp("made") / "sheets"
            make(board.board_spec(fields), out, MakeOptions(cell=20.0, kerf=0.15,
                                                            sheet=(600.0, 400.0)))
            assert not (out / "sheet-2.svg").exists()
            made[key] = (out / "sheet-1.svg").read_text(encoding="utf-8")
        return made[key]

    return sheet


def _open(page, text: str | bytes, name: str = "board.yaml") -> str:
    """A file opened with Open YAML; what the page said beside the buttons."""
    page.evaluate("document.querySelector('#shared').textContent = ''")
    data = text.encode() if isinstance(text, str) else text
    page.set_input_files("#open", files=[{"name": name, "mimeType": "application/yaml",
                                          "buffer": data}])
    page.wait_for_function(f"({SAID}) || document.querySelector('#name').value === "
                           "window.expectName", timeout=WAIT)
    return page.locator("#shared").inner_text()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_sites_yaml_is_the_servers_and_opens_to_the_same_board(
        browser, site, static_host, made_sheet, tmp_path, viewport):  # noqa: F811
    """Each bundled calendar started from on the site and saved: the file is the server's
    YAML for the same fields byte for byte, the server reads it to the same spec, and
    the site opens the server's YAML of it back to the same fields (saved again: the same
    bytes). No request leaves the site's files."""
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, viewport, out)
    try:
        for name in CALENDARS:
            page.select_option("#start", name)
            page.wait_for_function(f"document.querySelector('#name').value === '{name}'",
                                   timeout=WAIT)
            fields = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
            saved = _saved(page)
            assert saved == board.to_yaml(fields), name
            spec = board.board_spec(fields)
            assert board.board_spec(board.from_yaml(saved)) == spec
            # the server's file of the same board opened on the site, and saved again
            page.select_option("#start", "")
            page.evaluate(f"window.expectName = {json.dumps(name)}")
            assert _open(page, board.to_yaml(fields), f"{name}.yaml") == ""
            page.wait_for_function(f"document.querySelector('#name').value === '{name}'")
            again = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
            assert again == fields
            assert _saved(page) == saved
            # the laser's SVG made here: make's sheet, engraving and all, byte for byte
            cut = _cut(page)
            assert cut == made_sheet(fields), name
            assert cut.count('data-part="base"') > 43, name  # the labels engraved on it
        # the glyph table fetched once, when the first cut file was made
        assert [p for _, p in asked].count("static/engine/glyphs.bin") == 1
        # the DXF and prints are the server's, said where the file is made
        assert page.locator("#shared").inner_text() == (
            "The cut file: 1 sheet calendar_week_11-sheet-1.svg. " + MAKE_ON_SERVER)
        assert page.locator("#shared").is_visible()
        assert page.locator("#make").inner_text() == "Laser cut file (SVG)"
        screenshot(page, tmp_path, f"site-files-{viewport['width']}.png",
                   "CPMODELS_SITE_FILES_SHOT")
        assert page.locator("footer").inner_text().endswith(
            "the design question (Try them); DXF and the prints need the cpmodels server "
            "(cpmodels serve); the laser's SVG is made here.")
    finally:
        context.close()
    _only_site_files(asked, out)
    assert not errors


DAY = board.read_fields(SPECS / "calendar_day.yaml")
GOOD = board.to_yaml(DAY)
# Files the server's api/board/open refuses, each said by the site in the server's words.
REFUSED = [
    "a: &x 1\nb: *x\n", "kind: calendar\nkind: calendar\n", "- 1\n", "", "board: x\n",
    "x: 99999999999999999999999999\n", "x: .inf\n", "x: -.nan\n", "? [a]\n: 1\n",
    "a:\n" + "  - " * 25 + "1\n", "a: \x07\n", "a: 1\n---\nb: 2\n", "1: a\n1: b\n",
    "a: !foo x\n", "a: 1" + "0" * 70 + "\n", "a: 1." + "0" * 70 + "\n",
    'name: "\\ud800"\n', "a: {b: 1, b: 2}\n", "<<: {a: 1}\n", "kind: packing\n",
    GOOD.replace("name: calendar_day", "name: 5"),
    GOOD.replace("name: calendar_day", "name: two words"),
    GOOD.replace("name: calendar_day", "name: yes"),
    GOOD.replace("name: calendar_day", "name: 2024-01-01"),
    GOOD.replace("- Jan\n", "- 2024-01-01\n", 1),
    GOOD.replace("kind: calendar", "kind: calendar\nflip: maybe"),
    GOOD.replace("kind: calendar", "kind: calendar\ncolour: red"),
    GOOD.replace("- name: N", "- name: N\n  count: 0x10000000000000000"),
    GOOD.replace("- Jan\n", "- Jan\n  - Jan\n", 1),
    GOOD.replace("  - Jan\n", "", 1),
    GOOD.replace("'Jan Feb", "'. Feb", 1),
    GOOD.replace("groups:", "groups:\n  extra: [Jan]", 1),
    re.sub(r"pieces:.*", "pieces:\n- name: X\n  shape: '#####/#####/#####/#####/#####/#####'\n",
           GOOD, flags=re.S),
    re.sub(r"pieces:.*", "pieces:\n- name: X\n  shape: '##'\n", GOOD, flags=re.S),
    re.sub(r"pieces:.*", "pieces:\n- name: X\n  cells: [[0, 0], [0, 2]]\n", GOOD, flags=re.S),
    "a: " + "x" * 70_000 + "\n",  # more than the server's 64 KB
]
# Files that are no YAML text, said alike on the server's editor and the site's.
NOT_TEXT = [b"a: \x00\n", b"\xff\xfe\x00a", "name: é\n".encode("latin-1")]


def _server_says(client: TestClient, text: str) -> str:
    response = client.post("/api/board/open", content=text.encode())
    assert response.status_code in (413, 422), text
    return response.json()["message"]


def test_the_site_refuses_a_yaml_file_as_the_server_does(
        browser, site, static_host, tmp_path):  # noqa: F811
    """Bad files opened on the site (by Open YAML, or dropped on the editor), each refused
    before anything is drawn, in the sentence the server's api/board/open gives; the
    board drawn stays. A YAML syntax error is said as such (its words are the YAML
    library's)."""
    out, _ = site
    with TestClient(create_app([SPECS / "calendar_day.yaml"])) as client:
        want = [_server_says(client, text) for text in REFUSED]
        syntax = _server_says(client, "a: [1\n")
    assert len(set(want)) > 25
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    try:
        page.select_option("#start", "calendar_week")
        page.wait_for_function("document.querySelector('#name').value === 'calendar_week'")
        before = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        got = [_open(page, text) for text in REFUSED]
        screenshot(page, tmp_path, "site-refused.png", "CPMODELS_SITE_REFUSED_SHOT")
        said_syntax = _open(page, "a: [1\n")
        not_text = [_open(page, data) for data in NOT_TEXT]
        after = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        # a file dropped on the board opens as Open YAML opens it
        page.evaluate("window.expectName = 'calendar_day'")
        assert _open(page, GOOD) == ""
        opened = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
        page.select_option("#start", "calendar_week")
        page.wait_for_function("document.querySelector('#name').value === 'calendar_week'")
        page.evaluate("document.querySelector('#shared').textContent = ''")
        page.evaluate("""(text) => {
          const data = new DataTransfer();
          data.items.add(new File([text], "dropped.yaml", {type: "application/yaml"}));
          document.querySelector('#board').dispatchEvent(
            new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
        }""", GOOD)
        page.wait_for_function("document.querySelector('#name').value === 'calendar_day'",
                               timeout=WAIT)
        dropped = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
    finally:
        context.close()
    for text, site_said, server_said in zip(REFUSED, got, want):
        assert site_said == server_said, text[:80]
    assert syntax.startswith("YAML syntax error: ") and said_syntax.startswith(
        "YAML syntax error: ")
    assert not_text == ["This file is not a YAML text file."] * len(NOT_TEXT)
    assert after == before  # nothing refused was drawn
    assert dropped == opened and opened["name"] == "calendar_day"
    assert board.board_spec(opened).cells == board.board_spec(DAY).cells
    _only_site_files(asked, out)
    assert not errors


def _plain_pattern(pattern: str) -> str:
    """A verbose regular expression (re.X) written without its layout: whitespace outside
    character classes dropped."""
    out, in_class, escaped = [], False, False
    for ch in pattern:
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            out.append(ch)
            escaped = True
        elif in_class:
            out.append(ch)
            in_class = ch != "]"
        elif ch == "[":
            out.append(ch)
            in_class = True
        elif not ch.isspace():
            out.append(ch)
    return "".join(out)


def test_the_sites_yaml_reads_plain_values_as_pyyaml_does(browser, static_host):  # noqa: F811
    """The site reads a plain scalar (true or false, a number, null, a date, text) by
    PyYAML's own resolvers, and values and numbers as the server's loader
    reads them; the loader's bounds are the server's."""
    from cpmodels.spec import loading

    resolvers: list[tuple[str, str]] = []
    for kind, pattern in dict.fromkeys(
            (tag.rsplit(":", 1)[1], rx.pattern)
            for rs in yaml.resolver.Resolver.yaml_implicit_resolvers.values()
            for tag, rx in rs):
        resolvers.append((kind, _plain_pattern(pattern)))
    scalars = ["yes", "No", "on", "OFF", "y", "n", "True", "1", "-1", "+1", "0", "00", "017",
               "0x1F", "0b101", "1_000", "1:30", "-1:30", "1.5", "1.", ".5", "1e3", "1.0e+3",
               "1:30.5", ".inf", "-.Inf", ".NaN", "~", "null", "Null", "", "2024-01-01", "x",
               "1.2.3", "0o17", "9223372036854775807", "-9223372036854775808"]
    texts = [f"v: {s}\n" for s in scalars]
    page = browser.new_page()
    try:
        page.goto(static_host)
        got = page.evaluate("""async (texts) => {
          const y = await import("./static/yamlfile.js");
          const read = texts.map((t) => { try { return {data: y.readYaml(t)}; }
                                          catch (e) { return {error: e.message}; } });
          return {resolvers: y.RESOLVERS.map(([k, p]) => [k, p.source]), read,
                  bounds: [y.MAX_DEPTH, String(y.MAX_INT), y.MAX_NUMBER_CHARS]};
        }""", texts)
    finally:
        page.close()
    # (no two patterns match one text, so their order among the first characters' lists
    # does not matter)
    assert dict(got["resolvers"]) == dict(resolvers) and len(got["resolvers"]) == 8
    assert got["bounds"] == [loading.MAX_DEPTH, str(loading.MAX_INT), loading.MAX_NUMBER_CHARS]
    for text, read in zip(texts, got["read"]):
        try:
            want = {"data": json.loads(json.dumps(board._yaml_fields(text, "board"),
                                                  default=str).replace("NaN", '"nan"'))}
        except CpmodelsError as exc:
            want = {"error": plain(exc)}
        if text == "v: 2024-01-01\n":  # a date: read as a date, no text (no field takes it)
            assert read["data"]["v"].date().isoformat() == "2024-01-01"
            continue
        if "data" in want and isinstance(want["data"]["v"], int) and abs(
                want["data"]["v"]) > 2**53:  # a JavaScript number: the nearest double
            want["data"]["v"] = float(want["data"]["v"])
            read["data"]["v"] = float(read["data"]["v"])
        if "data" in read and read["data"]["v"] is None and "nan" in text.lower():
            read["data"]["v"] = "nan"  # (JSON carries NaN as null)
        assert read == want, text


def test_the_sites_cut_file_refuses_as_the_server_does(
        browser, site, static_host, tmp_path):  # noqa: F811
    """A cut file the site cannot make is said in the sentence the server's api/board/make
    gives, with nothing downloaded: a sheet too small for the frame, and a board with
    nothing on it."""
    out, _ = site
    context, page, asked, errors = _editor(browser, static_host, LAPTOP, out)
    downloads: list = []
    page.on("download", lambda d: downloads.append(d))
    said: list[tuple[dict, str, str]] = []  # (fields, sheet, what the site said)
    try:
        for start, sheet in (("calendar_day", "120x120"), ("", "600x400")):
            page.select_option("#start", start)
            wait_until(page, "async () => (await import('./static/edit.js')).spec().pieces"
                             f".length {'> 0' if start else '=== 0'}", WAIT)
            page.fill("#sheet", sheet)
            page.evaluate("document.querySelector('#shared').textContent = ''")
            page.click("#make")
            page.wait_for_function(f"({SAID}) && !document.querySelector('#shared')"
                                   ".textContent.startsWith('making')", timeout=WAIT)
            fields = page.evaluate("import('./static/edit.js').then((m) => m.spec())")
            said.append((fields, sheet, page.locator("#shared").inner_text()))
        screenshot(page, tmp_path, "site-cut-refused.png", "CPMODELS_SITE_CUT_REFUSED_SHOT")
    finally:
        context.close()
    assert not downloads
    _only_site_files(asked, out)
    assert not errors
    with TestClient(create_app([SPECS / "calendar_day.yaml"])) as client:
        for fields, sheet, text in said:
            answer = client.post(f"/api/board/make?cell=20&kerf=0.15&sheet={sheet}",
                                 json=fields)
            assert answer.status_code == 422
            assert text == answer.json()["message"]
