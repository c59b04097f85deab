"""Certificates of towers optima, written from the dynamic programme, and their checker.

**What a certificate claims.** No board of the puzzle scores more than ``optimum``, and the
``board`` it carries is legal and scores exactly that: so ``optimum`` is the optimum. (With
no optimum and no board, it claims that no board is legal at all.)

**What it holds.** Cells are placed one at a time in reading order (the board turned when
``turned``). After ``t`` cells, a partial board's *state* is its frontier: for each column,
the last cell placed there, as its colour and the colours it still needs from neighbours
not yet placed. Layer ``t`` lists states with a score each. The checker verifies, layer by
layer, that every legal way to place the next cell from a listed state leads to a listed
state with at least the score (``score + points``), or cannot beat the claim. By induction
every board's prefix reaches a listed state scoring at least as much, so the last layer's
best score bounds every board.

"Cannot beat the claim" is the programme's half-turn bound, and the checker verifies it too:
turning the board half a turn maps the cells after the ``t``-th onto the first cells of the
reading order, so when no cell is built and the layer of that many cells was verified
complete (no step before it used a bound), its best score bounds what the rest can add.

A placement is illegal, and needs no successor, when some cell it touches is left needing
more colours than it has neighbours still to place: each neighbour brings one colour.

**The file.** A zip archive: ``header.json`` (the puzzle, the key layout, the claim) and,
for each layer ``t``, ``layers/t.keys.npy`` (the states, sorted, packed into 64-bit keys as
:class:`~cpmodels.towers.programme.KeyLayout` describes, stored as differences from the
previous key) and ``layers/t.scores.npy``. The checker shares no code with the programme:
it reads the layout from the header and re-derives every transition with numpy.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cpmodels.files import (
    MAX_JSON_BYTES,
    check_output,
    json_member,
    move_into_place,
    npy_member,
    stored_member,
    temp_beside,
)
from cpmodels.interrupt import ctrl_c_held
from cpmodels.towers.problem import TowersProblem

if TYPE_CHECKING:  # the writer is given the programme's layout; the checker reads the header
    from cpmodels.towers.programme import KeyLayout

FORMAT = "cpmodels-towers-certificate"
VERSION = 1
_NO_SCORE = np.iinfo(np.int64).min


def same_json(read: Any, wanted: Any) -> bool:
    """Whether a value read from JSON equals ``wanted`` with every number of the same kind:
    ``true`` is no 1, and ``1.0`` no 1 (Python's ``==`` takes them for equal)."""
    if type(read) is not type(wanted):
        return False
    if isinstance(wanted, dict):
        return read.keys() == wanted.keys() and all(same_json(read[k], v)
                                                    for k, v in wanted.items())
    if isinstance(wanted, list):
        return len(read) == len(wanted) and all(map(same_json, read, wanted))
    return bool(read == wanted)


def header_problem(problem: TowersProblem) -> dict[str, Any]:
    """The puzzle as a certificate's header records it (compared with the spec's)."""
    letters = [c.letter for c in problem.colours]
    return {
        "rows": problem.rows, "cols": problem.cols,
        "colours": [{"letter": c.letter, "points": c.points,
                     "needs": [letters[n] for n in c.needs]} for c in problem.colours],
        "allow_empty": problem.allow_empty, "empty_letter": problem.empty_letter,
        "fixed": [[r, c, k] for (r, c), k in problem.fixed],
    }


class CertificateWriter:
    """Writes the programme's layers (as its ``layer_sink``) and the claim to ``path``.

    ``layout`` is the programme's (``programme.key_layout``). Layers go as they come to a
    temporary file beside ``path``, made with the first; a layer 0 starts the file again
    (the solver may run the programme more than once). :meth:`finish` adds the header and moves
    the file into place; :meth:`discard` removes it.
    """

    def __init__(self, path: Path, problem: TowersProblem, layout: KeyLayout,
                 band: dict[str, Any] | None = None) -> None:
        self.path, self.problem, self.band = Path(path), problem, band
        self.layout = {"turned": layout.turned, "cell_bits": layout.cell_bits,
                       "colour_bits": layout.colour_bits}
        check_output(self.path)  # before any work: a target the writer may replace
        self.tmp: Path | None = None  # made as the first layer comes (see layer)
        self.archive: zipfile.ZipFile | None = None
        self.layers = 0
        self.complete = False  # the last run reached its last layer (or an empty one)
        self.states = 0

    def layer(self, t: int, keys: np.ndarray, scores: np.ndarray) -> None:
        if t == 0:
            self._close()
            if self.tmp is None:
                # Made and kept here at once (a Ctrl-C as it is made comes after): the
                # writer's discard, however the run ends, finds the file to remove.
                with ctrl_c_held():
                    self.tmp = temp_beside(self.path)
            self.archive = zipfile.ZipFile(self.tmp, "w", zipfile.ZIP_DEFLATED,
                                           compresslevel=1)
            self.layers, self.states, self.complete = 0, 0, False
        assert self.archive is not None and t == self.layers
        order = np.argsort(keys)
        keys = keys[order]
        scores = scores[order]
        small = len(scores) == 0 or (scores.min() >= -(1 << 31) and scores.max() < 1 << 31)
        self._write(f"layers/{t}.keys.npy", np.diff(keys, prepend=np.uint64(0)))
        self._write(f"layers/{t}.scores.npy", scores.astype(np.int32 if small else np.int64))
        self.layers += 1
        self.states += len(keys)
        rows, cols = self.problem.rows, self.problem.cols
        self.complete = t == rows * cols or len(keys) == 0

    def _write(self, name: str, array: np.ndarray) -> None:
        assert self.archive is not None
        with self.archive.open(name, "w", force_zip64=True) as stream:
            np.lib.format.write_array(stream, array, allow_pickle=False)

    def finish(self, optimum: int | None, board: list[str] | None,
               bound: int | None = None) -> None:
        """Write the claim and move the file into place. A band's certificate claims only a
        ``bound`` (no optimum, no board)."""
        if self.archive is None or not self.complete:
            raise ValueError("the programme did not run to its end: no certificate")
        header = {"format": FORMAT, "version": VERSION, "puzzle": self.problem.name,
                  **header_problem(self.problem), **self.layout, "layers": self.layers,
                  "optimum": optimum, "board": board}
        if self.band is not None:
            header.update(band=self.band, bound=bound)
        self.archive.writestr("header.json", json.dumps(header, indent=1))
        self._close()
        assert self.tmp is not None  # made with the first layer
        move_into_place(self.tmp, self.path)

    def discard(self) -> None:
        self._close()
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)

    def _close(self) -> None:
        if self.archive is not None:
            self.archive.close()
            self.archive = None


@dataclass
class CertificateCheck:
    """The checker's verdict: the optimum proved (None: no legal board), or the reason the
    certificate was rejected; the states read and the placements the half-turn bound
    settled."""

    ok: bool
    message: str
    optimum: int | None = None
    states: int = 0
    layers: int = 0
    bounded: int = 0
    bound: int | None = None  # a band's certificate: no band board scores more than this
    recomputed: int = 0  # branches whose bounds the check worked out again (``compact``)


def read_header(path: Path) -> dict[str, Any]:
    """A certificate's header; ValueError when the file is not a towers certificate."""
    try:
        with zipfile.ZipFile(path) as archive:
            header = json_member(archive, "header.json")
    except KeyError:
        raise ValueError(f"{path} has no header.json: not a towers certificate") from None
    except json.JSONDecodeError as exc:
        why = exc.msg if "out of range" in exc.msg else "not a zip archive with a JSON header"
        raise ValueError(f"{path} is not a towers certificate ({why})") from None
    except (zipfile.BadZipFile, UnicodeDecodeError):
        raise ValueError(f"{path} is not a towers certificate (not a zip archive with a "
                         "JSON header)") from None
    if not isinstance(header, dict) or not same_json(header.get("format"), FORMAT):
        raise ValueError(f"{path} is not a towers certificate")
    if not same_json(header.get("version"), VERSION):
        raise ValueError(f"{path} is a certificate of version {header.get('version')!r}; "
                         f"this checker reads version {VERSION}")
    return header


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


class _Layers:
    """Reads layer ``t`` of an open certificate: sorted keys and their scores."""

    def __init__(self, archive: zipfile.ZipFile, count: int) -> None:
        self.archive, self.count = archive, count

    def __call__(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        if t >= self.count:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
        deltas = self._array(f"layers/{t}.keys.npy")
        scores = self._array(f"layers/{t}.scores.npy")
        if deltas.dtype != np.uint64 or deltas.ndim != 1 or scores.ndim != 1 \
                or scores.dtype.kind != "i" or len(scores) != len(deltas):
            raise ValueError(f"layer {t} is malformed (keys must be uint64 and match the "
                             "scores one for one)")
        if len(deltas) > 1 and not (deltas[1:] > 0).all():
            raise ValueError(f"layer {t} lists a state twice or out of order")
        with np.errstate(over="ignore"):
            keys = np.cumsum(deltas, dtype=np.uint64)
        if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
            raise ValueError(f"layer {t}'s keys overflow 64 bits")
        if len(scores) and (int(scores.min()) < -MAX_SCORE or int(scores.max()) > MAX_SCORE):
            raise ValueError(f"layer {t} holds a score beyond {MAX_SCORE:,} either way")
        return keys, scores.astype(np.int64)

    def _array(self, name: str) -> np.ndarray:
        try:
            return npy_member(self.archive, name)
        except KeyError:
            raise ValueError(f"{name} is missing") from None


def check_certificate(path: Path, problem: TowersProblem,
                      on_layer: Callable[[int, int], None] | None = None) -> CertificateCheck:
    """Verify the certificate at ``path`` for ``problem`` (see the module docstring).

    ``on_layer(t, total)`` is told of each layer checked. Never raises for a bad file: a
    certificate that does not prove its claim, or does not read, is rejected with the reason.
    """
    try:
        header = read_header(path)
        if not same_json({k: header.get(k) for k in header_problem(problem)},
                         header_problem(problem)):
            return CertificateCheck(False, _mismatch(header, problem))
        with zipfile.ZipFile(path) as archive:
            return _check(header, problem, archive, on_layer)
    except KeyError as exc:
        return CertificateCheck(False, f"unreadable certificate: the header lacks {exc}")
    except (ValueError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        return CertificateCheck(False, f"unreadable certificate: {exc}")
    except OSError as exc:
        return CertificateCheck(False, f"cannot read {path}: {exc.strerror or exc}")


def _mismatch(header: dict[str, Any], problem: TowersProblem) -> str:
    size = f"{problem.rows}x{problem.cols}"
    theirs = f"{header.get('rows')}x{header.get('cols')}"
    if theirs != size:
        return f"the certificate is for a {theirs} board, not {size}"
    return (f"the certificate is for another puzzle (its colours, points, needs or built "
            f"cells differ from {problem.name}'s)")


def board_wrong(problem: TowersProblem, board: list[str], claim: int, what: str) -> str | None:
    """Why ``board`` does not show ``claim`` reached (a rule it breaks, another score), or
    None."""
    wrong = problem.violations(board)
    if wrong:
        return f"{what} breaks a rule: {wrong[0]}"
    if problem.score(board) != claim:
        return f"{what} scores {problem.score(board)}, not the {claim} it claims"
    return None


MAX_SCORE = 1 << 50  # a score or a cell's points in a certificate: no sum of them overflows


def whole(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as the whole number from ``low`` to ``high`` a header or a claim must
    hold, else a ValueError naming ``what`` (a float, a boolean, a string, a number out of
    range: checked before anything is made from it)."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        shown = repr(value) if len(repr(value)) <= 24 else f"{repr(value)[:20]}..."
        raise ValueError(f"{what} is {shown}; it must be a whole number from {low:,} to "
                         f"{high:,}")
    return value


def whole_array(values: Any, what: str, shape: tuple[int, ...]) -> np.ndarray:
    """Nested lists of whole numbers of ``shape``, each within :data:`MAX_SCORE`, as an
    array; else a ValueError (the sizes are checked level by level before it is made)."""
    level = [values]
    for size in shape:
        if not all(isinstance(v, list) and len(v) == size for v in level):
            raise ValueError(f"{what} must be lists of shape {shape}")
        level = [item for v in level for item in v]
    for v in level:
        whole(v, f"a number of {what}", -MAX_SCORE, MAX_SCORE)
    return np.array(values, dtype=np.int64).reshape(shape)


def _check(header: dict[str, Any], problem: TowersProblem, archive: zipfile.ZipFile,
           on_layer: Callable[[int, int], None] | None) -> CertificateCheck:
    if not isinstance(header["turned"], bool):
        raise ValueError(f"turned is {header['turned']!r}; it must be true or false")
    turned = header["turned"]
    cell_bits = whole(header["cell_bits"], "cell_bits", 1, 64)
    colour_bits = whole(header["colour_bits"], "colour_bits", 1, 64)
    rows, cols = (problem.cols, problem.rows) if turned else (problem.rows, problem.cols)
    fixed = {((c, r) if turned else (r, c)): k for (r, c), k in problem.fixed}
    n = len(problem.colours) + (1 if problem.allow_empty else 0)
    none = (1 << colour_bits) - 1
    if colour_bits < 1 or none < n or cell_bits != colour_bits + n or cell_bits * cols > 64:
        return CertificateCheck(False, "the key layout in the header cannot hold this puzzle")
    points = [c.points for c in problem.colours] + [0] * (n - len(problem.colours))
    needs = [sum(1 << x for x in c.needs) for c in problem.colours] + [0] * (
        n - len(problem.colours))
    # A band: rows that need nothing (copies of a neighbour's row) and a score per cell.
    band, claimed_bound = header.get("band"), header.get("bound")
    helpers: set[int] = set()
    cell_points = None
    if band is not None:
        if not isinstance(band, dict) or not isinstance(band["helpers"], list):
            raise ValueError("band must hold a list of helper rows and the cells' points")
        helpers = {whole(h, "a helper row", 0, problem.rows - 1) for h in band["helpers"]}
        cell_points = whole_array(band["cell_points"], "cell_points",
                                  (problem.rows, problem.cols, n + 1, n + 1, n))
        if claimed_bound is not None:
            whole(claimed_bound, "bound", -MAX_SCORE, MAX_SCORE)
        if not isinstance(claimed_bound, int) \
                or header["optimum"] is not None or header["board"] is not None:
            return CertificateCheck(False, "a band's certificate needs helper rows of the "
                                    "band, a score per cell, colour and neighbours above and "
                                    "to the left, and a bound only")

    optimum, board = header["optimum"], header["board"]
    if band is None and optimum is not None:
        if not isinstance(optimum, int) or isinstance(optimum, bool) \
                or not isinstance(board, list) or not all(isinstance(row, str) for row in board):
            return CertificateCheck(False, "the claim needs an integer optimum and a board")
        whole(optimum, "optimum", -MAX_SCORE, MAX_SCORE)
        why = board_wrong(problem, board, optimum, "the certificate's board")
        if why is not None:
            return CertificateCheck(False, why)
    elif band is None and board is not None:
        return CertificateCheck(False, "a board is given with no optimum")

    total = rows * cols
    count = header["layers"]
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= total + 1:
        shown = repr(count) if len(repr(count)) <= 24 else f"{repr(count)[:20]}..."
        return CertificateCheck(False, f"the certificate has {shown} layers; "
                                f"a {problem.rows}x{problem.cols} board has {total + 1}")
    read = _Layers(archive, count)
    cell = np.uint64((1 << cell_bits) - 1)
    colour_mask = np.uint64(none)
    shift = np.uint64(colour_bits)

    def unplaced(r: int, c: int, t: int) -> int:
        """Neighbours of (r, c) still to place after the ``t``-th cell."""
        return sum(1 for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                   if 0 <= rr < rows and 0 <= cc < cols and rr * cols + cc > t)

    def where(t: int) -> str:
        r, c = divmod(t, cols)
        return f"({c}, {r})" if turned else f"({r}, {c})"

    start = np.uint64(0)
    for j in range(cols):
        start |= np.uint64(none) << np.uint64(cell_bits * j)
    keys, scores = read(0)
    at = np.searchsorted(keys, start)
    if at >= len(keys) or keys[at] != start or scores[at] < 0:
        return CertificateCheck(False, "layer 0 does not hold the empty board with score 0")
    best = [int(scores.max())]  # best score of each layer
    complete = 0  # layers 0 .. complete hold every legal prefix: no bound used before them
    states, bounded = len(keys), 0
    for t in range(total):
        i, j = divmod(t, cols)
        new_keys, new_scores = read(t + 1)
        states += len(new_keys)
        rest = total - t - 1
        bound = None  # what the cells after this one can add, when the half turn tells
        if optimum is not None and not fixed and band is None and rest <= t \
                and rest <= complete:
            bound = best[rest]
        r, c = (j, i) if turned else (i, j)
        wants = [0] * n if r in helpers else needs
        here = np.uint64(cell_bits * j)
        up = (keys >> here) & cell
        up_colour, up_needs = up & colour_mask, up >> shift
        up_bit = np.where(up_colour < n, np.uint64(1) << np.minimum(up_colour, 63),
                          np.uint64(0))
        clear = ~(cell << here)
        left_index = np.full(len(keys), n, dtype=np.int64)  # no cell to the left
        if j > 0:
            before = np.uint64(cell_bits * (j - 1))
            left = (keys >> before) & cell
            left_colour, left_needs = left & colour_mask, left >> shift
            left_bit = np.where(left_colour < n, np.uint64(1) << np.minimum(left_colour, 63),
                                np.uint64(0))
            clear &= ~(cell << before)
            left_index = np.minimum(left_colour, n).astype(np.int64)
        up_index = np.minimum(up_colour, n).astype(np.int64)
        if cell_points is not None:  # the board's neighbours above and to the left
            above, beside = (left_index, up_index) if turned else (up_index, left_index)
            gains = cell_points[r, c][above, beside]  # per state, per colour
        code = fixed.get((i, j))
        allowed = range(n) if code is None else [n - 1 if code < 0 else code]
        used_bound = False
        for k in allowed:
            bit = np.uint64(1 << k)
            legal = np.ones(len(keys), dtype=bool)
            if i > 0:  # the cell above leaves the frontier: it must need nothing more
                legal &= _popcount(up_needs & ~bit) <= unplaced(i - 1, j, t)
            missing = np.uint64(wants[k]) & ~up_bit
            successor = keys & clear
            if j > 0:
                still = left_needs & ~bit
                legal &= _popcount(still) <= unplaced(i, j - 1, t)
                missing &= ~left_bit
                successor |= (left_colour | (still << shift)) << before
            legal &= _popcount(missing) <= unplaced(i, j, t)
            successor |= (np.uint64(k) | (missing << shift)) << here
            score = scores + (points[k] if cell_points is None else gains[:, k])
            at = np.minimum(np.searchsorted(new_keys, successor), max(len(new_keys) - 1, 0))
            if len(new_keys):
                covered = (new_keys[at] == successor) & (new_scores[at] >= score)
            else:
                covered = np.zeros(len(keys), dtype=bool)
            open_ = legal & ~covered
            if not open_.any():
                continue
            if bound is not None and (score[open_] + bound <= optimum).all():
                used_bound = True
                bounded += int(open_.sum())
                continue
            s = int(np.flatnonzero(open_)[0])
            letter = (problem.colours[k].letter if k < len(problem.colours)
                      else problem.empty_letter)
            return CertificateCheck(
                False, f"placing {letter} at {where(t)} (cell {t + 1} of {total}) from state "
                f"{int(keys[s]):#x} of layer {t} (score {int(scores[s])}) leads to state "
                f"{int(successor[s]):#x} with score {int(score[s])}, which layer {t + 1} "
                "does not hold" + ("" if bound is None else
                                   f", and {int(score[s])} + {bound} beats the claim"),
                states=states, layers=t + 1, bounded=bounded)
        if not used_bound and complete == t:
            complete = t + 1
        keys, scores = new_keys, new_scores
        best.append(int(scores.max()) if len(scores) else _NO_SCORE)
        if on_layer is not None:
            on_layer(t + 1, total)
    final = best[total]
    if band is not None and isinstance(claimed_bound, int):
        if final > claimed_bound:
            return CertificateCheck(False, f"the last layer holds a band board scoring {final}, "
                                    f"more than the {claimed_bound} claimed", states=states,
                                    layers=total + 1)
        return CertificateCheck(True, f"band bound {claimed_bound} proved", None, states,
                                total + 1, bounded, bound=claimed_bound)
    if optimum is None:
        if final != _NO_SCORE:
            return CertificateCheck(False, "the certificate claims no legal board, but its "
                                    "last layer holds one", states=states, layers=total + 1)
        return CertificateCheck(True, "no legal board", None, states, total + 1, bounded)
    if final > optimum:
        return CertificateCheck(False, f"the last layer holds a board scoring {final}, more "
                                f"than the {optimum} claimed", states=states, layers=total + 1)
    return CertificateCheck(True, f"optimum {optimum} proved", optimum, states, total + 1,
                            bounded)


PRICED_FORMAT = "cpmodels-towers-priced-bound"
MAX_PRICED_SCALE = 1 << 20  # a priced bound's scale: the points times it stay far from overflow


Fixing = tuple[tuple[int, int, int], ...]  # (column, code in row cut - 1, code in row cut)


def priced_bands(problem: TowersProblem, cut: int, scale: int, prices: np.ndarray,
                 fixing: Fixing = ()) -> list[tuple[TowersProblem, int, np.ndarray]]:
    """The two bands of a priced bound, each as a board of its own rows: rows
    ``0 .. cut - 1`` with a copy of row ``cut`` below, and rows ``cut ..`` with a copy of
    row ``cut - 1`` above. A copy needs nothing and scores nothing; every other cell scores
    its colour's points (times ``scale``). ``prices[j, a, l, k]`` is on the corner where
    row ``cut - 1`` holds ``a`` in column ``j`` and row ``cut`` holds ``l`` in column
    ``j - 1`` (``codes``: column 0 has none) and ``k`` in column ``j``: both bands see all
    three cells when they place row ``cut``'s cell, the top band on its copy (it pays the
    price), the bottom band on its real row (it earns it). Each band: its board, its copied
    row, and its scores ``[r, c, up, left, k]`` (see ``programme.solve_dp``).

    ``fixing`` restricts both bands to the boards of one class of the cut (a branch, see
    ``towers.branching``): ``(j, a, k)`` builds ``a`` in column ``j`` of row ``cut - 1`` and
    ``k`` in column ``j`` of row ``cut``, in each band on its real row and on its copy."""
    n = problem.codes
    base = np.array([c.points for c in problem.colours] + [0] * (n - len(problem.colours)),
                    dtype=np.int64) * scale
    corner = np.zeros((problem.cols, n + 1, n + 1, n), dtype=np.int64)
    corner[:, :n] = prices  # the row above is always there
    out = []
    for rows, helper, priced, sign in ((cut + 1, cut, cut, -1),
                                       (problem.rows - cut + 1, 0, 1, 1)):
        points = np.zeros((rows, problem.cols, n + 1, n + 1, n), dtype=np.int64)
        points[:] = base
        points[helper] = 0
        points[priced] += sign * corner
        built = len(problem.colours)  # the code past the colours is "empty": -1 when built
        fixed = tuple(((priced - 1, j), -1 if a == built else a) for j, a, _ in fixing) \
            + tuple(((priced, j), -1 if k == built else k) for j, _, k in fixing)
        band = TowersProblem(problem.name, rows, problem.cols, problem.colours,
                             problem.allow_empty, problem.empty_letter, tuple(sorted(fixed)))
        out.append((band, helper, points))
    return out


def corner_counts(problem: TowersProblem, upper: str, lower: str) -> np.ndarray:
    """How often each corner of :func:`priced_bands` occurs between two rows of letters:
    ``[j, a, l, k]`` is 1 where ``upper`` holds ``a`` in column ``j`` and ``lower`` holds
    ``l`` in column ``j - 1`` (``codes`` for column 0) and ``k`` in column ``j``."""
    n = problem.codes
    code = {c.letter: k for k, c in enumerate(problem.colours)}
    code[problem.empty_letter] = len(problem.colours)
    out = np.zeros((problem.cols, n, n + 1, n), dtype=np.int64)
    for j in range(problem.cols):
        left = code[lower[j - 1]] if j else n
        out[j, code[upper[j]], left, code[lower[j]]] = 1
    return out


def band_entry(helper: int, points: np.ndarray) -> dict[str, Any]:
    """What a band's certificate header says of its copied row and its scores."""
    return {"helpers": [helper], "cell_points": points.tolist()}


def priced_claim_numbers(claim: dict[str, Any], problem: TowersProblem,
                          ) -> tuple[int, int, int, np.ndarray] | str:
    """A priced claim's cut, scale, bound and prices, checked to fit the board; else why
    not (one sentence)."""
    if not same_json({k: claim.get(k) for k in header_problem(problem)},
                     header_problem(problem)):
        return _mismatch(claim, problem)
    if problem.fixed or problem.rows < 2:
        return "a priced bound is for boards of two rows or more with no towers built"
    n = problem.codes
    try:
        cut = whole(claim["cut"], "cut", 1, problem.rows - 1)
        scale = whole(claim["scale"], "scale", 1, MAX_PRICED_SCALE)
        bound = whole(claim["bound"], "bound", -MAX_SCORE, MAX_SCORE)
        prices = whole_array(claim.get("prices"), "prices", (problem.cols, n, n + 1, n))
    except ValueError as exc:
        return f"the claim's cut, scale or prices do not fit the board: {exc}"
    rows = max(cut, problem.rows - cut) + 1  # the taller band's, with its copied row
    scores = rows * problem.cols * (n + 1) * (n + 1) * n
    if scores > MAX_JSON_BYTES // 2:  # a band's header lists them all
        return (f"the bands of a {problem.rows}x{problem.cols} board of {n} colours have "
                f"{scores:,} scores, more than a band's header holds")
    return cut, scale, bound, prices


def _check_bands(path: Path, archive: zipfile.ZipFile, problem: TowersProblem, cut: int,
                 scale: int, prices: np.ndarray, fixing: Fixing, names: tuple[str, str],
                 on_layer: Callable[[int, int], None] | None) -> CertificateCheck:
    """Check the two band certificates ``names`` of ``archive`` at ``prices`` (the bands
    restricted to ``fixing``): the verdict, with the sum of their bounds as ``bound``."""
    total, states, layers = 0, 0, 0
    listed = set(archive.namelist())
    for (band, helper, points), name in zip(priced_bands(problem, cut, scale, prices, fixing),
                                            names):
        if name not in listed:
            return CertificateCheck(False, f"the band certificate {name} is missing")
        entry = band_entry(helper, points)
        with stored_member(path, archive, name) as data, zipfile.ZipFile(data) as inner:
            header = json_member(inner, "header.json")
            if not isinstance(header, dict) or not same_json(header.get("band"), entry):
                return CertificateCheck(False, f"{name} is for other prices or rows than "
                                        "the claim's")
            part = check_certificate(data, band, on_layer)  # type: ignore[arg-type]
        if not part.ok:
            return CertificateCheck(False, f"{name}: {part.message}")
        total += part.bound or 0
        states += part.states
        layers += part.layers
    return CertificateCheck(True, "bands proved", None, states, layers, bound=total)


def check_priced_bound(path: Path, problem: TowersProblem,
                       on_layer: Callable[[int, int], None] | None = None) -> CertificateCheck:
    """Verify a priced bound: two band certificates whose prices are the claim's, and the
    claim at least their sum (divided by the scale, rounded down to the points' common
    divisor, as every board's score is a multiple of it). Never raises for a bad file."""
    try:
        with zipfile.ZipFile(path) as archive:
            claim = json_member(archive, "claim.json")
            if not isinstance(claim, dict) or not same_json(claim.get("format"), PRICED_FORMAT):
                return CertificateCheck(False, f"{path} is not a priced bound")
            numbers = priced_claim_numbers(claim, problem)
            if isinstance(numbers, str):
                return CertificateCheck(False, numbers)
            cut, scale, bound, prices = numbers
            bands = _check_bands(path, archive, problem, cut, scale, prices, (),
                                 ("top.cert", "bottom.cert"), on_layer)
    except (KeyError, ValueError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        return CertificateCheck(False, f"unreadable priced bound: {exc}")
    except OSError as exc:
        return CertificateCheck(False, f"cannot read {path}: {exc.strerror or exc}")
    if not bands.ok:
        return bands
    proved = problem.bound_from(bands.bound or 0, scale)
    if bound < proved:
        return CertificateCheck(False, f"the bands prove {proved}, not the {bound} claimed",
                                states=bands.states)
    return CertificateCheck(True, f"bound {bound} proved", None, bands.states, bands.layers,
                            bound=bound)


BRANCHED_FORMAT = "cpmodels-towers-branched-bound"
BRANCHED_VERSION = 2  # 1 held band certificates; 2 the prices (``towers.compact``)
MAX_BRANCHES = 200_000  # leaves a branched bound may list
MAX_BRANCHED_CLAIM_BYTES = 32_000_000  # its claim: the branches' cells, about 100 bytes each


def fixing_name(fixing: Fixing) -> str:
    """A branch's name: its columns and codes, ``j.a.k`` joined by ``_`` (``root``)."""
    return "_".join(f"{j}.{a}.{k}" for j, a, k in fixing) or "root"


def partition_gap(fixings: list[Fixing], codes: int, cols: int) -> str | None:
    """Why the branches ``fixings`` do not split the cut's classes into a partition (None:
    they do). Each split fixes one column not fixed before, to every pair of codes of its
    two cells; a branch is a leaf of that tree: so every board falls in exactly one."""
    def walk(prefix: Fixing, group: list[Fixing]) -> str | None:
        depth = len(prefix)
        if any(len(f) == depth for f in group):
            return None if len(group) == 1 else \
                f"the branch {fixing_name(prefix)} is listed twice, or also split"
        columns = {f[depth][0] for f in group}
        if len(columns) != 1:
            return f"the branch {fixing_name(prefix)} is split on more than one column"
        j = columns.pop()
        if any(j == jj for jj, _, _ in prefix):
            return f"the branch {fixing_name(prefix)} is split again on column {j}"
        children: dict[tuple[int, int], list[Fixing]] = {}
        for f in group:
            children.setdefault(f[depth][1:], []).append(f)
        for a in range(codes):
            for k in range(codes):
                child = (*prefix, (j, a, k))
                if (a, k) not in children:
                    return f"the branch {fixing_name(child)} is missing"
                why = walk(child, children[a, k])
                if why is not None:
                    return why
        return None

    for f in fixings:
        for j, a, k in f:
            if not (0 <= j < cols and 0 <= a < codes and 0 <= k < codes):
                return f"the branch {fixing_name(f)} fixes a cell off the board or a code " \
                    "past the colours"
    if not fixings:
        return "no branch is listed"
    return walk((), fixings)


def fixing_of(raw: Any, cols: int) -> Fixing:
    if not isinstance(raw, list) or len(raw) > cols:
        raise ValueError(f"a branch's fixing must be a list of at most {cols} cells")
    return tuple((whole(c[0], "a branch's column", 0, cols - 1),
                  whole(c[1], "a branch's code", 0, MAX_SCORE),
                  whole(c[2], "a branch's code", 0, MAX_SCORE))
                 if isinstance(c, list) and len(c) == 3 else _bad_cell() for c in raw)


def _bad_cell() -> tuple[int, int, int]:
    raise ValueError("a branch's cell must be [column, code above, code below]")
