"""The daily puzzles as a static site (``cpmodels site OUT``): the play page and the editor,
their scripts, the engine built for WebAssembly, and the data the pages read, as files any
static file server hosts, at its root or under any path; a service worker keeps the pages
and each puzzle opened (every puzzle on the player's word), so they play again offline.

The data files are the server's own answers: the site asks an app made for the same specs
(:func:`~cpmodels.web.app.create_app`, through a test client, nothing listening) for each GET
the pages make, and writes each answer at the path the pages ask (``api/specs``,
``api/layout/NAME``, ``api/puzzle/NAME``, ...), so the pages read the same JSON from the
server and from the site. The engine's plans are not files of the site: the page makes
each puzzle's plan from ``api/puzzle/NAME`` (a few KB) with the engine in the browser. The
pages it writes carry :data:`SITE_MARKER`, by which they know they are on the static site
(and register ``sw.js``).

Files are written whole (:func:`cpmodels.files.write_atomic`). ``OUT`` must be absent, an
empty directory (hidden entries such as ``.git`` aside) or an earlier site (its
``index.html`` carries the marker): the files of the earlier site that this one does not
write again are removed, and no other file is touched. Every path is checked before any
file is written (a refusal leaves ``OUT`` as it was), ``sw.js`` is written last, and a run
holds a lock in ``OUT`` (:data:`LOCK_FILE`) while it writes, so that two runs never mix
their sites; it removes the lock file when done.
"""

from __future__ import annotations

import fcntl
import hashlib
import html
import json
import os
import re
import stat
import warnings
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cpmodels.errors import InputError
from cpmodels.files import FileRefused, make_directory, read_bounded, write_atomic
from cpmodels.interrupt import ctrl_c_held
from cpmodels.web import plans
from cpmodels.web.app import create_app
from cpmodels.web.routes.pages import ENGINE_FILES, SCRIPTS

URI_COMPONENT_SAFE = "!'()*"  # what encodeURIComponent leaves as it is, past quote's own
SITE_MARKER = '<meta name="cpmodels-site" content="static">'
NO_ICON = '<link rel="icon" href="data:,">\n'  # the server's pages ask for no icon
SITE_LINKS = ('<link rel="manifest" href="manifest.webmanifest">\n'
                 '<link rel="icon" href="icon.svg" type="image/svg+xml">')
PAGES = {"index.html": "/", "edit.html": "/edit.html"}
SERVICE_WORKER = "sw.js"
LOCK_FILE = ".cpmodels-site.lock"  # held while a run writes, removed when done
# names Windows keeps for its devices, whatever follows a dot: no file can have them
WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"} |
                            {f"{kind}{n}" for kind in ("COM", "LPT") for n in range(1, 10)})
MAX_EARLIER_BYTES = 1_000_000  # an earlier site's index.html and sw.js (its list of files)
BUILD_ENGINE = ("engine.wasm is not installed: install cpmodels again on a machine with clang "
                "and lld (apt-get install clang lld; pip install --force-reinstall cpmodels), "
                "which builds it")


@dataclass(frozen=True)
class Site:
    """What :func:`write_site` wrote: each file's path (relative to ``out``) and size, and
    the earlier site's files it removed."""

    out: Path
    files: dict[str, int]
    version: str
    removed: tuple[str, ...] = ()

    @property
    def total_bytes(self) -> int:
        return sum(self.files.values())


def _site_file(name: str) -> bytes:
    return resources.files("cpmodels.web").joinpath(f"static/site/{name}").read_bytes()


def _earlier_files(out: Path) -> list[str] | None:
    """The files an earlier site in ``out`` listed (None when ``out`` holds no site)."""
    try:
        page = read_bounded(out / "index.html", MAX_EARLIER_BYTES, "page").decode()
        worker = read_bounded(out / SERVICE_WORKER, MAX_EARLIER_BYTES, "service worker")
    except (FileRefused, UnicodeDecodeError):
        return None
    found = re.search(rb"^const FILES = (\[.*\]);$", worker, re.M)
    if SITE_MARKER not in page or found is None:
        return None
    try:
        listed = json.loads(found.group(1))
    except ValueError:
        return None
    return [f for f in listed if isinstance(f, str)] if isinstance(listed, list) else None


def check_out(out: Path) -> list[str]:
    """That the site may be written to ``out``: absent, an empty directory or an earlier
    site; returns the earlier site's files (none for a new one). Else :class:`InputError`."""
    if not out.exists() and not out.is_symlink():
        if not out.parent.is_dir():
            raise InputError(f"cannot write the site to {out}: there is no directory "
                             f"{out.parent}")
        return []
    if out.is_symlink():
        raise InputError(f"cannot write the site to {out}: it is a symbolic link; name the "
                         "folder itself")
    if not out.is_dir():
        raise InputError(f"cannot write the site to {out}: it is not a directory")
    try:
        if all(entry.name.startswith(".") for entry in out.iterdir()):
            return []  # empty but for hidden entries (a checkout's .git, .nojekyll): kept
    except OSError as exc:
        raise InputError(f"cannot write the site to {out}: "
                         f"{exc.strerror or exc}") from None
    earlier = _earlier_files(out)
    if earlier is None:
        raise InputError(f"cannot write the site to {out}: it holds files and no earlier "
                         "site; name a new or an empty directory")
    return earlier


IMPORT = re.compile(r"""^import\b[^;]*?from\s+["']\./([\w.-]+\.js)["']""", re.M)
PAGE_SCRIPT = re.compile(r'<script type="module" src="static/([\w.-]+\.js)">')


def _modules(scripts: dict[str, bytes], first: str) -> list[str]:
    """The scripts a page's script imports, directly or not (under ``static/``), in the
    order they are met."""
    found: list[str] = []
    todo = [first]
    while todo:
        for name in IMPORT.findall(scripts.get(todo.pop(0), b"").decode()):
            if name not in found and name != first:
                found.append(name)
                todo.append(name)
    return found


def _with_marker(page: bytes, scripts: dict[str, bytes], first: str | None) -> bytes:
    """A page as the site serves it: marked as the static site's, with its manifest and
    its icon (in place of the server's empty one), and the files it needs first asked for
    at once (its script's modules, and on the play page the engine, the list of puzzles and
    the parts of the puzzle it opens with, ``first``), not one after another. ``scripts``:
    the scripts under ``static/`` by name."""
    text = page.decode()
    head = '<meta charset="utf-8">'
    if head not in text:  # pragma: no cover - every page starts so (tested)
        raise AssertionError("a page without its charset line")
    text = text.replace(NO_ICON, "", 1)
    links = [SITE_LINKS]
    script = PAGE_SCRIPT.search(text)
    if script is not None:
        links += [f'<link rel="modulepreload" href="static/{name}">'
                  for name in _modules(scripts, script[1])]
        if script[1] == "page.js":  # the engine, and the list of puzzles the scripts read
            links.append('<link rel="preload" href="static/engine/engine.wasm" as="fetch" '
                         'crossorigin>')
            links.append('<link rel="preload" href="api/specs" as="fetch" crossorigin>')
        if script[1] == "page.js" and first is not None:
            # (the address as the page's encodeURIComponent writes it: the same request)
            parts = html.escape(f"api/puzzle/{quote(first, safe=URI_COMPONENT_SAFE)}")
            links.append(f'<link rel="preload" href="{parts}" as="fetch" crossorigin>')
    return text.replace(head, f"{head}\n{SITE_MARKER}\n" + "\n".join(links), 1).encode()


ENGINE_IMPORT = 'import {loadEngine} from "./engine.js";'
# a name a script declares at its top level (each file's declarations start their lines)
DECLARED = re.compile(r"^(?:export\s+)?(?:async\s+)?(?:function\*?|class|const|let|var)\s+(\w+)",
                      re.M)


def one_worker(worker: bytes, engine: bytes) -> bytes:
    """The engine's worker as the site serves it: one module, ``worker.js`` with the
    ``engine.js`` it imports in the place of its import, so that a worker starts on one
    request, not on two in turn (the second asked only once the first has been read). The
    two modules share no top-level name (checked), so one module holds both as they are;
    the package keeps them apart, and the server serves them so."""
    text, imported = worker.decode(), engine.decode()
    if text.count(ENGINE_IMPORT) != 1 or IMPORT.search(text.replace(ENGINE_IMPORT, "")) \
            or IMPORT.search(imported):
        raise AssertionError("worker.js imports engine.js's loadEngine alone")  # (tested)
    both = set(DECLARED.findall(text)) & set(DECLARED.findall(imported))
    if both:  # (tested)
        raise AssertionError(f"worker.js and engine.js both declare {', '.join(sorted(both))}")
    return without_comment_lines(text.replace(ENGINE_IMPORT, imported)).encode()


# What may come before a "/" that starts a regular expression rather than a division.
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "void", "yield",
                      "await", "delete", "throw", "new", "instanceof"}


def without_comment_lines(source: str) -> str:
    """``source`` (JavaScript) less its lines that are a ``//`` comment alone, so that the
    site's scripts (the worker's, the largest of a first visit) carry no prose: a line
    inside a template literal, a string or a block comment is kept as it is, and nothing
    else of a line is touched (the scanner reads strings, template literals with their ``${}``,
    regular expressions and comments; a script it reads to its end in anything but code
    is refused)."""
    lines = source.split("\n")
    kept: list[str] = []
    mode = "code"  # or "template", "block" (spanning lines); quotes and regexes end a line
    braces: list[int] = []  # for each open ${...}: the depth of {} inside it
    last = ""  # the last significant code token's final character, or a word
    for line in lines:
        if mode == "code" and line.lstrip().startswith("//"):
            continue
        kept.append(line)
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if mode == "block":
                end = line.find("*/", i)
                if end < 0:
                    break
                mode, i = "code", end + 2
            elif mode == "template":
                if c == "\\":
                    i += 2
                elif c == "`":
                    mode, last, i = "code", "`", i + 1
                elif line.startswith("${", i):
                    braces.append(0)
                    mode, last, i = "code", "{", i + 2
                else:
                    i += 1
            elif c in " \t":
                i += 1
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                mode, i = "block", i + 2
            elif c in "'\"":
                i += 1
                while i < n and line[i] != c:
                    i += 2 if line[i] == "\\" else 1
                last, i = c, i + 1
            elif c == "`":
                mode, i = "template", i + 1
            elif c == "/" and (last in _REGEX_AFTER or last in _REGEX_AFTER_WORDS):
                i, in_class = i + 1, False
                while i < n and (line[i] != "/" or in_class):
                    if line[i] == "\\":
                        i += 1
                    elif line[i] in "[]":
                        in_class = line[i] == "["
                    i += 1
                last, i = "/", i + 1
            elif c.isalnum() or c in "_$":
                start = i
                while i < n and (line[i].isalnum() or line[i] in "_$"):
                    i += 1
                last = line[start:i] if line[start:i] in _REGEX_AFTER_WORDS else "a"
            else:
                if braces and c == "{":
                    braces[-1] += 1
                elif braces and c == "}":
                    if braces[-1] == 0:
                        braces.pop()
                        mode, i = "template", i + 1
                        continue
                    braces[-1] -= 1
                last, i = c, i + 1
    if mode != "code" or braces:  # (tested) read wrongly: nothing is left out
        raise AssertionError(f"a script ends inside a {mode}: it was misread")
    return "\n".join(kept)


def _manifest(titles: Sequence[str]) -> bytes:
    return json.dumps({
        "name": "cpmodels: daily calendar puzzles",
        "short_name": "Calendar puzzles",
        "description": "Play " + ", ".join(titles) + ": place every piece so that only "
                       "today's date is left open.",
        "start_url": ".",
        "scope": ".",
        "display": "standalone",
        "background_color": "#f4f1ec",
        "theme_color": "#f4f1ec",
        "icons": [{"src": "icon.svg", "sizes": "any", "type": "image/svg+xml"}],
    }, indent=2).encode()


def site_files(spec_paths: Sequence[str | Path]) -> dict[str, bytes]:
    """Every file of the site for these calendar specs but ``sw.js``, by path, each
    GET answer as the app answers it (:class:`InputError` for a spec that does not load,
    is not a calendar, or shares a name; or where engine.wasm was not built)."""
    with warnings.catch_warnings():  # the test client's notice of its own future
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    if not plans.engine_built():
        raise InputError(BUILD_ENGINE)
    app = create_app(spec_paths, workers=1, time_limit=600.0)
    files: dict[str, bytes] = {}

    with TestClient(app) as client:
        def get(url: str) -> Any:
            response = client.get(url)
            if response.status_code != 200:
                said = response.json().get("message", f"HTTP {response.status_code}")
                raise InputError(f"the site cannot be written: {said}")
            return response

        def keep(path: str) -> Any:
            """The answer at ``path`` (its names quoted in the address), kept as its file."""
            if path in files:
                raise InputError(f"two files of the site are both {path}: rename a spec")
            response = get("/" + quote(path, safe="/"))
            files[path] = response.content
            return response

        for name in SCRIPTS:  # (less their lines of prose, as the worker's)
            kept = keep(f"static/{name}").content.decode()
            files[f"static/{name}"] = without_comment_lines(kept).encode()
        scripts = {name: files[f"static/{name}"] for name in SCRIPTS}
        for name in ENGINE_FILES:
            if name != "engine.js":  # (in the worker's script, below)
                keep(f"static/engine/{name}")
        files["static/engine/worker.js"] = one_worker(files["static/engine/worker.js"],
                                                      get("/static/engine/engine.js").content)
        listed = keep("api/specs").json()["specs"]
        _check_names([spec["name"] for spec in listed])
        for path, url in PAGES.items():
            files[path] = _with_marker(get(url).content, scripts,
                                       listed[0]["name"] if listed else None)
        for grid in keep("api/grids").json():
            keep(f"api/board/pools/{grid}")
        for spec in listed:
            name = spec["name"]
            keep(f"api/layout/{name}")
            keep(f"api/board/start/{name}")
            keep(f"api/puzzle/{name}")
    files["manifest.webmanifest"] = _manifest([spec["title"] for spec in listed])
    files["icon.svg"] = _site_file("icon.svg")
    return files


def _name_problem(name: str) -> str | None:
    """Why a spec's name cannot be a file's name on every host ("" when it is plainly not
    one), or None when it can."""
    if name in (".", "..") or not name.isprintable():
        return ""
    escape = re.search(r"%[0-9A-Fa-f]{2}", name)
    if escape:  # the pages ask a%2520b, which a static server reads as the file a%20b
        return f": a static server reads {escape[0]} in it as an escaped character"
    device = name.split(".")[0].rstrip(" ").upper()
    if device in WINDOWS_DEVICES:
        return f": Windows keeps the name {device} for a device"
    return None


def _check_names(names: Sequence[str]) -> None:
    """That each spec's name can be a file's name on any host (:func:`_name_problem`) and
    no two differ only by case (one file where case is ignored); else :class:`InputError`."""
    seen: dict[str, str] = {}
    for name in names:
        problem = _name_problem(name)
        if problem is not None:
            raise InputError(f"a spec named {name!r} cannot be a file of the site{problem}; "
                             "rename it")
        if name.casefold() in seen:
            raise InputError(f"specs named {seen[name.casefold()]!r} and {name!r} would be "
                             "files whose names differ only by case, which many file "
                             "systems hold as one; rename one")
        seen[name.casefold()] = name


def service_worker(files: dict[str, bytes]) -> tuple[bytes, str]:
    """``sw.js`` for these files, and their version: a hash of every path and content."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(f"{path}\0{len(files[path])}\0".encode())
        digest.update(files[path])
    version = digest.hexdigest()[:16]
    text = _site_file(SERVICE_WORKER).decode()
    text = text.replace('"__VERSION__"', json.dumps(version), 1)
    text = text.replace("__FILES__", json.dumps(sorted(files)), 1)
    return text.encode(), version


def _check_paths(out: Path, paths: Sequence[str]) -> None:
    """That each of these files can be written in ``out`` as it is now: every folder on
    its way a real folder (or absent), the file itself a regular file (or absent), nothing
    a symbolic link. Else :class:`InputError`, and nothing was written."""
    for path in paths:
        at = out
        parts = Path(path).parts
        for k, part in enumerate(parts):
            at = at / part
            try:
                mode = os.lstat(at).st_mode
            except FileNotFoundError:
                break
            except OSError as exc:
                raise InputError(f"cannot write the site to {out}: {path}: "
                                 f"{exc.strerror or exc}; nothing was written") from None
            here = "/".join(parts[:k + 1])
            if stat.S_ISLNK(mode):
                raise InputError(f"cannot write the site to {out}: it holds a symbolic link "
                                 f"at {here}, where the site writes a "
                                 f"{'file' if k == len(parts) - 1 else 'folder'}; nothing "
                                 "was written")
            if k == len(parts) - 1 and not stat.S_ISREG(mode):
                raise InputError(f"cannot write the site to {out}: it holds a folder or "
                                 f"another thing that is not a file at {here}, where the "
                                 "site writes a file; nothing was written")
            if k < len(parts) - 1 and not stat.S_ISDIR(mode):
                raise InputError(f"cannot write the site to {out}: it holds a file at "
                                 f"{here}, where the site writes a folder; nothing was "
                                 "written")


def _lock(out: Path) -> int:
    """The lock file in ``out`` opened and locked by this run (another run holding it is
    refused). A run removes its lock file when done, while it holds it: a run that locked
    the file as it was removed finds the name gone (or another file under it) and takes
    the lock again, so two runs never both hold ``out``."""
    path = out / LOCK_FILE
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as exc:
            raise InputError(f"cannot write the site to {out}: {LOCK_FILE}: "
                             f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InputError(f"cannot write the site to {out}: another cpmodels site run is "
                             "writing there now; wait for it to finish, then run again") from None
        held = os.fstat(fd)
        try:
            named = os.lstat(path)
        except FileNotFoundError:
            named = None
        if named is not None and (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)  # removed by the run that held it: the lock is taken afresh


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """``out`` held by this run alone while it writes (another run is refused); the lock
    file removed when done, so that it is never a file left in the site. The lock is
    taken with Ctrl-C held: one that comes meanwhile comes once it is in hand here, and
    lets it go (a descriptor left holding it would refuse every later run of the process)."""
    fd: int | None = None
    try:
        with ctrl_c_held():
            fd = _lock(out)
        yield
    finally:
        if fd is not None:
            with suppress(OSError):
                os.unlink(out / LOCK_FILE)  # (still held: see _lock)
            os.close(fd)  # (the lock goes with it)


def _remove_earlier(out: Path, earlier: Sequence[str], files: dict[str, bytes]) -> list[str]:
    """The earlier site's files this one does not write, removed: each a file of the site
    itself (no link on the way, nothing outside it); the paths removed."""
    root = out.resolve()
    removed = []
    for path in earlier:
        if path in files or path == LOCK_FILE:
            continue
        gone = out / path
        inside = not Path(path).is_absolute() and ".." not in Path(path).parts \
            and gone.resolve() == root / path
        if inside and gone.is_file() and not gone.is_symlink():
            try:
                gone.unlink()
            except OSError:
                continue  # kept: not the site's to force
            removed.append(path)
    return removed


def write_site(out: Path | str, spec_paths: Sequence[str | Path]) -> Site:
    """Write the static site for these calendar specs to ``out`` (see the module's notes)."""
    if not str(out).strip():
        raise InputError("cannot write the site: the folder's name is empty; name a new or "
                         "an empty folder, or an earlier site")
    out = Path(out)
    lock = out / LOCK_FILE
    with ExitStack() as stack:
        # a lock file here: another run may be writing now (or one was stopped part-way)
        locked = lock.is_file() and not lock.is_symlink()
        if locked:
            stack.enter_context(_locked(out))
        check_out(out)
        files = site_files(spec_paths)
        worker, version = service_worker(files)
        files[SERVICE_WORKER] = worker
        order = sorted(files, key=lambda path: path == SERVICE_WORKER)  # sw.js last
        _check_paths(out, order)
        make_directory(out)
        if not locked:
            stack.enter_context(_locked(out))
        earlier = check_out(out)  # again, now that no other run writes here
        _check_paths(out, order)
        for path in order:
            folder = out
            for part in Path(path).parent.parts:
                folder = make_directory(folder / part)
            write_atomic(out / path, files[path])
        removed = _remove_earlier(out, earlier, files)
    return Site(out, {path: len(data) for path, data in files.items()}, version,
                tuple(removed))
