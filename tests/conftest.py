from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

from cpmodels._core import interface
from cpmodels.cli import main
from cpmodels.web.connections import listening_socket, server_config


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C as a terminal delivers it: a suite started in the background by a shell
    inherits it ignored (and passes that on to every command it starts), which the tests of
    how a command stops on Ctrl-C cannot take."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.addinivalue_line(
        "markers", "early(argv): the test's slow command starts as the session starts; the "
        "test's ``early`` fixture waits for it and gives its status and output")


# A slow command a test runs (a sanitized build and its run, the fuzz targets, the type
# check) keeps a second processor busy while the suite, one test at a time, leaves it idle:
# started when the session has collected its tests, one after another in the tests' order,
# and waited for by each test when it comes. The commands run detached (a grandchild in a
# session of its own), so that their processor time never counts among this process's
# children's, which the tests' ``cpu_seconds`` measures; whatever is left of them when the
# session ends is stopped.
EARLY = pytest.StashKey[dict]()
EARLY_SECONDS = 1800  # the longest one early command may take, and a test may wait

RUN_IN_TURN = """
import json, os, signal, subprocess, sys
from pathlib import Path
folder = Path(sys.argv[1])
if os.fork():
    os._exit(0)
os.setsid()
(folder / "pid").write_text(str(os.getpid()))
for k, argv in enumerate(json.loads(sys.argv[2])):
    out = folder / str(k)
    out.mkdir()
    with open(out / "stdout", "w") as stdout, open(out / "stderr", "w") as stderr:
        try:
            status = subprocess.run(argv, stdout=stdout, stderr=stderr,
                                    stdin=subprocess.DEVNULL,
                                    timeout=float(sys.argv[3])).returncode
        except subprocess.TimeoutExpired:
            status = -int(signal.SIGKILL)
    (out / "status.new").write_text(str(status))
    (out / "status.new").rename(out / "status")
"""


def pytest_collection_finish(session: pytest.Session) -> None:
    marked = [(item.nodeid, marker.args[0]) for item in session.items
              if (marker := item.get_closest_marker("early")) is not None]
    if not marked or session.config.option.collectonly:
        return
    folder = Path(tempfile.mkdtemp(prefix="cpmodels-early-"))
    # one command for each argv function, shared by the tests marked with it
    commands: list = []
    for _, argv in marked:
        if argv not in commands:
            commands.append(argv)
    argvs = [[str(a) for a in argv(folder / f"scratch{k}")]
             for k, argv in enumerate(commands)]
    subprocess.run([sys.executable, "-c", RUN_IN_TURN, str(folder), json.dumps(argvs),
                    str(EARLY_SECONDS)],
                   cwd=ROOT, check=True, timeout=60, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    session.config.stash[EARLY] = {
        "folder": folder,
        "index": {nodeid: commands.index(argv) for nodeid, argv in marked}}


def pytest_sessionfinish(session: pytest.Session) -> None:
    early = session.config.stash.get(EARLY, None)
    if early is None:
        return
    folder = early["folder"]
    with contextlib.suppress(OSError, ValueError, ProcessLookupError, PermissionError):
        os.killpg(int((folder / "pid").read_text()), signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)


class EarlyRun(subprocess.CompletedProcess):
    """An early command's status and output, and ``scratch``: the folder handed to its
    argv function, where it may leave what it made."""

    def __init__(self, argv, returncode: int, stdout: str, stderr: str, scratch: Path) -> None:
        super().__init__(argv, returncode, stdout, stderr)
        self.scratch = scratch


@pytest.fixture
def early(request, tmp_path) -> EarlyRun:
    """The test's ``early`` command, finished: waited for when the session started it, else
    run here (the test run on its own). The tests marked with the same argv function share
    one run of it."""
    marker = request.node.get_closest_marker("early")
    assert marker is not None, "the early fixture goes with the early(argv) mark"
    started = request.config.stash.get(EARLY, None)
    if started is None or request.node.nodeid not in started["index"]:
        scratch = tmp_path / "scratch"
        argv = [str(a) for a in marker.args[0](scratch)]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                              timeout=EARLY_SECONDS)
        return EarlyRun(argv, done.returncode, done.stdout, done.stderr, scratch)
    k = started["index"][request.node.nodeid]
    out = started["folder"] / str(k)
    deadline = time.monotonic() + EARLY_SECONDS
    while not (out / "status").exists():
        assert time.monotonic() < deadline, f"{marker.args[0]} did not end"
        time.sleep(0.2)
    return EarlyRun(marker.args[0], int((out / "status").read_text()),
                    (out / "stdout").read_text(errors="replace"),
                    (out / "stderr").read_text(errors="replace"),
                    started["folder"] / f"scratch{k}")


ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"


def write_figures(makers: dict[str, Callable[[], object]], scratch: Path) -> None:
    """What an early command computes for its tests to compare: each maker's figures (as
    JSON keeps them), or the traceback of the error that stopped it, by name, in
    ``scratch/figures.json``."""
    found: dict[str, dict[str, object]] = {}
    for name, make in makers.items():
        try:
            found[name] = {"figures": json.loads(json.dumps(make()))}
        except Exception:
            found[name] = {"error": traceback.format_exc()}
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "figures.json").write_text(json.dumps(found))


def figures_of(early: EarlyRun, name: str) -> object:
    """The figures :func:`write_figures` wrote for ``name`` in the test's early command; the
    test fails with the command's output, or with the traceback of the maker's error."""
    assert early.returncode == 0, early.stdout + early.stderr
    found = json.loads((early.scratch / "figures.json").read_text())[name]
    if "error" in found:
        pytest.fail(found["error"], pytrace=False)
    return found["figures"]


def early_call(module: str, function: str, scratch: Path) -> list[str]:
    """An early command that calls ``function(scratch)`` of the test module ``module``
    (a function of the scratch folder alone) in a fresh interpreter: work of a test's own
    code run on the second processor as the session starts."""
    return [sys.executable, "-c", "import sys; from pathlib import Path; "
            f"sys.path.insert(0, {str(ROOT / 'tests')!r}); import {module}; "
            f"{module}.{function}(Path(sys.argv[1]))", str(scratch)]


@pytest.fixture
def run_cli(capsys):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def solve_json(run_cli):
    """``solve ... --format json`` parsed, with its exit status."""

    def run(*argv: str) -> tuple[int, dict]:
        code, out, err = run_cli("solve", *argv, "--format", "json")
        assert out, err
        return code, json.loads(out)

    return run


def spec_fields(name: str) -> dict:
    """A bundled spec's fields as plain data (a board as the editor's API takes it)."""
    import yaml

    return yaml.safe_load((SPECS / f"{name}.yaml").read_text())


def ndjson_lines(response) -> list[dict]:
    """A streamed answer's lines, each checked to be newline-delimited JSON."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines() if line]


def stop_process(process: subprocess.Popen) -> None:
    """Stop a process a test started: terminate, then kill if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_seconds() -> float:
    """Processor seconds this process (all its threads) and its children that have ended
    have used: the measure of work a test asserts on, which load on the machine does not
    stretch as it stretches wall time."""
    used = os.times()
    return used.user + used.system + used.children_user + used.children_system


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` from the state on (None: no such process)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


class ProcessTree:
    """The processor seconds a process and its descendants (worker processes) have used,
    read from ``/proc`` whenever :meth:`sample` is called: a process that has ended counts
    with what it had used when last seen."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.seen: dict[int, float] = {}

    def pids(self) -> list[int]:
        """The process and its living descendants."""
        children: dict[int, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(stat.parent.name))
        found, at = [self.pid], 0
        while at < len(found):
            found.extend(children.get(found[at], []))
            at += 1
        return found

    def sample(self) -> float:
        """The processor seconds used so far: by the process (its own threads) and by every
        descendant seen (with the children each has waited for)."""
        for pid in {*self.pids(), *self.seen}:
            fields = _stat(pid)
            if fields is not None:
                ticks = sum(int(f) for f in fields[11:13 if pid == self.pid else 15])
                self.seen[pid] = max(self.seen.get(pid, 0.0), ticks / CLOCK_TICKS)
        return sum(self.seen.values())

    def running(self) -> bool:
        """Whether a process seen is still running (neither gone nor a zombie)."""
        return any((fields := _stat(pid)) is not None and fields[0] not in "ZX"
                   for pid in self.seen)


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_after_signal(process: subprocess.Popen, signum: int, *, most: float,
                     hang: float = 120.0) -> tuple[float, str, str]:
    """Send ``signum`` to ``process``, wait for it and its worker processes to end, and
    return the processor seconds they used from the signal on, with its standard output
    and error. The test fails (and they are killed) as soon as they have used more than
    ``most`` seconds since the signal, work that load cannot make smaller, or when one is
    still running after ``hang`` seconds of wall time, a guard against a hang only."""
    tree = ProcessTree(process.pid)
    before = tree.sample()
    process.send_signal(signum)
    deadline = time.monotonic() + hang
    while True:
        # Ended but not yet waited for: its figures are still there to read.
        ended = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        used = tree.sample() - before
        if used > most or time.monotonic() > deadline:
            for pid in tree.seen:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"still running {used:.2f} processor seconds after the signal"
                        if used > most else f"still running {hang:g} s after the signal")
        if ended is not None and not tree.running():
            break
        time.sleep(0.01)
    out, err = process.communicate()
    return used, out, err


def free_port() -> int:
    """A port free now, for what must be told one that nothing listens on. A server a
    test starts is given port 0 and says the port it took (:func:`said_port`): a port
    chosen here and bound later by another process may be taken between the two."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def said_port(process: subprocess.Popen, pattern: str, seconds: float = 120) -> int:
    """The port a server ``process`` started on port 0 says it listens on: group 1 of
    the first line of its output (text) that matches ``pattern``. The test fails if the
    process ends, or says no such line within ``seconds``. What it says after is read and
    let go, so a full pipe never stops it."""
    found: list[int] = []
    lines: list[str] = []
    said = threading.Event()

    def read() -> None:
        for line in process.stdout:
            if not found:
                lines.append(line)
                if match := re.search(pattern, line):
                    found.append(int(match.group(1)))
                    said.set()
        said.set()  # (the output ended)

    threading.Thread(target=read, daemon=True).start()
    said.wait(seconds)
    if not found:
        pytest.fail(f"the server said no port in {seconds:g} s (it said {lines!r}; "
                    f"exit status {process.poll()})")
    return found[0]


SERVING = r"^serving .* on http://[^ ]+:(\d+)/"  # what cpmodels serve says once it listens


@contextmanager
def running_server(app, *, browser_engine: bool = False, **limits) -> Iterator[str]:
    """Serve ``app`` (an app of ``create_app``, or a :class:`Delayed` one) on 127.0.0.1 in a
    thread, as ``cpmodels serve`` does (``limits``: :func:`server_config`'s), and stop it on
    the way out, each within :data:`SERVER_SECONDS`. The socket is bound here, on a port the
    system picks, and handed to the server: no other process can take the port between its
    choice and the bind. Its pages ask the API for every answer, as with
    ``--no-browser-engine``, unless ``browser_engine``: they then play with the engine in
    the browser."""
    served = app.app if isinstance(app, Delayed) else app
    served.state.server.browser_engine = browser_engine
    sock = listening_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    instance = uvicorn.Server(server_config(app, "127.0.0.1", port, **limits))
    failed: list[BaseException] = []

    def serve() -> None:
        try:
            instance.run(sockets=[sock])
        except BaseException as exc:  # told by the test's thread below
            failed.append(exc)

    thread = threading.Thread(target=serve, daemon=True, name=f"test-server-{port}")
    thread.start()
    deadline = time.monotonic() + SERVER_SECONDS
    while not instance.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        assert instance.started, (f"the server on port {port} did not start in "
                                  f"{SERVER_SECONDS} s" if thread.is_alive() else
                                  f"the server on port {port} ended as it started: {failed}")
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        thread.join(SERVER_SECONDS)
        sock.close()
    assert not thread.is_alive(), f"the server on port {port} did not stop in {SERVER_SECONDS} s"


SERVER_SECONDS = 30  # how long a test's server may take to start, and to stop


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> tuple[Path, str]:
    """``cpmodels site OUT`` (the bundled calendars), as a person runs it, and what it
    said: made once for the run, read (never changed) by the tests of the site's pages
    and files."""
    from test_wasm import _needs_clang

    from cpmodels.web import plans

    if not plans.engine_built():
        _needs_clang()
    out = tmp_path_factory.mktemp("published") / "site"
    done = subprocess.run([sys.executable, "-m", "cpmodels", "site", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return out, done.stdout


@pytest.fixture(scope="module")
def slow_server(request) -> Iterator[str]:
    """The page tests' server: the specs the test module names in ``SERVED`` (by default
    the weekday and day calendars), every API answer held back ``SERVER_LATE`` seconds (by
    default :data:`PAGE_LATE`) varied with ``SERVER_SEED`` (by default 0), as the module
    sets them; served for the module's tests and stopped after them."""
    from cpmodels.web.app import create_app

    module = request.module
    names = getattr(module, "SERVED", ("calendar_week", "calendar_day"))
    app = create_app([SPECS / f"{name}.yaml" for name in names])
    with running_server(Delayed(app, seed=getattr(module, "SERVER_SEED", 0),
                                late=getattr(module, "SERVER_LATE", PAGE_LATE))) as url:
        yield url


class Delayed:
    """ASGI app: ``app`` with each API answer held back ``late`` seconds (a range, varied,
    seeded): answers that come late and out of order, as from a busy server far away."""

    def __init__(self, app, seed: int, late: tuple[float, float] = (0.15, 0.4)) -> None:
        self.app = app
        self.random = random.Random(seed)
        self.late = late

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            await asyncio.sleep(self.random.uniform(*self.late))
        await self.app(scope, receive, send)


# How late the page tests' answers come: later than any local answer, and out of order.
PAGE_LATE = (0.06, 0.18)


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from the system packages (skipped when it is not installed, unless
    CPMODELS_E2E=require)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CPMODELS_E2E") == "require":
            pytest.fail("Chromium is required (CPMODELS_E2E=require) but not installed")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def screenshot(page, tmp_path: Path, name: str, variable: str) -> Path:
    """A full-page screenshot (checked not to be blank), copied to the path in environment
    ``variable`` when it is set: how the pictures in docs/images are refreshed."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    target = os.environ.get(variable)
    if target:
        shutil.copy(shot, target)
    return shot


STATIC = ROOT / "cpmodels" / "web" / "static"


SETTLED = """async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const boxes = () => JSON.stringify([document.documentElement.scrollHeight,
        ...[...document.querySelectorAll("svg, .tile, #tray, footer")]
            .map((e) => { const r = e.getBoundingClientRect();
                          return [r.x, r.y, r.width, r.height]; })]);
    let before = boxes();
    for (let i = 0; i < 60; i++) {
        await frame();
        await frame();
        const now = boxes();
        if (now === before) return i;
        before = now;
    }
    throw new Error("the page's layout kept moving for 120 frames");
}"""


def wait_until(page, expression: str, timeout_ms: int = 60_000) -> object:
    """Wait until ``expression`` (a page function, which may return a promise: its value is
    what counts) is truthy, and return that value. Playwright's ``wait_for_function`` does
    not await a promise, which is truthy at once; this does, asking again every 50 ms until
    ``timeout_ms`` have passed."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not (value := page.evaluate(expression)):
        if time.monotonic() > deadline:
            raise AssertionError(f"{expression} stayed false for {timeout_ms} ms")
        page.wait_for_timeout(50)
    return value


def settled(page) -> None:
    """Wait until the page has drawn its frames: what a move changed is laid out, and what
    its resize observers do with it (a board fitted to the room the tray leaves) is done.
    A point read off the screen before then can be stale by the time the mouse gets there,
    as a player's eye never is."""
    page.evaluate(SETTLED)


def page_globals(page, browser) -> list[str]:
    """The names the page's scripts left in the global scope: properties of ``window`` that
    a page of the same origin without scripts has not, and any top-level name of a script
    under ``static/`` the page's own code can see (ES modules leave none)."""
    blank = browser.new_page()
    try:
        origin = page.evaluate("location.origin")
        blank.goto(f"{origin}/static/dom.js")  # a text file: a document running no script
        declared = set()
        for script in STATIC.glob("*.js"):
            declared |= set(re.findall(r"^(?:export )?(?:async )?(?:function\*?|const|let|var|"
                                       r"class) +([A-Za-z_$][\w$]*)", script.read_text(), re.M))
        # A name the page's code sees, but for an element's id (the document's, not a
        # script's); a name declared but not yet set throws.
        visible = ("names => names.filter((n) => { try { const v = eval(n); return !(v "
                   "instanceof Element); } catch (e) { return !(e instanceof ReferenceError) "
                   "|| !/is not defined/.test(e.message); } })")
        added = (set(page.evaluate("Object.keys(window)"))
                 - set(blank.evaluate("Object.keys(window)")))
        seen = (set(page.evaluate(visible, sorted(declared)))
                - set(blank.evaluate(visible, sorted(declared))))
    finally:
        blank.close()
    return sorted(added | seen)


#: The core's interface as entry.h declares it, and its structs as ctypes Structures.
ENTRY = interface.read(ROOT / "cpmodels" / "_core" / "include" / "cpcore" / "entry.h")
CORE_STRUCTS = interface.ctypes_structs(ENTRY)


def core_struct(name: str, **values) -> ctypes.Structure:
    """The struct ``cpcore_NAME`` of entry.h with the fields given set, each array (of
    ctypes, or numpy) by its address and kept alive as long as the struct. Pass it to an
    entry point with ``ctypes.byref``."""
    def plain(value):
        if isinstance(value, (ctypes.Array, ctypes.Structure)):
            return ctypes.addressof(value)
        return value.ctypes.data if hasattr(value, "ctypes") else value

    made = CORE_STRUCTS[name](**{field: plain(v) for field, v in values.items()})
    made.kept = values
    return made


def core_library(tmp_path_factory, source: str, defines: tuple[str, ...] = ()) -> ctypes.CDLL:
    """One of the core's sources (``src/SOURCE``) built alone, freestanding, as a shared
    library (``defines``: the compiler's -D options too), to call its entry points over
    buffers the test gives, each typed as entry.h declares it (skips with no C++
    compiler). Under tests/test_sanitized.py (which sets
    CPMODELS_TEST_SANITIZED=1 in its subprocess, the sanitizer runtimes preloaded) it is built
    with them and its invariants checked, so that a word read or written past a buffer is
    reported there too."""
    compiler = shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        pytest.skip("no C++ compiler (g++ or clang++) on this machine")
    core_dir = ROOT / "cpmodels" / "_core"
    lib = tmp_path_factory.mktemp("core") / source.replace(".cpp", ".so")
    checked = (["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g",
                "-DCPCORE_DEBUG"] if os.environ.get("CPMODELS_TEST_SANITIZED") == "1" else [])
    subprocess.run([compiler, "-std=c++17", "-O1", "-shared", "-fPIC", "-ffreestanding",
                    "-fno-exceptions", "-fno-rtti", *checked, *defines,
                    "-I", str(core_dir / "include"),
                    str(core_dir / "src" / source), "-o", str(lib)],
                   check=True, timeout=300)
    return interface.ctypes_typed(ctypes.CDLL(str(lib)), ENTRY)


@pytest.fixture(autouse=True)
def _ctrl_c_left_as_found() -> Iterator[None]:
    """Every test leaves Ctrl-C as it found it: its handler, and not blocked in the main
    thread. A command started later inherits an ignored or blocked Ctrl-C and could not be
    interrupted (tests/test_counting.py's Ctrl-C test would wait for it)."""
    handler = signal.getsignal(signal.SIGINT)
    yield
    left, blocked = signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, [])
    changed = []
    if left is not handler:
        signal.signal(signal.SIGINT, handler)
        changed.append(f"its handler is {left!r}")
    if signal.SIGINT in blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        changed.append("it is blocked")
    if changed:
        pytest.fail("the test left Ctrl-C changed: " + " and ".join(changed))


def core_words(values, kind=ctypes.c_int64) -> ctypes.Array:
    """``values`` as a ctypes array of ``kind`` (one word at least, so it has an address)."""
    values = list(values)
    return (kind * max(len(values), 1))(*values)


SMALL_BUFFER = -1  # entry.h's CPCORE_GEOMETRY_SMALL_BUFFER


def core_stream(call) -> list[int]:
    """The stream of a geometry entry point (``call(buffers)``: the entry point on its input,
    handed a ``cpcore_buffers``), its buffers checked as entry.h says at each call: with none
    it asks for the scratch; with a word too little of scratch it refuses at once; with the
    scratch it counts what out needs; with out a word short it refuses with the whole need,
    writing nothing past out's end; with enough it writes the stream and answers its words."""
    def called(out, capacity, scratch, n_scratch):
        buffers = core_struct("buffers", out=out, out_capacity=capacity, scratch=scratch,
                              n_scratch=n_scratch, need_out=7, need_scratch=7)
        return call(ctypes.byref(buffers)), buffers.need_out, buffers.need_scratch

    status, _, need_scratch = called(None, 0, None, 0)
    assert status == SMALL_BUFFER
    scratch = core_words([0] * need_scratch)
    if need_scratch:
        status, _, again = called(None, 0, scratch, need_scratch - 1)
        assert (status, again) == (SMALL_BUFFER, need_scratch)
    status, need_out, again = called(None, 0, scratch, need_scratch)
    assert again == need_scratch and (status == SMALL_BUFFER) == (need_out > 0)
    if need_out == 0:
        return []
    out = core_words([-7] * (need_out + 1))
    assert called(out, need_out - 1, scratch, need_scratch) == \
        (SMALL_BUFFER, need_out, need_scratch)
    assert out[need_out - 1] == -7
    status, after, _ = called(out, need_out, scratch, need_scratch)
    assert 0 < status <= need_out == after and out[need_out] == -7
    return list(out[:status])
