"""Print each reference figure with the time and peak memory it took (and, for counts, the
search's own seconds -- the count call with its instance built, so that it compares with
other solvers' search figures --, the engine's search nodes and the time a node: seconds /
nodes, the whole figure's).

``python benchmarks/run.py [NAME ...]`` runs each named benchmark in a fresh process.

Names: calendar_day_sweep, calendar_week_sweep, square_8x8, rect_6x10, rect_6x10_raw,
week11_jan1mon, week_jun7tue, centre_8x8, sat_centre_8x8, sat_jun7tue, prove_face_up,
pictures, export_suite, web_hints, web_play, web_load, design_apad, design_apad_difficulty,
design_weekday, design_weekday_1000, design_weekday_cluster, week_difficulty, first_count,
cluster_week_sweep, week11_sweep, week11_units, editor_stream_11, towers_3x3 ..
towers_10x10 (9x9 and 10x10 run for 10 minutes each),
towers_10x10_minute (one minute: CP-SAT, then its board polished by windows),
towers_10x10_joined (the priced bands' boards joined at the cut and polished),
towers_9x9_priced, towers_10x10_priced (the bound with priced rows), towers_9x9_bundle
(the same priced by the bundle), towers_9x9_certified, towers_10x10_certified (the bundle's
prices, kept in towers_9x9_prices.json and towers_10x10_prices.json with the best board
known, certified and checked; 10x10 with the branches over the cut kept in
towers_10x10.branches), towers_11x11_certified (the same for 11x11, its prices by
towers_gap.py),
towers_6x6_certificate .. towers_8x8_certificate (solve, write the certificate, check it),
towers_when_built_5x5, towers_when_built_10x10 (the game's build-order rule: the published
optima 81 and 58, each with its order of builds replayed). With no name, every benchmark runs.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cpmodels.counting import count_instance
from cpmodels.errors import OutOfTime
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec
from cpmodels.sweep import run_sweep
from cpmodels.towers import model as towers_model
from cpmodels.towers.problem import towers_problem

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _count(spec: str, distinct: bool = False, backend: str = "engine",
           **kw: object) -> Callable[[], tuple[str, int | None, float]]:
    def run() -> tuple[str, int | None, float]:
        instance = packing_instance(Query.of(load_spec(SPECS / spec), **kw))
        start = time.perf_counter()
        result = count_instance(instance, distinct=distinct, backend=backend)
        search = time.perf_counter() - start
        return f"{result.count:,}", result.nodes, search
    return run


def _prove_face_up() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        s = run_sweep(load_spec(SPECS / "calendar_week.yaml"), Path(tmp) / "up.csv",
                      face_up=True, prove=True)
    return (f"{len(s.unsolvable)} unsolvable of {s.combinations}, {s.proofs} proofs "
            "written and checked")


def _sweep(spec: str) -> Callable[[], tuple[str, int | None]]:
    def run() -> tuple[str, int | None]:
        with tempfile.TemporaryDirectory() as tmp:
            s = run_sweep(load_spec(SPECS / spec), Path(tmp) / "sweep.csv")
        fewest, most = s.fewest, s.most
        assert fewest is not None and most is not None
        return (f"{s.combinations} combinations, total {s.total:,} (real dates "
                f"{s.real_total:,}), fewest {' '.join(fewest.labels)} {fewest.count}, most "
                f"{' '.join(most.labels)} {most.count}, unsolvable {len(s.unsolvable)}",
                s.nodes or None)
    return run


def _pictures() -> str:
    """Every solution of Jun 7 Tue drawn as SVG, and 100 of them as PNG."""
    from cpmodels import api
    from cpmodels.render.raster import scene_png
    from cpmodels.render.svg import scene_svg

    svg = png = 0
    for k, solution in enumerate(api.solutions(SPECS / "calendar_week.yaml",
                                               labels=["Jun", "7", "Tue"])):
        scene = solution.scene()
        svg += len(scene_svg(scene)) > 0
        if k < 100:
            png += len(scene_png(scene)) > 0
    return f"{svg:,} SVG and {png} PNG boards"


def _web_hints() -> str:
    """Ten hints (a whole board) and ten solutions through the web API, in process."""
    from fastapi.testclient import TestClient

    from cpmodels.web.app import create_app

    client = TestClient(create_app([SPECS / "calendar_week.yaml"]))
    body = {"spec": "calendar_week", "labels": ["Apr", "6", "Mon"], "revealed": []}
    for _ in range(10):
        body["revealed"] = client.post("/api/hint", json=body).json()["revealed"]
    stepped = [client.post("/api/solution", json={"spec": "calendar_week", "index": index,
                                                  "labels": ["Apr", "6", "Mon"]}).json()
               for index in range(10)]
    solved = sum(s["status"] == "solved" for s in stepped)
    return f"{len(body['revealed'])} pieces hinted, {solved} solutions stepped"


def _web_play() -> str:
    """A player's game through /api/check, in process: for each of 20 dates, every prefix
    of a solution judged (10 checks), then a dead end with its pieces to take back."""
    import random

    from fastapi.testclient import TestClient

    from cpmodels.web.app import create_app

    client = TestClient(create_app([SPECS / "calendar_week.yaml"]))
    rng = random.Random(5)
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    checks = dead = 0
    for _ in range(20):
        puzzle = {"spec": "calendar_week",
                  "labels": [rng.choice(months), str(rng.randint(1, 28)), rng.choice(weekdays)]}
        board = client.post("/api/solution", json={**puzzle, "index": rng.randrange(50)}).json()
        placed = board["placements"]
        rng.shuffle(placed)
        for n in range(1, len(placed) + 1):
            verdict = client.post("/api/check", json={**puzzle, "placements": placed[:n]}).json()
            checks += 1
            assert verdict["status"] == ("solved" if n == len(placed) else "open"), verdict
        other = client.post("/api/solution", json={**puzzle, "index": 0}).json()["placements"]
        mixed = placed[:3] + [p for p in other if p["piece"] not in
                              {q["piece"] for q in placed[:3]}
                              and not {tuple(c) for c in p["cells"]}
                              & {tuple(c) for q in placed[:3] for c in q["cells"]}][:3]
        verdict = client.post("/api/check", json={**puzzle, "placements": mixed}).json()
        checks += 1
        dead += verdict["status"] == "dead_end"
    return f"{checks} positions judged, {dead} of 20 mixed positions dead ends"


def _web_load() -> str:
    """A fresh ``cpmodels serve``: 320 mixed requests, 32 at a time; throughput, latency."""
    import concurrent.futures as cf
    import random
    import socket
    import statistics
    from collections import Counter

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "cpmodels", "serve", "--port", str(port),
                               str(SPECS / "calendar_week.yaml"),
                               str(SPECS / "calendar_day.yaml")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rng = random.Random(1)
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    def request(k: int) -> tuple[str, dict]:
        week = [rng.choice(months), str(rng.randint(1, 28)), rng.choice(weekdays)]
        day = [rng.choice(months), str(rng.randint(1, 28))]
        return [("/api/count", {"spec": "calendar_week", "labels": week}),
                ("/api/count", {"spec": "calendar_day", "labels": day}),
                ("/api/solution", {"spec": "calendar_week", "labels": week,
                                   "index": rng.randrange(20)}),
                ("/api/hint", {"spec": "calendar_day", "labels": day}),
                ("/api/count", {"spec": "calendar_week", "labels": ["Jan", "99", "Mon"]}),
                ][k % 5]

    load = [request(k) for k in range(320)]
    try:
        while True:
            try:
                httpx.get(url + "/api/specs", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        with httpx.Client(timeout=60) as client, cf.ThreadPoolExecutor(32) as pool:
            def timed(item: tuple[str, dict]) -> tuple[int, float]:
                start = time.perf_counter()
                answer = client.post(url + item[0], json=item[1])
                return answer.status_code, time.perf_counter() - start

            start = time.perf_counter()
            answers = list(pool.map(timed, load))
            wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(10)
    latencies = sorted(t for _, t in answers)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    codes = Counter(code for code, _ in answers)
    return (f"{len(load) / wall:.0f} requests/s, p50 {statistics.median(latencies) * 1000:.0f} "
            f"ms, p95 {p95 * 1000:.0f} ms, status {dict(sorted(codes.items()))}")


def _cluster_sweep(spec: str) -> Callable[[], str]:
    """A sweep through a local Dask cluster of 2 workers, checked against one process."""
    def run() -> str:
        from cpmodels.backends.engine import connect

        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            with connect("local:2") as cluster:
                on = run_sweep(load_spec(SPECS / spec), Path(tmp) / "on.csv", cluster=cluster)
            seconds = time.perf_counter() - start
            run_sweep(load_spec(SPECS / spec), Path(tmp) / "alone.csv")
            same = (Path(tmp) / "on.csv").read_text() == (Path(tmp) / "alone.csv").read_text()
        return (f"{on.combinations} combinations, total {on.total:,} in {on.units} units on "
                f"2 workers in {seconds:.1f} s (cluster start included); rows "
                f"{'equal' if same else 'DIFFERENT'} to one process's")
    return run


def _week11_units() -> str:
    """The calendar_week_11 sweep cut into units, each timed in one process (its table warm
    from the units before it, as on a worker); predicted times on N workers."""
    import heapq

    from cpmodels.backends.engine import split_tasks
    from cpmodels.sweep import SWEEP_ARENA, SWEEP_MEMO_SLOTS, TallyPlan, scan_fixed_groups

    spec = load_spec(SPECS / "calendar_week_11.yaml")
    plan = TallyPlan.of(spec, fixed=scan_fixed_groups(spec))  # as the sweep: the weekdays
    counter = plan.session(table_slots=SWEEP_MEMO_SLOTS, arena=SWEEP_ARENA)
    tasks = [plan.task_holes(task) for task in plan.tasks()]
    units = [part for group in split_tasks(counter, tasks, 16 * 128) for part in group]
    seconds, total = [], 0
    for unit in units:
        start = time.perf_counter()
        total += sum(counter.tally(unit).values())
        seconds.append(time.perf_counter() - start)

    def predicted(workers: int) -> float:  # units handed out in order to the first free
        free = [0.0] * workers
        for s in seconds:
            heapq.heappush(free, heapq.heappop(free) + s)
        return max(free)

    longest = max(seconds)
    return (f"{len(units)} units, {sum(seconds):.0f} s in all, longest {longest:.2f} s "
            f"({longest / sum(seconds):.1%}); predicted on 8/32/128 workers: "
            f"{predicted(8):.0f}/{predicted(32):.0f}/{predicted(128):.0f} s; total {total:,}")


def _design(name: str, *, counts: bool = True, difficulty: bool = False,
            cluster: str | None = None, time_limit: float | None = None,
            first: int | None = None) -> Callable[[], str]:
    """A design file decided in full (or for ``time_limit`` seconds, with the rate and the
    time the whole would take; or its ``first`` candidates only, after the order learnt as
    for the whole): candidates, working sets, the best set."""
    def run() -> str:
        from cpmodels.backends.engine import using
        from cpmodels.design import Design, load_board, ranked_by_difficulty, run_design
        from cpmodels.spec.loading import load_design

        path = SPECS / "designs" / name
        spec = load_design(path)
        design = Design(spec, load_board(spec, path), with_counts=counts,
                        with_difficulty=difficulty)
        start = time.perf_counter()
        with using(cluster) as on:
            begun = time.perf_counter()
            try:
                verdicts = run_design(design, jobs=None, cluster=on, time_limit=time_limit,
                                      first=first)
            except OutOfTime as stop:
                verdicts = list(stop.partial or [])
        seconds = time.perf_counter() - begun
        working = sorted((v for v in verdicts if v.works), key=lambda v: -(v.min or 0))
        text = f"{len(verdicts):,} sets, {len(working)} solve every date"
        if time_limit is not None:
            total = sum(1 for _ in design.candidates())
            text += (f" in {seconds:.0f} s ({len(verdicts) / seconds * 60:.0f} sets a minute;"
                     f" all {total:,}: about {total / len(verdicts) * seconds / 60:.0f} min)")
        if cluster is not None:
            text += f"; cluster start {begun - start:.1f} s"
        if counts and working:
            best = working[0]
            text += (f"; best {' '.join(best.pieces)} (hardest {' '.join(best.argmin or ())}:"
                     f" {best.min})")
        gentlest = ranked_by_difficulty(verdicts)
        if gentlest:
            text += (f"; gentlest {' '.join(gentlest[0].pieces)} (difficulty "
                     f"{gentlest[0].difficulty:,} on {' '.join(gentlest[0].difficulty_argmax)})")
        return text
    return run


def _first_count() -> str:
    """``cpmodels count`` as a fresh install runs it, twice: the engine is compiled at
    install time, so the first run takes what any later run takes."""
    import json

    command = [sys.executable, "-m", "cpmodels", "count", str(SPECS / "calendar_week.yaml"),
               "--labels", "Jun", "7", "Tue", "--format", "json"]
    times, runs = [], []
    for _ in range(2):
        start = time.perf_counter()
        runs.append(subprocess.run(command, capture_output=True, text=True, check=True))
        times.append(time.perf_counter() - start)
    count = json.loads(runs[-1].stdout)["count"]
    return f"first run {times[0]:.2f} s, second {times[1]:.2f} s; count {count:,}"


def _sweep_difficulty(spec: str) -> Callable[[], str]:
    def run() -> str:
        with tempfile.TemporaryDirectory() as tmp:
            s = run_sweep(load_spec(SPECS / spec), Path(tmp) / "rows.csv", difficulty=True)
        hard, easy = s.most_difficult, s.least_difficult
        return (f"{s.combinations} combinations; most difficult {' '.join(hard.labels)} "
                f"({hard.difficulty:,}, {hard.count:,} solutions), least "
                f"{' '.join(easy.labels)} ({easy.difficulty:,}, {easy.count:,} solutions)")
    return run


def _towers(n: int, time_limit: float | None = None) -> Callable[[], str]:
    def run() -> str:
        r = towers_model.solve(towers_problem(load_spec(SPECS / "towers.yaml"), n, n),
                                 time_limit=time_limit)
        return (f"score {r.score:,}, bound {r.bound:,}, "
                f"{'proved' if r.optimal else 'not proved'} ({r.backend})")
    return run


def _towers_priced(n: int, cut: int, best: int, steps: int = 120,
                   method: str = "polyak") -> Callable[[], str]:
    def run() -> str:
        from cpmodels.towers import bounds

        problem = towers_problem(load_spec(SPECS / "towers.yaml"), n, n)
        priced = bounds.lagrangian_bound(problem, cut, steps=steps, target=best,
                                         method=method)
        after = {k: min(priced.steps[:k]) for k in (20, 80, 120, 160, 200)
                 if len(priced.steps) >= k}
        return (f"bound {priced.bound:,} after {len(priced.steps)} steps (free rows: "
                f"{priced.steps[0]:,.0f}; "
                + "; ".join(f"after {k}: {v:,.1f}" for k, v in after.items())
                + f"); gap to the best board {best:,}: {priced.bound - best}")
    return run


def _towers_when_built(n: int, points: tuple[int, ...]) -> Callable[[], str]:
    """The game's rule (needs checked when a tower is built), four colours in a chain."""
    def run() -> str:
        from cpmodels.towers import build

        text = (SPECS / "city_bloxx.yaml").read_text()
        for old, new in zip((205, 966, 2677, 5738), points):
            text = text.replace(f"points: {old}", f"points: {new}")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "game.yaml"
            path.write_text(text)
            problem = towers_problem(load_spec(path), n, n)
        r = towers_model.solve(problem)
        replayed = r.order is not None and build.replay(problem, r.order) == r.grid
        return (f"score {r.score:,}, {'proved' if r.optimal else 'not proved'}, "
                f"{len(r.order or [])} builds, {'replayed' if replayed else 'NOT REPLAYED'}")
    return run


def _towers_certificate(n: int) -> Callable[[], str]:
    def run() -> str:
        import tempfile
        import time

        from cpmodels.towers import programme
        from cpmodels.towers.certificate import CertificateWriter, check_certificate

        problem = towers_problem(load_spec(SPECS / "towers.yaml"), n, n)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "towers.cert"
            writer = CertificateWriter(path, problem, programme.key_layout(problem))
            r = towers_model.solve(problem, layer_sink=writer.layer)
            writer.finish(r.score, r.grid)
            start = time.perf_counter()
            check = check_certificate(path, problem)
            return (f"score {r.score:,} ({r.backend}); certificate {check.states:,} states, "
                    f"{path.stat().st_size / 1e6:.1f} MB, checked "
                    f"{'ok' if check.ok else 'REJECTED'} in {time.perf_counter() - start:.1f} s")
    return run



def _towers_stored_prices(name: str, branches: str | None = None, *,
                          compact: bool = False) -> Callable[[], str]:
    """Certify the priced bound of prices found before and kept beside this script (their
    search takes half an hour or more: see ``towers_9x9_bundle``), check the certificate,
    and check the board kept with them by the rules: a board scoring the bound is optimal.
    ``branches``, a branch and bound's state kept beside them (``towers.branching``): its
    figures, and when every branch is closed its certificate written and checked.
    ``compact``: the certificate is the branches' (``towers.compact``) with the root alone,
    its goal the stored bound, in place of the two bands' certificates (a sixth of the
    time and a quarter of the memory on 11x11)."""
    def run() -> str:
        import json
        import tempfile
        import time

        import numpy as np

        from cpmodels.towers.certificate import check_priced_bound
        from cpmodels.towers.proof import bound_with_certificate

        stored = json.loads((Path(__file__).parent / name).read_text())
        problem = towers_problem(load_spec(SPECS / stored["puzzle"]), stored["rows"],
                                 stored["cols"])
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "towers.bound"
            if compact:
                proved, check, seconds = _towers_root_certified(problem, stored, path)
            else:
                proved = bound_with_certificate(problem, path, cut=stored["cut"], steps=1,
                                                start=np.array(stored["prices"]),
                                                scale=stored["scale"])
                start = time.perf_counter()
                check = check_priced_bound(path, problem)
                seconds = time.perf_counter() - start
            size = path.stat().st_size / 1e6 if path.is_file() else 0.0
        board = stored["board"]  # the best board known, checked here by the rules
        legal = not problem.violations(board)
        score = problem.score(board)
        if not (legal and check.ok):
            verdict = "not proved"
        elif score >= proved.bound:
            verdict = "optimal"
        else:
            verdict = f"not proved: the gap is {proved.bound - score:,}"
        what = f"{check.recomputed} branch, {size * 1e6:,.0f} bytes" if compact \
            else f"{check.states:,} states, {size:.1f} MB"
        said = (f"bound {proved.bound:,} (stored {stored['bound']:,}); certificate "
                f"{what}, checked "
                f"{'ok' if check.ok else 'REJECTED'} in {seconds:.1f} s; the stored board "
                f"{'scores' if legal else 'BREAKS A RULE and scores'} {score:,}: {verdict}")
        kept = None if branches is None else Path(__file__).parent / branches
        if kept is not None and kept.is_file() and verdict != "optimal":
            said += "; " + _towers_branches(problem, kept, board if legal else None)
        return said
    return run


def _towers_root_certified(problem: Any, stored: dict[str, Any],
                           path: Path) -> tuple[Any, Any, float]:
    """The branches' certificate of ``stored`` prices with the root alone, its goal the
    stored bound, written to ``path`` (when the root's bands give no more) and checked
    (the check works the root's bands out again): the bound proved (the root's, as
    ``.bound``), the check and its seconds."""
    import time
    import types

    import numpy as np

    from cpmodels.towers.branching import BranchSearch
    from cpmodels.towers.certificate import CertificateCheck

    search = BranchSearch(problem, path.with_name("root.branches"), cut=stored["cut"],
                          scale=stored["scale"], prices=np.array(stored["prices"]),
                          goal=stored["bound"])
    search.run(max_branches=1)
    root = search.done[()].bound
    proved = types.SimpleNamespace(bound=stored["bound"] if root is None else root)
    if not search.outcome().closed:
        return proved, CertificateCheck(False, f"the root's bands give {root}, above the "
                                        f"stored bound {stored['bound']}"), 0.0
    search.write_certificate(path)
    start = time.perf_counter()
    check = search.check(path)
    return proved, check, time.perf_counter() - start


def _towers_branches(problem: Any, state: Path, board: list[str] | None) -> str:
    """A branch and bound's kept state: each depth's branches and highest bound, what they
    prove; when all are closed, the certificate written, checked, and the verdict."""
    from cpmodels.towers.branching import BranchSearch

    search = BranchSearch.stored(problem, state)
    outcome = search.outcome()
    depths = ", ".join(
        f"depth {lv.depth}: {lv.branches:,} ({lv.closed:,} closed, highest "
        f"{'none' if lv.highest is None else f'{lv.highest:,}'}, {lv.cpu:,.0f} s of CPU)"
        for lv in outcome.levels)
    said = f"branches over the cut ({depths})"
    if not outcome.closed:
        return (f"{said}: they prove {outcome.bound:,}, {outcome.waiting:,} wait: not proved"
                if outcome.bound is not None else f"{said}: not proved")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "towers.branched"
        wanted = board if board is not None and problem.score(board) == search.goal else None
        search.write_certificate(path, wanted)
        start = time.perf_counter()
        check = search.check(path)
        seconds = time.perf_counter() - start
        size = path.stat().st_size
    verdict = "optimal" if check.ok and check.optimum is not None else \
        f"no board above {search.goal:,}" if check.ok else "REJECTED"
    return (f"{said}: {check.message} ({size:,} bytes), checked in {seconds:.1f} s: "
            f"{verdict}")

def _towers_joined(n: int, steps: int, best: int) -> Callable[[], str]:
    """Better boards from the priced bands: Polyak's steps on the corners' prices as
    ``bounds.lagrangian_bound`` makes them (prices in hundredths, aimed 8% below ``best``),
    and at each step the top band's board joined at the cut to the bottom band's, the
    rows around the cut re-solved by the programme and the board polished by its windows
    (``towers.search``); the best board of any step, checked by the rules."""
    def run() -> str:
        import numpy as np

        from cpmodels.towers import bounds, search
        from cpmodels.towers.certificate import corner_counts, priced_bands
        from cpmodels.towers.programme import solve_dp

        problem = towers_problem(load_spec(SPECS / "towers.yaml"), n, n)
        cut, scale, n_codes = n // 2, 100, problem.codes
        prices = np.zeros((n, n_codes, n_codes + 1, n_codes), dtype=np.int64)
        theta, previous, found, first = 1.0, None, (-1, []), None
        for step in range(steps):
            total, boards = 0, []
            for band, helper, points in priced_bands(problem, cut, scale, prices):
                answer = solve_dp(band, board=True, helpers=frozenset([helper]),
                                  cell_points=points)
                total, boards = total + (answer.best or 0), [*boards, answer.grid or []]
            top, bottom = boards
            joined = search.best_window(problem, top[:cut] + bottom[1:], cut - 2, 4)
            board = search.polish(problem, joined) if joined else []
            legal = bool(board) and not problem.violations(board)
            if legal and problem.score(board) > found[0]:
                found = (problem.score(board), board)
                first = step
            value = total / scale
            slope = corner_counts(problem, bottom[0], bottom[1]) - \
                corner_counts(problem, top[cut - 1], top[cut])
            if previous is not None and value >= previous:
                theta *= 0.9
            previous = value
            norm = int((slope ** 2).sum()) or 1
            goal = (1 - bounds.AIM_BELOW) * best
            prices -= max(1, round(theta * (value - goal) * scale / norm)) * slope
        return (f"best board {found[0]:,} (first at step {first}), checked by the rules: "
                + " / ".join(found[1]))
    return run


def _export_suite() -> str:
    """The benchmark set written in full, then CaDiCaL on its DIMACS files where installed."""
    import shutil
    import subprocess
    import tempfile

    from cpmodels.export.suite import write_suite

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "suite"
        manifest = write_suite(out)
        files = sum(len(v) for item in manifest["instances"] for v in item["files"].values())
        size = sum(p.stat().st_size for p in out.iterdir()) / 1e6
        text = f"{len(manifest['instances'])} instances, {files} files, {size:.1f} MB"
        if shutil.which("cadical"):
            agree = 0
            cnfs = [(item, item["files"]["dimacs"][0]) for item in manifest["instances"]
                    if "dimacs" in item["files"]]
            for item, name in cnfs:
                done = subprocess.run(["cadical", "-q", str(out / name)], capture_output=True,
                                      check=False)
                agree += (done.returncode == 10) == item["expected"]["satisfiable"]
            text += f"; CaDiCaL agrees on {agree} of {len(cnfs)} DIMACS files"
    return text


TOWERS_ORACLES = {3: "200", 4: "440", 5: "730", 6: "1,130", 7: "1,570", 8: "2,100"}


def _make(spec: str) -> Callable[[], str]:
    def run() -> str:
        import tempfile

        from cpmodels.api import make

        with tempfile.TemporaryDirectory() as scratch:
            report = make(spec, Path(scratch) / "parts")
            parts = sum(len(f["parts"]) for f in report.manifest["files"]
                        if f["holds"] == "sheet")
            size = sum(p.stat().st_size for p in (Path(scratch) / "parts").iterdir()) / 1e6
        return (f"{parts} parts on {len(report.sheets) // 3} sheet(s), "
                f"{len(report.solids)} solids, {size:.1f} MB")
    return run


def _live_stream(path: str, body: Any, workers: int | None = None,
                 ) -> tuple[float, float, list[dict]]:
    """POST ``body`` to ``path`` of a live server (``workers`` search threads; None: one a
    core) and read its NDJSON: the seconds to the first line and to the last, and the
    lines."""
    import json
    import socket
    import threading

    import httpx
    import uvicorn

    from cpmodels.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app([SPECS / "calendar_day.yaml"],
                                                      workers=workers),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        start = time.perf_counter()
        first, lines = None, []
        with httpx.Client(timeout=300) as http, http.stream(
                "POST", f"http://127.0.0.1:{port}{path}", json=body) as answer:
            for line in answer.iter_lines():
                if first is None:
                    first = time.perf_counter() - start
                lines.append(json.loads(line))
        total = time.perf_counter() - start
    finally:
        server.should_exit = True
        thread.join(10)
    return first or total, total, lines


def _board_stream(spec: str) -> Callable[[], str]:
    """A drawn board's counts streamed by a live server, timed from the request."""
    def run() -> str:
        import yaml

        board = yaml.safe_load((SPECS / spec).read_text())
        first, total, lines = _live_stream("/api/board/counts", board)
        rows = sum("labels" in line for line in lines)
        return (f"{rows:,} combinations, first line after {first:.2f} s, all after "
                f"{total:.2f} s, {len(lines[-1]['unsolvable'])} unsolvable")
    return run


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished workers."""
    used = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        used += usage.ru_utime + usage.ru_stime
    return used


def _editor_stream(spec: str, rounds: int = 2) -> Callable[[], str]:
    """The editor's counts of a served calendar streamed by a live server on two search
    threads, against ``cpmodels sweep --jobs 2`` of the YAML the editor saves (rows
    compared combination by combination); ``rounds`` of each in turn, the best of each
    kept (the machine is shared), with the CPU each took."""
    def run() -> str:
        import yaml

        from cpmodels.spec import parse_spec
        from cpmodels.web.board import to_yaml

        fields = yaml.safe_load((SPECS / spec).read_text())
        saved = parse_spec(to_yaml(fields), spec)
        streams, sweeps = [], []
        for _ in range(rounds):
            cpu = _cpu_seconds()
            first, streamed, lines = _live_stream("/api/board/counts", fields, workers=2)
            streams.append((streamed, first, _cpu_seconds() - cpu))
            cpu, start = _cpu_seconds(), time.perf_counter()
            swept = run_sweep(saved, None, jobs=2)
            sweeps.append((time.perf_counter() - start, _cpu_seconds() - cpu))
            rows = {tuple(line["labels"]): line["count"] for line in lines if "labels" in line}
            assert rows == {labels: row.count for labels, row in swept.rows.items()}, \
                "the stream's counts differ from the sweep's"
        streamed, first, stream_cpu = min(streams)
        seconds, sweep_cpu = min(sweeps)
        return (f"{len(rows):,} combinations equal; best of {rounds}: stream {streamed:.2f} s "
                f"({stream_cpu:.1f} s CPU), first row after {min(f for _, f, _ in streams):.2f}"
                f" s; sweep --jobs 2 {seconds:.2f} s ({sweep_cpu:.1f} s CPU): "
                f"{streamed / seconds:.2f}x the sweep")
    return run


def _board_design() -> str:
    """The editor's design question on the month/day board: the rectangle always, any 7
    of the 12 pentominoes, every real date; decided set by set on one thread."""
    import yaml

    from cpmodels.palette import pools

    board = yaml.safe_load((SPECS / "calendar_day.yaml").read_text())
    board["pieces"] = [board["pieces"][0], *({"name": p["name"], "shape": p["shape"]}
                                             for p in pools("square")["pentominoes"])]
    first, total, lines = _live_stream("/api/board/design", {
        "board": board, "always": ["O6"], "choose": 7, "require": "real-dates"})
    done = lines[-1]
    return (f"{done['candidates']} sets, {len(done['working'])} work, first verdict after "
            f"{first:.2f} s, all after {total:.2f} s")


# A benchmark's figure: its text, or with the search's nodes, or with the nodes and the
# search's own seconds (a count: the count call with its instance built).
Figure = str | tuple[str, int | None] | tuple[str, int | None, float]

BENCHMARKS: dict[str, tuple[str, Callable[[], Figure]]] = {
    "calendar_day_sweep": ("calendar_day sweep of 372 (oracle 25,061)",
                           _sweep("calendar_day.yaml")),
    "calendar_week_sweep": ("calendar_week sweep of 2604 (oracle 4,937,780)",
                            _sweep("calendar_week.yaml")),
    "square_8x8": ("8x8 square box, distinct (oracle 16,146)",
                   _count("pentominoes_8x8_square.yaml", True)),
    "rect_6x10": ("6x10 pentominoes, distinct (oracle 2,339)",
                  _count("pentominoes_6x10.yaml", True)),
    "rect_6x10_raw": ("6x10 pentominoes, raw (oracle 9,356)", _count("pentominoes_6x10.yaml")),
    "week11_jan1mon": ("calendar_week_11 Jan 1 Mon (oracle 119,836)",
                       _count("calendar_week_11.yaml", labels=["Jan", "1", "Mon"])),
    "week_jun7tue": ("calendar_week Jun 7 Tue (oracle 10,374)",
                     _count("calendar_week.yaml", labels=["Jun", "7", "Tue"])),
    "centre_8x8": ("8x8 centre hole, raw (oracle 520)", _count("pentominoes_8x8_centre.yaml")),
    "sat_centre_8x8": ("8x8 centre hole through the CNF backend (oracle 520)",
                       _count("pentominoes_8x8_centre.yaml", backend="sat")),
    "sat_jun7tue": ("calendar_week Jun 7 Tue through the CNF backend (oracle 10,374)",
                    _count("calendar_week.yaml", backend="sat", labels=["Jun", "7", "Tue"])),
    "prove_face_up": ("calendar_week face up: sweep, then prove each unsolvable one (oracle 56)",
                      _prove_face_up),
    **{f"towers_{n}x{n}": (f"towers {n}x{n} (oracle {oracle})", _towers(n))
       for n, oracle in TOWERS_ORACLES.items()},
    "pictures": ("Jun 7 Tue: every solution as SVG, 100 as PNG (oracle 10,374)", _pictures),
    "make_week": ("make calendar_week: sheets (SVG, DXF, PNG), STL pieces and tray",
                  _make("calendar_week")),
    "board_day_stream": ("the editor's API: calendar_day drawn, 372 counts streamed",
                         _board_stream("calendar_day.yaml")),
    "board_week_stream": ("the editor's API: calendar_week drawn, 2604 counts streamed",
                          _board_stream("calendar_week.yaml")),
    "editor_stream_11": ("the editor's API: calendar_week_11 streamed on two threads "
                         "against its sweep in two processes", _editor_stream(
                             "calendar_week_11.yaml")),
    "board_design_apad": ("the editor's API: rectangle + 7 of 12 pentominoes on "
                          "calendar_day (792 sets, oracle 37 work)", _board_design),
    "export_suite": ("export-suite: 11 instances in every format, counts and optima verified",
                     _export_suite),
    "web_hints": ("web API: hints until the board is full, then 10 solutions", _web_hints),
    "web_play": ("web API: 20 games judged move by move, and a mixed position each",
                 _web_play),
    "web_load": ("web server: 320 counts, solutions, hints and bad requests, 32 at a time",
                 _web_load),
    "design_apad": ("2x3 rectangle + 7 of 12 pentominoes on calendar_day (792 sets)",
                    _design("apad_rectangle_pentominoes.yaml")),
    "design_apad_difficulty": ("the same 792 sets, existence and difficulty (no counts)",
                               _design("apad_rectangle_pentominoes.yaml", counts=False,
                                       difficulty=True)),
    "design_weekday": ("7 of 12 pentominoes + 3 of 5 tetrominoes on calendar_week, "
                       "existence only, the whole question",
                       _design("weekday_pentominoes_tetrominoes.yaml", counts=False)),
    "design_weekday_1000": ("the same, its first 1,000 sets only (the order learnt as for "
                            "the whole), every core (oracle 351 work)",
                            _design("weekday_pentominoes_tetrominoes.yaml", counts=False,
                                    first=1000)),
    "design_weekday_cluster": ("the same on a local Dask cluster of 2 workers, 5 minutes",
                               _design("weekday_pentominoes_tetrominoes.yaml", counts=False,
                                       time_limit=300, cluster="local:2")),
    "first_count": ("calendar_week Jun 7 Tue as a new process, twice (nothing compiled then)",
                    _first_count),
    "week_difficulty": ("calendar_week sweep with the difficulty column",
                        _sweep_difficulty("calendar_week.yaml")),
    "cluster_week_sweep": ("calendar_week sweep on a local Dask cluster (oracle 4,937,780)",
                           _cluster_sweep("calendar_week.yaml")),
    "week11_sweep": ("calendar_week_11 sweep of 2604, every core", _sweep("calendar_week_11.yaml")),
    "week11_units": ("calendar_week_11 sweep as cluster units, timed one by one",
                     _week11_units),
    "soma": ("Soma cube, raw (oracle 11,520)", _count("soma.yaml")),
    "soma_distinct": ("Soma cube, distinct (oracle 240)", _count("soma.yaml", distinct=True)),
    "rhombus": ("12 hexiamonds in the side-6 rhombus, raw (oracle 624)",
                _count("hexiamonds_rhombus.yaml")),
    "rhombus_distinct": ("12 hexiamonds in the side-6 rhombus, distinct (oracle 156)",
                         _count("hexiamonds_rhombus.yaml", distinct=True)),
    "polyhexes_4x10": ("polyhexes of 1 to 4 cells, 4x10, distinct (oracle 7,404,530)",
                       _count("polyhexes.yaml", distinct=True)),
    "solid_2x3x10": ("solid pentominoes, 2x3x10 box, raw (oracle 96)",
                     _count("solid_pentominoes.yaml", target="box_2x3x10")),
    "solid_2x5x6": ("solid pentominoes, 2x5x6 box, raw (oracle 2,112)",
                    _count("solid_pentominoes.yaml", target="box_2x5x6")),
    "solid_3x4x5": ("solid pentominoes, 3x4x5 box, raw (oracle 31,520)",
                    _count("solid_pentominoes.yaml", target="box_3x4x5")),
    **{f"towers_{n}x{n}_certificate": (f"towers {n}x{n} with its certificate, checked",
                                        _towers_certificate(n)) for n in (6, 7, 8)},
    "towers_9x9": ("towers 9x9, 10 minutes", _towers(9, 600)),
    "towers_when_built_5x5": ("towers 5x5 when built, points 1/2/3/4 (published optimum 81)",
                              _towers_when_built(5, (1, 2, 3, 4))),
    "towers_when_built_10x10": ("towers 10x10 when built, Yellow 1, rest 0 (published 58)",
                                _towers_when_built(10, (0, 0, 0, 1))),
    "towers_9x9_priced": ("towers 9x9: bands 5 + 4 with priced corners across the cut, "
                          "120 steps", _towers_priced(9, 5, 2750)),
    "towers_10x10_priced": ("towers 10x10: bands 5 + 5 with priced corners, 120 steps",
                            _towers_priced(10, 5, 3400)),
    "towers_9x9_certified": ("towers 9x9: the bundle's stored prices certified and checked",
                             _towers_stored_prices("towers_9x9_prices.json")),
    "towers_10x10_certified": ("towers 10x10: the bundle's stored prices certified and "
                               "checked, with the best board known",
                               _towers_stored_prices("towers_10x10_prices.json",
                                                     "towers_10x10.branches")),
    "towers_11x11_certified": ("towers 11x11: stored prices (bands 6 + 5, 24 of Polyak's "
                               "steps, then the bundle's: towers_gap.py) certified and "
                               "checked, with the best board known",
                               _towers_stored_prices("towers_11x11_prices.json",
                                                     compact=True)),
    "towers_9x9_bundle": ("towers 9x9: bands 5 + 4 with priced corners, 240 steps, the "
                          "last three quarters by the bundle", _towers_priced(9, 5, 2750, 240,
                                                                             "bundle")),
    "towers_10x10": ("towers 10x10, 10 minutes (best known 3,400)",
                     _towers(10, 600)),
    "towers_10x10_joined": ("towers 10x10: the priced bands' boards joined and polished, "
                            "20 steps", _towers_joined(10, 20, 3400)),
    "towers_10x10_minute": ("towers 10x10, 1 minute (CP-SAT, then the windows' polish)",
                            _towers(10, 60)),
}


def _peak_mb() -> float:
    """The largest resident size of this process or any of its finished workers (MB)."""
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return peak / 1024  # Linux reports KB


def run_one(name: str) -> None:
    """Run one benchmark here and print its line: time, peak memory, the search's own
    seconds, the engine's search nodes and time a node (counts; "-" where the figure does
    not say), and the figure."""
    title, run = BENCHMARKS[name]
    # Warm the compiled engine so the figure does not pay for loading it.
    _count("calendar_day.yaml", labels=["Oct", "6"])()
    start = time.perf_counter()
    figure = run()
    seconds = time.perf_counter() - start
    nodes: int | None = None
    search: float | None = None
    if isinstance(figure, tuple):
        figure, nodes, *rest = figure
        search = rest[0] if rest else None
    searched = (f"{nodes:13,d} {seconds / nodes * 1e9:7,.0f}" if nodes
                else f"{'-':>13s} {'-':>7s}")
    alone = f"{search:8.3f} s" if search is not None else f"{'-':>10s}"
    print(f"{name:22s} {seconds:8.2f} s {alone} {_peak_mb():8,.0f} MB {searched}  {title}: "
          f"{figure}", flush=True)


def main(names: list[str]) -> int:
    if names[:1] == ["--one"]:
        run_one(names[1])
        return 0
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        return 2
    print(f"{'benchmark':22s} {'seconds':>10s} {'search':>10s} {'peak':>11s} {'nodes':>13s} "
          f"{'ns/node':>7s}  figure", flush=True)
    for name in names or list(BENCHMARKS):
        # Each in a fresh process, so its peak memory is its own.
        done = subprocess.run([sys.executable, __file__, "--one", name], check=False)
        if done.returncode != 0:
            print(f"{name:22s} failed (exit {done.returncode})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
