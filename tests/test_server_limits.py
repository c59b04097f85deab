"""What keeps the server answering whatever its clients do: connections that send nothing
or a byte at a time are closed and never keep others out, a request that answers 504 lets
go of what it held before it answers, and a body that is not UTF-8 JSON is told so."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from conftest import SPECS, running_server
from fastapi.testclient import TestClient
from starlette.requests import Request

from cpmodels.errors import InputError
from cpmodels.web import board, designing, puzzles
from cpmodels.web.app import create_app
from cpmodels.web.connections import MAX_CONNECTIONS, Admission
from cpmodels.web.errors import refused
from cpmodels.web.play import InvalidPosition
from cpmodels.web.routes import board as board_routes
from cpmodels.web.routes import play as play_routes

WEEK = SPECS / "calendar_week.yaml"
READ_TIMEOUT = 1.0  # seconds, for the tests of slow clients
SMALL = {"board": ["A B C", "D E F"], "groups": {"top": ["A", "B", "C"],
                                                 "bottom": ["D", "E", "F"]},
         "pieces": [{"name": "L", "shape": "##/#."}, {"name": "I", "shape": "#"}]}


def _host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def _closed_within(sock: socket.socket, seconds: float, trickle: bytes = b"") -> float | None:
    """Seconds until the server closes ``sock`` (sending ``trickle`` a byte every 0.2 s
    meanwhile), or ``None`` if it is still open after ``seconds``."""
    start = time.perf_counter()
    sent = 0
    while time.perf_counter() - start < seconds:
        readable, _, _ = select.select([sock], [], [], 0.2)
        try:
            if readable and sock.recv(4096) == b"":
                return time.perf_counter() - start
            if sent < len(trickle):
                sock.send(trickle[sent:sent + 1])
                sent += 1
        except OSError:  # reset, or a broken pipe: closed
            return time.perf_counter() - start
    return None


# --- connections ----------------------------------------------------------------------


def test_silent_connections_do_not_keep_cheap_answers_out():
    """More connections than the cap, open and sending nothing: the list of calendars
    still answers, and the longest-waiting idle connections are closed to make room. The
    silent connections may wait ten minutes for their requests, so none is closed by that
    timeout within the test's guard against a hang."""
    with running_server(create_app([WEEK]), read_timeout=600.0) as url:
        silent = [socket.create_connection(_host_port(url)) for _ in range(MAX_CONNECTIONS + 44)]
        try:
            for _ in range(3):
                answer = httpx.get(f"{url}/api/specs", timeout=60)
                assert answer.status_code == 200, answer.text
            deadline = time.monotonic() + 60  # a hang guard: the closing is an event
            closed: set[int] = set()
            while len(closed) < 44 and time.monotonic() < deadline:
                readable, _, _ = select.select([s for s in silent if id(s) not in closed],
                                               [], [], 0.2)
                for sock in readable:
                    try:
                        ended = sock.recv(1) == b""
                    except OSError:  # reset: closed
                        ended = True
                    if ended:
                        closed.add(id(sock))
            assert len(closed) >= 44, f"{len(closed)} of the 44 over the cap were closed"
            # the first to come, which have waited longest
            assert closed <= {id(s) for s in silent[:44 + 3]}
        finally:
            for sock in silent:
                sock.close()


def _slow_uploads(url: str, count: int, stop: threading.Event) -> None:
    """``count`` connections, each sending a request's headers and the first byte of its
    body, and opened again whenever the server closes one, until ``stop``."""
    head = (b"POST /api/solution HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 60000\r\n\r\n{")

    def opened() -> socket.socket:
        sock = socket.create_connection(_host_port(url))
        sock.sendall(head)
        return sock
    socks = [opened() for _ in range(count)]
    try:
        while not stop.is_set():
            readable, _, _ = select.select(socks, [], [], 0.05)
            for sock in readable:
                sock.close()
                socks[socks.index(sock)] = opened()
    finally:
        for sock in socks:
            sock.close()


def test_bodies_on_their_way_do_not_keep_cheap_answers_out():
    """More requests than the cap, each with its headers sent and its body begun, and
    opened again as the server closes them: they hold no place, so the list of calendars
    answers 200 at once every time."""
    stop = threading.Event()
    with running_server(create_app([WEEK])) as url:
        uploads = threading.Thread(target=_slow_uploads, args=(url, MAX_CONNECTIONS + 44, stop))
        uploads.start()
        try:
            time.sleep(0.5)  # the server has them all
            answers = []
            for _ in range(15):
                answers.append(httpx.get(f"{url}/api/specs", timeout=10))
                time.sleep(0.1)
            assert [a.status_code for a in answers] == [200] * len(answers), \
                [a.text for a in answers if a.status_code != 200][:1]
        finally:
            stop.set()
            uploads.join(10)


def test_requests_past_the_cap_get_503_as_json():
    """Only requests being answered count: with the cap's worth at work, the next whose
    body has arrived is answered 503 with ``{"error": ...}``; one whose body is still on
    its way waits without counting, and is answered once a place is free."""
    async def scenario() -> tuple[list[dict], list[dict], int]:
        release = asyncio.Event()

        async def app(scope, receive, send):
            await receive()
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        admission = Admission(app, cap=1)
        scope = {"type": "http", "headers": []}

        def client(messages):
            sent: list[dict] = []

            async def receive():
                return messages.pop(0) if messages else await asyncio.Event().wait()

            async def send(message):
                sent.append(message)
            return receive, send, sent

        whole = {"type": "http.request", "body": b"{}", "more_body": False}
        first = client([dict(whole)])
        working = asyncio.ensure_future(admission(scope, *first[:2]))
        await asyncio.sleep(0)
        refused = client([dict(whole)])
        await admission(scope, *refused[:2])
        body_arrives = asyncio.Event()
        later_messages: list[dict] = []

        async def later_receive():
            await body_arrives.wait()
            return later_messages.pop(0)
        later_sent: list[dict] = []

        async def later_send(message):
            later_sent.append(message)
        later = asyncio.ensure_future(admission(scope, later_receive, later_send))
        await asyncio.sleep(0)
        waiting_count = admission.working  # the later request, body not yet here, is not counted
        release.set()
        await working
        later_messages.append(dict(whole))
        body_arrives.set()
        await later
        return refused[2], later_sent, waiting_count

    with ThreadPoolExecutor(1) as thread:  # a loop of its own (a browser's may be running)
        refused, later, waiting_count = thread.submit(asyncio.run, scenario()).result(10)
    assert refused[0]["status"] == 503
    assert (b"content-type", b"application/json") in refused[0]["headers"]
    assert "try again" in json.loads(refused[1]["body"])["error"]
    assert waiting_count == 1
    assert later[0]["status"] == 200


def test_a_connection_that_sends_nothing_is_closed():
    with running_server(create_app([WEEK]), read_timeout=READ_TIMEOUT) as url, \
            socket.create_connection(_host_port(url)) as sock:
        closed = _closed_within(sock, READ_TIMEOUT + 30)
        assert closed is not None and closed > READ_TIMEOUT * 0.8


def test_headers_sent_a_byte_at_a_time_are_cut_off_also_after_an_answer():
    """A slow client's headers, on a connection that has had an answer (where an idle
    timer alone is stopped by each byte): closed at the read timeout, not kept open."""
    with running_server(create_app([WEEK]), read_timeout=READ_TIMEOUT) as url, \
            socket.create_connection(_host_port(url)) as sock:
        sock.sendall(b"GET /api/specs HTTP/1.1\r\nhost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        time.sleep(0.1)
        closed = _closed_within(sock, READ_TIMEOUT + 30,
                                trickle=b"GET /api/specs HTTP/1.1\r\nx-slow: " + b"a" * 100)
        assert closed is not None and closed > READ_TIMEOUT * 0.5


def test_a_body_sent_slowly_is_cut_off():
    with running_server(create_app([WEEK]), read_timeout=READ_TIMEOUT) as url, \
            socket.create_connection(_host_port(url)) as sock:
        sock.sendall(b"POST /api/board/check HTTP/1.1\r\nhost: x\r\n"
                     b"content-type: application/json\r\ncontent-length: 100\r\n\r\n")
        closed = _closed_within(sock, READ_TIMEOUT + 30, trickle=b'{"board": "' + b"a" * 80)
        assert closed is not None and closed > READ_TIMEOUT * 0.5


def test_many_cheap_requests_answer_while_a_heavy_one_runs(monkeypatch):
    """A count holds a pool worker until fifty clients at once asking for the calendars
    have all been answered: were they waiting for it, they would be answered only after it
    gave up (60 s), and it would be done first. (Order, not seconds: a busy machine that
    answers slowly changes nothing.)"""
    started, release = threading.Event(), threading.Event()

    def slow_total(self, deadline=None):
        started.set()
        release.wait(60)
        return 7

    monkeypatch.setattr(puzzles.Solutions, "total", slow_total)
    with running_server(create_app([WEEK])) as url, ThreadPoolExecutor(51) as clients:
        heavy = clients.submit(httpx.post, f"{url}/api/count", timeout=90,
                               json={"spec": "calendar_week", "labels": ["Oct", "7", "Mon"]})
        try:
            assert started.wait(20)
            cheap = list(clients.map(lambda _: httpx.get(f"{url}/api/specs", timeout=90),
                                     range(50)))
            assert not heavy.done()
            assert [a.status_code for a in cheap] == [200] * 50
        finally:
            release.set()
        assert heavy.result().json()["count"] == 7


# --- 504 lets go of what it held ------------------------------------------------------


class Overrun:
    """Work that runs past its deadline without looking at it (the first call, until
    ``release``), then answers at once with an input error that names itself."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.overran = threading.Event()  # the first call has ended
        self.lock = threading.Lock()
        self.calls = 0

    def __call__(self, *args, **kwargs):
        with self.lock:
            self.calls += 1
            first = self.calls == 1
        if first:
            self.release.wait(120)
            self.overran.set()
        raise InputError("answered at once")


# (method, path, body, where the work its answer needs is looked up)
HEAVY = [
    ("POST", "/api/solution", {"spec": "calendar_week"}, (play_routes, "solution_answer")),
    ("POST", "/api/count", {"spec": "calendar_week"}, (play_routes, "count_answer")),
    ("POST", "/api/hint", {"spec": "calendar_week"}, (play_routes, "hint_answer")),
    ("POST", "/api/check", {"spec": "calendar_week"}, (play_routes, "check_answer")),
    ("GET", "/api/layout/calendar_week", None, (puzzles.Puzzles, "layout")),
    ("GET", "/api/board/pools/square", None, (board_routes, "pools")),
    ("GET", "/api/board/start/calendar_week", None, (board, "read_fields")),
    ("POST", "/api/board/check", SMALL, (board, "check")),
    ("POST", "/api/board/yaml", SMALL, (board, "to_yaml")),
    ("POST", "/api/board/play", SMALL, (board, "board_spec")),
    ("POST", "/api/board/counts", SMALL, (board, "BoardCounts")),
    ("POST", "/api/board/design", SMALL, (designing, "BoardDesign")),
    ("POST", "/api/board/make", SMALL, (designing, "made_board")),
]


@pytest.mark.parametrize(("method", "path", "body", "work"), HEAVY,
                         ids=[path for _, path, _, _ in HEAVY])
def test_a_request_that_answers_504_lets_go_of_its_place(monkeypatch, method, path, body,
                                                          work):
    """One worker, no queue: a request whose work overruns its deadline answers 504 and
    has given back its place (and a make its turn) by then, so the next request is
    answered rather than turned away (503) or left waiting for the overrunning work."""
    overrun = Overrun()
    monkeypatch.setattr(*work, overrun)
    client = TestClient(create_app([WEEK], workers=1, queue=0, time_limit=0.4))
    try:
        late = client.request(method, path, json=body)
        assert late.status_code == 504, late.text
        assert not overrun.overran.is_set(), "the 504 waited for the overrunning work"
        again = client.request(method, path, json=body)
        assert again.status_code == 422, again.text
        assert again.json()["error"] == "answered at once"
    finally:
        overrun.release.set()


# --- bodies ---------------------------------------------------------------------------

JSON = {"content-type": "application/json"}
BODIES = [
    (b"\xff\xfe\x00", JSON, 422, "UTF-16"),
    ('{"spec": "calendar_week"}'.encode("utf-16"), JSON, 422, "UTF-16"),
    ('{"spec": "calendar_week"}'.encode("utf-16-be"), JSON, 422, "is UTF-16 (NUL bytes"),
    ('{"spec": "calendar_week"}'.encode("utf-32"), JSON, 422, "is UTF-32 (it starts with"),
    ('{"spec": "calendar_week"}'.encode("utf-32-be"), JSON, 422, "is UTF-32 (NUL bytes"),
    ('{"spec": "calendar_week"}'.encode("utf-32-le"), JSON, 422, "is UTF-32 (NUL bytes"),
    (b'\xef\xbb\xbf{"spec": "calendar_week"}', JSON, 422, "byte order mark"),
    (b'{"spec": "calendar\xe9week"}', JSON, 422, "not UTF-8 text (byte 18 is 0xe9)"),
    (b'{"spec": "\xc3\x28"}', JSON, 422, "not UTF-8"),
    (b'{"spec": "calendar_week\x00"}', JSON, 422, "NUL byte"),
    (b'{"spec": "calendar_week"}\x00', JSON, 422, "NUL byte"),
    (b"[" * 5000 + b"]" * 5000, JSON, 422, "nested more than 32 levels"),
    (b'{"spec": "a\\ud800"}', JSON, 422, "half of a UTF-16 surrogate pair alone"),
    (b'{"spec": "calendar_week", "labels": ["\\udfff"]}', JSON, 422, "surrogate pair alone"),
    (b'{"\\udc00": 1}', JSON, 422, "surrogate pair alone"),
    (b'{"a": [{"b": ["x", "\\ud83d"]}]}', JSON, 422, "surrogate pair alone"),
    (b'{"index": ' + b"9" * 5000 + b"}", JSON, 422, "is too large (at most 9,223"),
    (b'{"index": 1' + b"0" * 200 + b".5}", JSON, 422, "too long to read"),
    (b'{"index": 1e999}', JSON, 422, "1e999 is not a finite number"),
    (b'{"index": -Infinity}', JSON, 422, "-Infinity is not a finite number"),
    (b'{"index": NaN}', JSON, 422, "NaN is not a finite number"),
    (b'{"spec": ', JSON, 422, "not valid JSON"),
    (b"", JSON, 422, "the request body is empty"),
    (b"", {}, 422, "the request body is empty"),
    (b'{"spec": "calendar_week"}', {"content-type": "text/plain"}, 415, "application/json"),
    (b"spec=calendar_week", {"content-type": "application/x-www-form-urlencoded"}, 415,
     "application/json"),
    (b'{"spec": "calendar_week"}', {"content-type": "application/json; charset=latin-1"},
     415, "UTF-8"),
]
JSON_PATHS = ["/api/solution", "/api/check", "/api/board/check", "/api/board/counts",
              "/api/board/make"]


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app([WEEK]))


@pytest.mark.parametrize("path", JSON_PATHS)
@pytest.mark.parametrize(("body", "headers", "status", "fragment"), BODIES,
                         ids=range(len(BODIES)))
def test_a_body_that_is_not_utf8_json_is_told_so(client, path, body, headers, status,
                                                 fragment):
    answer = client.post(path, content=body, headers=headers)
    assert answer.status_code == status, answer.text
    assert fragment in answer.json()["error"]


def test_json_bodies_still_read_as_before(client):
    """UTF-8 text beyond ASCII, a type with its charset, and no type at all."""
    for headers in ({"content-type": "application/json; charset=utf-8"}, {}):
        answer = client.post("/api/solution", headers=headers,
                             content='{"spec": "calendar_week", "date": "2026-12-25"}')
        assert answer.status_code == 200, answer.text
    answer = client.post("/api/solution", json={"spec": "calendar_w\u00e9ek"})
    assert answer.status_code == 404 and "calendar_w\u00e9ek" in answer.json()["error"]


@pytest.mark.parametrize(("body", "fragment"), [
    (b"name: caf\xe9\n", "not UTF-8 text"),
    ("name: x\n".encode("utf-16"), "UTF-16"),
    ("name: x\n".encode("utf-32"), "UTF-32"),
    (b"name: x\x00\n", "NUL byte"),
])
def test_a_yaml_body_that_is_not_utf8_is_told_so(client, body, fragment):
    answer = client.post("/api/board/open", content=body)
    assert answer.status_code == 422, answer.text
    assert fragment in answer.json()["error"] and "YAML" in answer.json()["error"]


def test_a_lone_surrogate_is_refused_in_one_sentence_and_an_error_never_fails(client):
    """Half of a UTF-16 pair alone (no UTF-8 holds it) in a YAML body is refused as in a
    JSON one; a pair whole is text like any other; and an error whose message holds
    a lone half is still answered (its escape written), never a 500."""
    said = client.post("/api/board/open", content=b'kind: calendar\nname: "a\\ud800"\n')
    assert said.status_code == 422, said.text
    assert said.json()["message"] == (
        "The text holds half of a UTF-16 surrogate pair alone (an escape such as \\ud800 "
        "without its other half), which is no character; write the character itself.")
    pair = client.post("/api/solution", content=b'{"spec": "calendar_w\\ud83d\\ude00"}')
    assert pair.status_code == 404 and "calendar_w\U0001f600" in pair.json()["error"]
    request = Request({"type": "http", "method": "POST", "path": "/api/x", "headers": []})
    for exc in (InputError("bad \ud800 text"), InvalidPosition("piece '\udfff' is off")):
        with ThreadPoolExecutor(1) as thread:  # a loop of its own (a browser's may be running)
            answer = thread.submit(asyncio.run, refused(request, exc)).result(10)
        assert answer.status_code == 422
        assert "\\ud800" in answer.body.decode() or "\\udfff" in answer.body.decode()


def test_validation_errors_are_plain_sentences(client):
    said = {
        "index": client.post("/api/solution", json={"spec": "calendar_week",
                                                    "index": {"isTrusted": True}}),
        "missing": client.post("/api/solution", json={}),
        "extra": client.post("/api/count", json={"spec": "calendar_week", "idx": 1}),
    }
    assert said["index"].json()["error"] == \
        "index: give a whole number from 0 (0 is the first solution)"
    assert said["missing"].json()["error"] == "spec is required"
    assert said["extra"].json()["error"] == "idx is not a field this request takes"
    assert {a.status_code for a in said.values()} == {422}


WEEK_REQUEST = {"spec": "calendar_week"}


@pytest.mark.parametrize(("path", "fields", "said"), [
    # bools, text and fractions are not whole numbers, nor numbers yes or no
    ("/api/solution", {"index": True}, "index: give a whole number from 0"),
    ("/api/solution", {"index": False}, "index: give a whole number from 0"),
    ("/api/solution", {"index": "3"}, "index: give a whole number from 0"),
    ("/api/solution", {"index": 1.0}, "index: give a whole number from 0"),
    ("/api/solution", {"index": -1}, "index: give a whole number from 0"),
    ("/api/solution", {"face_up": 1}, "face_up: give true or false"),
    ("/api/solution", {"face_up": "true"}, "face_up: give true or false"),
    ("/api/check", {"placements": [{"piece": "L", "cells": [[True, 0]]}]},
     "cells of placements item 1: give the cells the piece covers as [[ROW, COLUMN], ...]"),
    ("/api/hint", {"revealed": [{"piece": "L", "cells": [[0, 0]]}, {"piece": "L",
                                                                    "cells": [[0, 1.5]]}]},
     "cells of revealed item 2: give the cells"),
    # dates are text, never a number read as seconds
    ("/api/solution", {"date": 20260101}, "date: give a date as YYYY-MM-DD"),
    ("/api/count", {"date": "2026-13-45"}, "date: give a date as YYYY-MM-DD"),
    ("/api/count", {"date": True}, "date: give a date as YYYY-MM-DD"),
    # the validator's paths and phrases stay out of the sentence
    ("/api/solution", {"labels": [1]}, "labels: give one label per group"),
    ("/api/solution", {"labels": "Jan"}, "labels: give one label per group"),
    ("/api/solution", {"labels": ["x" * 41]}, "labels: give one label per group"),
    ("/api/check", {"placements": [{"piece": 7, "cells": [[0, 0]]}]},
     "piece of placements item 1: give a piece's name"),
    ("/api/check", {"placements": [{"cells": [[0, 0]]}]},
     "piece of placements item 1 is required"),
    ("/api/solution", {"spec": 7}, "spec: give a calendar's name"),
])
def test_every_validation_error_is_a_plain_sentence(client, path, fields, said):
    answer = client.post(path, json={**WEEK_REQUEST, **fields})
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error.startswith(said), error
    assert "Input should" not in error and "valid" not in error and ".0" not in error


def test_a_body_that_is_no_object_and_query_options_are_sentences(client):
    answer = client.post("/api/solution", json=[1])
    assert answer.status_code == 422
    assert answer.json()["error"].startswith("the request body should be a JSON object")
    answer = client.post("/api/board/make?cell=abc", json=SMALL)
    assert answer.status_code == 422
    assert answer.json()["error"] == "cell: give the side of a cell in millimetres, a number"


# --- serving --------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "no-such-host.invalid"])
def test_serve_where_it_cannot_listen_is_one_line_and_exit_2(run_cli, host):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_cli("serve", SPECS / "calendar_day.yaml", "--host", host,
                                 "--port", port)
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: cannot listen on {host}:{port}: ")
    assert "Traceback" not in err


def test_serve_answers_on_the_port_it_bound():
    """``cpmodels serve`` as a user starts it: the calendars are listed, a connection
    that sends nothing is no bar to them."""
    import subprocess
    import sys

    from conftest import said_port, stop_process

    process = subprocess.Popen([sys.executable, "-m", "cpmodels", "serve",
                                str(SPECS / "calendar_day.yaml"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = said_port(process, r"^serving 1 calendar spec\(s\) on http://127\.0\.0\.1:(\d+)/")
        with socket.create_connection(("127.0.0.1", port)):
            deadline = time.perf_counter() + 60
            while True:
                try:
                    answer = httpx.get(f"http://127.0.0.1:{port}/api/specs", timeout=30)
                    break
                except httpx.TransportError:
                    assert time.perf_counter() < deadline
                    time.sleep(0.2)
            assert answer.status_code == 200
            assert [s["name"] for s in answer.json()["specs"]] == ["calendar_day"]
    finally:
        stop_process(process)


def test_a_stream_with_no_thread_to_run_on_lets_go_of_its_work_and_its_place(monkeypatch):
    """When no thread can be started for a board's work, the work is stopped and its place
    among the open streams is free again: a server short of threads for a moment does not
    turn every later board away as busy."""
    from types import SimpleNamespace

    from cpmodels.web import streams

    class Work:
        stopped = False

        def rows(self):
            return iter(())

        def stop(self) -> None:
            self.stopped = True

    class Pool:
        async def call(self, make, data):
            return make(data)

    class NoThread(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    limits = streams.StreamLimits(at_once=1, waiting=0)
    monkeypatch.setattr(streams, "threading", SimpleNamespace(
        Thread=NoThread, Timer=threading.Timer, BoundedSemaphore=threading.BoundedSemaphore))
    work = Work()
    raised: list[BaseException] = []

    def serve() -> None:  # a thread of its own: a browser test's loop may run in this one
        try:
            asyncio.run(limits.stream(Pool(), lambda data: work, None, "counts"))
        except BaseException as exc:  # read below
            raised.append(exc)

    server = threading.Thread(target=serve)
    server.start()
    server.join(120)
    assert not server.is_alive()
    assert [str(exc) for exc in raised] == ["can't start new thread"]
    assert work.stopped
    assert limits.places.acquire(blocking=False)  # the one place is free


@pytest.mark.parametrize("given", ["65536", "-1", "80.5", "http", "", "1" * 5000, "\u00b2",
                                   "\u0663", " 80", "0x50", "080", "00000"])
def test_a_port_that_is_no_port_is_refused_in_a_sentence(capsys, given):
    """``serve --port`` takes 1 to 65535, or 0 for a free one the system picks: anything
    else is refused before the server starts, with the usage and a line that says what a
    port is, and exit status 2."""
    from cpmodels.cli import main

    with pytest.raises(SystemExit) as ended:
        main(["serve", "--port", given])
    out, err = capsys.readouterr()
    assert ended.value.code == 2 and out == ""
    assert err.strip().splitlines()[-1].endswith(
        "is not a port number (1 to 65535, or 0 for a free one)"), err
    assert "Traceback" not in err


@pytest.mark.parametrize(("host", "url"), [("127.0.0.1", "http://127.0.0.1:8123/"),
                                           ("::1", "http://[::1]:8123/"),
                                           ("localhost", "http://localhost:8123/")])
def test_serve_says_an_address_a_browser_opens(run_cli, monkeypatch, host, url):
    """The line ``serve`` starts with gives the port it listens on (the one the system
    picked for port 0) in a URL a browser opens: an IPv6 address in brackets."""
    from cpmodels.web import connections

    monkeypatch.setattr(connections, "serve", lambda app, h, port, listening: listening(8123))
    code, out, _ = run_cli("serve", SPECS / "calendar_day.yaml", "--host", host, "--port", "0")
    assert code == 0 and f" on {url} (Ctrl-C stops)" in out, out
