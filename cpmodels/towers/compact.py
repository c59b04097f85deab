"""A branched bound in its compact form: the branches and their prices only, each branch's
bound worked out again by the programme when it is checked.

**What it claims.** No board scores more than ``bound``; with a ``board`` (legal, scoring
the bound) the bound is the optimum. (Version 1 of the format held each branch's band
certificates instead: 15 MB a branch on 10x10; it is refused with its version.)

**What it holds.** A zip: ``claim.json`` (the puzzle, the cut, the scale, the root's prices,
the bound, an optional board, and the branches: each its fixed cells and, when it is not
bounded at the root's prices, the index of its prices) and ``prices.npy``, the branches'
own prices stacked (``[sets, cols, codes, codes + 1, codes]``, ``1 / scale`` of a point).

**How it is checked** (:func:`check_branched_bound`). The branches must split the cut's
classes into a partition (``certificate.partition_gap``: none missing, none doubled). Then
for each branch both priced bands, restricted to its cells (``certificate.priced_bands``),
are solved by the programme (:func:`branch_value`, the same function the branch and bound
bounds its branches with), and the bound they give must be at most the claim. Any prices
give a bound, so prices need no proof of where they came from; what is trusted is the
programme (``programme.solve_dp`` and the core's ``towers_step``) and ``priced_bands``,
where the band certificates' checker trusts neither. The check costs a solve of both
bands a branch, as the search paid, and the file holds tens of bytes a branch (a set of
prices is stored once, shared by the branches of one parent).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cpmodels.errors import InputError
from cpmodels.files import json_member, npy_member, zip_in_place
from cpmodels.running import Finished, Here, Plan, Threads, run
from cpmodels.towers.certificate import (
    BRANCHED_FORMAT,
    BRANCHED_VERSION,
    MAX_BRANCHED_CLAIM_BYTES,
    MAX_BRANCHES,
    MAX_SCORE,
    CertificateCheck,
    Fixing,
    board_wrong,
    fixing_name,
    fixing_of,
    header_problem,
    partition_gap,
    priced_bands,
    priced_claim_numbers,
    same_json,
)
from cpmodels.towers.problem import TowersProblem

MAX_PRICE_SETS_BYTES = 1 << 29  # the stacked prices: 40,000 sets of 10x10's


class Prefixes:
    """Layers kept between calls of :func:`branch_value`, one a band: the programme's states
    after the cells before the last fixed column of a branch (the band read down its
    columns). The branches of one parent, bounded at its prices, differ only from that
    column on, so each goes on from the layer its first sibling made (the first half of
    the cells of 10x10's bands at depth 2). A layer is used only for a band whose first
    cells are the same (the same built cells and scores there: compared, not assumed)."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[bytes, int, np.ndarray, np.ndarray]] = {}
        self.reused = 0  # bands solved from a kept layer


def _prefix_of(band: TowersProblem, helper: int, points: np.ndarray,
               fixing: Fixing) -> tuple[bytes, int] | None:
    """What decides the programme's first cells of ``band`` before the last fixed column of
    ``fixing``, and how many cells that is; None when there is none to share."""
    from cpmodels.towers.programme import key_layout

    if not fixing or not key_layout(band).turned:
        return None
    column = fixing[-1][0]
    if column == 0:
        return None
    before = sorted((cell, k) for cell, k in band.fixed if cell[1] < column)
    said = repr((band.rows, band.cols, band.colours, band.allow_empty, helper,
                 before, points.shape)).encode()
    return said + np.ascontiguousarray(points[:, :column]).tobytes(), column * band.rows


def branch_value(problem: TowersProblem, cut: int, scale: int, prices: np.ndarray,
                 fixing: Fixing = (), prefixes: Prefixes | None = None,
                 ) -> tuple[int | None, int | None]:
    """Both priced bands' optima (scaled) at ``prices``, restricted to ``fixing``; None for
    a band with no legal board (then no board is in the branch). With ``prefixes``, a band
    whose first cells are those of the last band of its side solved with them goes on from
    that band's kept layer (the same optimum, less work)."""
    from cpmodels.towers.programme import solve_dp

    out: list[int | None] = []
    for side, (band, helper, points) in enumerate(priced_bands(problem, cut, scale, prices,
                                                               fixing)):
        helpers = frozenset([helper])
        shared = None if prefixes is None else _prefix_of(band, helper, points, fixing)
        start = None
        if prefixes is not None and shared is not None:
            said, cells = shared
            kept = prefixes.kept.get(side)
            if kept is not None and kept[0] == said and kept[1] == cells:
                prefixes.reused += 1
            else:
                layers: list[tuple[np.ndarray, np.ndarray]] = []

                def keep(t: int, keys: np.ndarray, values: np.ndarray, at: int = cells,
                         into: list[tuple[np.ndarray, np.ndarray]] = layers) -> None:
                    if t == at:
                        into.append((keys.copy(), values.copy()))
                made = solve_dp(band, helpers=helpers, cell_points=points, until=cells,
                                layer_sink=keep)
                if not made.finished:
                    raise InputError("a band did not finish (out of memory): no bound")
                if not layers:  # no state got that far: no band board, none in the branch
                    layers.append((np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)))
                kept = (said, cells, *layers[-1])
                prefixes.kept[side] = kept
            start = (cells, kept[2], kept[3])
        found = solve_dp(band, helpers=helpers, cell_points=points, start=start)
        if not found.finished:
            raise InputError("a band did not finish (out of memory): no bound")
        out.append(found.best)
    return out[0], out[1]


def value_bound(problem: TowersProblem, scale: int, top: int | None,
                bottom: int | None) -> int | None:
    """The bound two bands' optima give (None: the branch holds no board)."""
    if top is None or bottom is None:
        return None
    return problem.bound_from(top + bottom, scale)


def write_compact(path: Path, problem: TowersProblem, *, cut: int, scale: int,
                  prices: np.ndarray, bound: int, board: list[str] | None,
                  branches: list[tuple[Fixing, np.ndarray | None]]) -> None:
    """Write the compact certificate of ``branches`` (each its cells and its own prices,
    None: the root's) to ``path``; the same prices are stored once."""
    sets: list[np.ndarray] = []
    index: dict[bytes, int] = {}
    listed: list[dict[str, Any]] = []
    for fixing, own in branches:
        leaf: dict[str, Any] = {"fixing": [list(c) for c in fixing]}
        if own is not None:
            own = np.asarray(own, dtype=np.int64).reshape(prices.shape)
            key = own.tobytes()
            if key not in index:
                index[key] = len(sets)
                sets.append(own)
            leaf["prices"] = index[key]
        listed.append(leaf)
    stack = np.stack(sets) if sets else np.zeros((0, *prices.shape), dtype=np.int64)
    if not len(stack) or (stack.min() >= -(1 << 31) and stack.max() < 1 << 31):
        stack = stack.astype(np.int32)
    claim = {"format": BRANCHED_FORMAT, "version": BRANCHED_VERSION, "puzzle": problem.name,
             **header_problem(problem), "cut": cut, "scale": scale,
             "prices": np.asarray(prices).tolist(), "bound": bound, "board": board,
             "branches": listed}
    with zip_in_place(path) as archive:
        archive.writestr("claim.json", json.dumps(claim, separators=(",", ":")),
                         zipfile.ZIP_DEFLATED)
        data = io.BytesIO()
        np.lib.format.write_array(data, stack, allow_pickle=False)
        archive.writestr("prices.npy", data.getvalue(), zipfile.ZIP_DEFLATED)


def check_branched_bound(path: Path, problem: TowersProblem,
                        on_branch: Callable[[int, int], None] | None = None,
                        workers: int = 1) -> CertificateCheck:
    """Verify a branched bound (see the module docstring), ``workers`` branches at
    a time; ``on_branch(done, total)`` hears of each branch checked. Never raises for a bad
    file: a certificate that does not prove its claim, or does not read, is rejected with
    the reason."""
    try:
        with zipfile.ZipFile(path) as archive:
            claim = json_member(archive, "claim.json", MAX_BRANCHED_CLAIM_BYTES)
            if not isinstance(claim, dict) or not same_json(claim.get("format"),
                                                            BRANCHED_FORMAT):
                return CertificateCheck(False, f"{path} is not a branched bound")
            if not same_json(claim.get("version"), BRANCHED_VERSION):
                return CertificateCheck(False, f"{path} is a branched bound of version "
                                        f"{str(claim.get('version'))[:20]}; this checker "
                                        f"reads version {BRANCHED_VERSION}")
            numbers = priced_claim_numbers(claim, problem)
            if isinstance(numbers, str):
                return CertificateCheck(False, numbers)
            cut, scale, bound, root = numbers
            if "prices.npy" not in archive.namelist():
                return CertificateCheck(False, "the branches' prices (prices.npy) are missing")
            stack = npy_member(archive, "prices.npy", MAX_PRICE_SETS_BYTES)
    except (KeyError, ValueError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        return CertificateCheck(False, f"unreadable branched bound: {exc}")
    except OSError as exc:
        return CertificateCheck(False, f"cannot read {path}: {exc.strerror or exc}")
    if stack.dtype.kind != "i" or stack.shape[1:] != root.shape:
        return CertificateCheck(False, f"the branches' prices must be whole numbers of shape "
                                f"[sets, {', '.join(map(str, root.shape))}]")
    if stack.size and int(np.abs(stack.astype(np.int64)).max()) > MAX_SCORE:
        return CertificateCheck(False, f"the branches' prices hold a number beyond "
                                f"{MAX_SCORE:,} either way")
    leaves = claim.get("branches")
    if not isinstance(leaves, list) or len(leaves) > MAX_BRANCHES \
            or not all(isinstance(leaf, dict) for leaf in leaves):
        return CertificateCheck(False, f"the claim's branches must be a list of at most "
                                f"{MAX_BRANCHES:,} objects")
    try:
        fixings = [fixing_of(leaf.get("fixing"), problem.cols) for leaf in leaves]
        own = [None if leaf.get("prices") is None else
               _whole_index(leaf["prices"], len(stack)) for leaf in leaves]
    except ValueError as exc:
        return CertificateCheck(False, f"a branch is misshapen: {exc}")
    gap = partition_gap(fixings, problem.codes, problem.cols)
    if gap is not None:
        return CertificateCheck(False, f"the branches leave boards out: {gap}")
    stack = stack.astype(np.int64)
    jobs = [_Branch(problem, cut, scale, root if k is None else stack[k], fixing)
            for fixing, k in zip(fixings, own)]
    sink = _Bounded(problem, scale, bound, len(jobs), on_branch)
    place = Here() if workers <= 1 else Threads(workers)  # the programme lets go of the GIL
    try:
        run(Plan(jobs, _Valuer), place, sink)
    except _Above as above:
        return CertificateCheck(False, str(above))
    except InputError as exc:
        return CertificateCheck(False, f"a branch's bound was not worked out: {exc}")
    by = f"{len(leaves):,} branch{'' if len(leaves) == 1 else 'es'}"
    message = f"bound {bound} proved by {by}, each worked out again"
    board = claim.get("board")
    if board is None:
        return CertificateCheck(True, message, None, bound=bound, recomputed=len(leaves))
    if not isinstance(board, list) or not all(isinstance(row, str) for row in board):
        return CertificateCheck(False, "the claim's board must be a list of rows of letters")
    why = board_wrong(problem, board, bound, "the claim's board")
    if why is not None:
        return CertificateCheck(False, why)
    return CertificateCheck(True, f"optimum {bound} proved by {by}, each worked out again",
                            bound, bound=bound, recomputed=len(leaves))


@dataclass(frozen=True)
class _Branch:
    """One branch to work out again: the board, the cut, the scale, its prices, its cells."""

    problem: TowersProblem
    cut: int
    scale: int
    prices: np.ndarray
    fixing: Fixing


class _Valuer:
    """The run layer's worker: each branch's two band optima (:func:`branch_value`), the
    branches of one parent at its prices from one kept layer."""

    def __init__(self) -> None:
        self.prefixes = Prefixes()

    def run(self, unit: tuple[_Branch, ...]) -> list[tuple[int | None, int | None]]:
        return [branch_value(b.problem, b.cut, b.scale, b.prices, b.fixing, self.prefixes)
                for b in unit]

    def stop(self) -> None:
        return None  # a band's programme runs to its end


class _Above(Exception):
    """A branch's bound worked out again is above the claim: the check ends."""


class _Bounded:
    """The sink: each branch's bound, worked out, at most the claim (else :class:`_Above`,
    which stops the run), and ``on_branch(done, total)`` told."""

    def __init__(self, problem: TowersProblem, scale: int, bound: int, total: int,
                 on_branch: Callable[[int, int], None] | None) -> None:
        self.problem, self.scale, self.bound, self.total = problem, scale, bound, total
        self.on_branch, self.done = on_branch, 0

    def take(self, done: Finished) -> None:
        proved = value_bound(self.problem, self.scale, *done.result)
        if proved is not None and proved > self.bound:
            raise _Above(f"branch {fixing_name(done.item.fixing)}'s bands give {proved}, "
                         f"above the {self.bound} claimed")
        self.done += 1
        if self.on_branch is not None:
            self.on_branch(self.done, self.total)


def _whole_index(value: Any, sets: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < sets:
        raise ValueError(f"a branch's prices must be the index of a set of prices.npy "
                         f"(0 to {sets - 1}), not {str(value)[:20]!r}")
    return value

