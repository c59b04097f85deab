"""A pricing's whole state (``bounds.lagrangian_bound``), kept in a file so that it survives
a stop and goes on exactly where it was.

:class:`PricingState` holds everything the pricing knows after a step: what it was asked
(the board, the cut, the scale, the method, the aim), every step's value and the cuts its
two band boards make, Polyak's prices, step size and previous value, and the bundle's
centre, level and box. A pricing stopped after k steps and continued from its state ends
with the same bound and prices as one that was never stopped. :func:`save_state` writes it
whole (beside, then moved into place); :func:`load_state` reads it bounded in size, numbers
and shapes, and refuses a state of another pricing in a sentence naming what differs.
:class:`StepLog` makes the line a long pricing prints now and then.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cpmodels.errors import InputError
from cpmodels.files import load_json, read_bounded, write_atomic
from cpmodels.towers.certificate import header_problem
from cpmodels.towers.problem import TowersProblem

STATE_FORMAT = "cpmodels-towers-pricing"
STATE_VERSION = 1
MAX_STATE_BYTES = 64_000_000  # a state of 100,000 steps on 10x10 is about 20 MB
MAX_STATE_STEPS = 100_000  # steps a state may hold (each is a solve of both bands)
MAX_PRICE = 10**12  # a price (in 1 / scale of a point) past this is not one a pricing makes
MAX_VALUE = 10**15  # a step's value or a cut's constant: well inside a double's integers
SAVE_SECONDS = 5.0  # a state is saved after a step once this long has passed since the last
LOG_SECONDS = 15.0  # a pricing's log line comes after a step once this long has passed
PHASES = ("polyak", "bundle", "done")


@dataclass(frozen=True)
class Cut:
    """One step's two band boards as planes under the bound: the top band's board makes its
    band score at least ``f - p . a`` at any prices ``p`` (``a`` its corners across the cut,
    by flat index and count), the bottom's at least ``g + p . b``."""

    top: tuple[int, ...]
    top_counts: tuple[int, ...]
    f: int
    bottom: tuple[int, ...]
    bottom_counts: tuple[int, ...]
    g: int

    @classmethod
    def of(cls, at: np.ndarray, top_corners: np.ndarray, bottom_corners: np.ndarray,
           top: int, bottom: int) -> Cut:
        """The planes of a step at prices ``at`` (flat) whose bands scored ``top`` and
        ``bottom`` with boards of these corners (flat counts)."""
        a, b = np.flatnonzero(top_corners), np.flatnonzero(bottom_corners)
        return cls(tuple(int(i) for i in a), tuple(int(top_corners[i]) for i in a),
                   top + int(top_corners @ at),
                   tuple(int(i) for i in b), tuple(int(bottom_corners[i]) for i in b),
                   bottom - int(bottom_corners @ at))


@dataclass
class PricingState:
    """Everything a pricing knows after its last step (prices flat, in ``1 / scale`` of a
    point): enough to go on as if it had never stopped."""

    puzzle: dict[str, Any]  # the puzzle and board (``certificate.header_problem``), its name
    cut: int
    scale: int
    method: str
    target: int | None  # the score Polyak's steps aim under (a board's), None: none known
    polyak_share: float
    first_box: float  # points: the bundle's first box
    prices: np.ndarray  # Polyak's prices for the next step
    best: np.ndarray | None = None  # the prices of the least step so far
    values: list[int] = field(default_factory=list)  # each step's bands together (scaled)
    cuts: list[Cut] = field(default_factory=list)  # each step's boards as planes
    theta: float = 1.0  # Polyak's step size
    previous: int | None = None  # Polyak's last value (scaled)
    phase: str = "polyak"  # "polyak", "bundle", or "done" (no step can do better)
    centre: np.ndarray | None = None  # the bundle's centre, level (scaled) and box
    level: int | None = None  # None in the bundle: its centre is solved first
    box: float | None = None  # in 1 / scale of a point
    seconds: float = 0.0  # spent on the steps, over every run

    @property
    def least(self) -> int | None:
        """The least step's value (scaled), None before the first step."""
        return min(self.values) if self.values else None


def new_state(problem: TowersProblem, cut: int, scale: int, method: str,
              target: int | None, polyak_share: float, first_box: float,
              prices: np.ndarray) -> PricingState:
    """The state of a pricing of ``problem`` not begun, from ``prices``."""
    return PricingState(_puzzle(problem), cut, scale, method, target, polyak_share,
                        first_box, prices.reshape(-1).astype(np.int64))


def _puzzle(problem: TowersProblem) -> dict[str, Any]:
    return {"name": problem.name, **header_problem(problem)}


def check_same_pricing(state: PricingState, problem: TowersProblem, cut: int, scale: int,
                       method: str, target: int | None, polyak_share: float,
                       first_box: float, where: str = "the pricing state") -> None:
    """That ``state`` prices this board as asked; else an :class:`InputError` naming the
    first thing that differs."""
    _check_same_puzzle(state.puzzle, problem, where)
    asked = [(state.cut, cut, "the cut (rows in the top band)"),
             (state.scale, scale, "the price scale (--price-scale)"),
             (state.method, method, "the method (--price-method)"),
             (state.target, target, "the score its steps aim under"),
             (state.polyak_share, polyak_share, "the share of Polyak's steps"),
             (state.first_box, first_box, "the bundle's first box")]
    for saved, given, what in asked:
        if saved != given:
            raise InputError(f"{where} was saved with {what} {saved}; this run asks for "
                             f"{given}")


def _check_same_puzzle(theirs: dict[str, Any], problem: TowersProblem, where: str) -> None:
    ours = _puzzle(problem)
    if theirs.get("name") != ours["name"]:
        raise InputError(f"{where} is for the puzzle {_shown(theirs.get('name'))}, not "
                         f"{ours['name']!r}")
    size = (theirs.get("rows"), theirs.get("cols"))
    if size != (ours["rows"], ours["cols"]):
        board = f"a {size[0]}x{size[1]} board" if all(type(x) is int for x in size) \
            else "another board"
        raise InputError(f"{where} is for {board}, not {ours['rows']}x{ours['cols']}")
    if theirs != ours:
        raise InputError(f"{where} is for other colours or rules of {ours['name']!r} (the "
                         "spec changed since it was saved)")


def _shown(value: Any) -> str:
    """``value`` as a message shows it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:36]}..."


# -- the file ---------------------------------------------------------------------------

def state_json(state: PricingState) -> str:
    """The state as the file holds it (one JSON document)."""
    def array(a: np.ndarray | None) -> list[int] | None:
        return None if a is None else [int(x) for x in a]

    return json.dumps({
        "format": STATE_FORMAT, "version": STATE_VERSION, "puzzle": state.puzzle,
        "cut": state.cut, "scale": state.scale, "method": state.method,
        "target": state.target, "polyak_share": state.polyak_share,
        "first_box": state.first_box, "prices": array(state.prices),
        "best": array(state.best), "values": state.values,
        "cuts": [[list(c.top), list(c.top_counts), c.f, list(c.bottom),
                  list(c.bottom_counts), c.g] for c in state.cuts],
        "theta": state.theta, "previous": state.previous, "phase": state.phase,
        "centre": array(state.centre), "level": state.level, "box": state.box,
        "seconds": state.seconds}, separators=(",", ":"))


def save_state(path: Path, state: PricingState) -> None:
    """Write ``state`` to ``path`` whole (a file beside it moved into place)."""
    write_atomic(path, state_json(state))


def load_state(path: Path, problem: TowersProblem) -> PricingState:
    """The pricing state saved at ``path`` for ``problem``'s board: read bounded, every
    field checked (kind, range, shape), else an :class:`InputError` of one line."""
    data = read_bounded(path, MAX_STATE_BYTES, "pricing state")
    try:
        raw = load_json(data, "the pricing state")
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not a pricing state ({exc.msg})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a pricing state (not UTF-8 text)") from None
    try:
        return _state_of(raw, problem, str(path))
    except _Refused as exc:
        raise InputError(f"{path} is not a pricing state this version reads: {exc}") from None


class _Refused(ValueError):
    """A field of a state file that is not what a pricing saves."""


def _state_of(raw: Any, problem: TowersProblem, where: str) -> PricingState:
    if not isinstance(raw, dict) or raw.get("format") != STATE_FORMAT:
        raise _Refused(f"its format is not {STATE_FORMAT!r}")
    if type(raw.get("version")) is not int or raw["version"] != STATE_VERSION:
        raise _Refused(f"it is of version {_shown(raw.get('version'))}, not {STATE_VERSION}")
    n = problem.codes
    size = problem.cols * n * (n + 1) * n  # one price per column and corner
    puzzle = raw.get("puzzle")
    if not isinstance(puzzle, dict):
        raise _Refused("puzzle is not an object")
    _check_same_puzzle(puzzle, problem, where)
    values = _ints(raw, "values", None, -MAX_VALUE, MAX_VALUE)
    if len(values) > MAX_STATE_STEPS:
        raise _Refused(f"values holds {len(values):,} steps; at most {MAX_STATE_STEPS:,}")
    cuts = raw.get("cuts")
    if not isinstance(cuts, list) or len(cuts) != len(values):
        raise _Refused("cuts is not a list of one cut a step")
    phase = raw.get("phase")
    if phase not in PHASES:
        raise _Refused(f"phase is not one of {', '.join(PHASES)}")
    best = _array(raw, "best", size, MAX_PRICE, optional=not values)
    if values and best is None:
        raise _Refused("best is missing")
    in_bundle = phase == "bundle"
    state = PricingState(
        puzzle=puzzle,
        cut=_int(raw, "cut", 1, problem.rows - 1),
        scale=_int(raw, "scale", 1, 10**6),
        method=_choice(raw, "method", ("polyak", "bundle")),
        target=_int(raw, "target", -MAX_VALUE, MAX_VALUE, optional=True),
        polyak_share=_float(raw, "polyak_share", 0.0, 1.0),
        first_box=_float(raw, "first_box", 0.0, MAX_PRICE),
        prices=_required(_array(raw, "prices", size, MAX_PRICE), "prices"),
        best=best, values=values,
        cuts=[_cut(entry, k, size, problem.cols) for k, entry in enumerate(cuts)],
        theta=_float(raw, "theta", 0.0, 1.0),
        previous=_int(raw, "previous", -MAX_VALUE, MAX_VALUE, optional=True),
        phase=phase,
        centre=_array(raw, "centre", size, MAX_PRICE, optional=not in_bundle),
        level=_int(raw, "level", -MAX_VALUE, MAX_VALUE, optional=True),
        box=_float(raw, "box", 0.0, float(MAX_PRICE), optional=not in_bundle),
        seconds=_float(raw, "seconds", 0.0, 1e9))
    if state.theta <= 0 or (state.box is not None and state.box <= 0):
        raise _Refused("theta and box must be above 0")
    return state


def _required(value: Any, key: str) -> Any:
    if value is None:
        raise _Refused(f"{key} is missing")
    return value


def _int(raw: dict[str, Any], key: str, low: int, high: int, *,
         optional: bool = False) -> Any:
    value = raw.get(key)
    if value is None and optional:
        return None
    return _number(value, key, low, high)


def _number(value: Any, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise _Refused(f"{what} is not a whole number from {low:,} to {high:,}")
    return value


def _float(raw: dict[str, Any], key: str, low: float, high: float, *,
           optional: bool = False) -> Any:
    value = raw.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) \
            or not low <= value <= high:
        raise _Refused(f"{key} is not a number from {low:g} to {high:g}")
    return float(value)


def _choice(raw: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    value = raw.get(key)
    if value not in choices:
        raise _Refused(f"{key} is not one of {', '.join(choices)}")
    return str(value)


def _whole_numbers(value: Any, key: str, length: int | None, low: int, high: int
                   ) -> list[int]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        shape = "a list" if length is None else f"a list of {length:,} numbers"
        raise _Refused(f"{key} is not {shape}")
    if not all(type(x) is int and low <= x <= high for x in value):
        raise _Refused(f"{key} holds something not a whole number from {low:,} to {high:,}")
    return value


def _ints(raw: dict[str, Any], key: str, length: int | None, low: int, high: int
          ) -> list[int]:
    return _whole_numbers(raw.get(key), key, length, low, high)


def _array(raw: dict[str, Any], key: str, size: int, bound: int, *,
           optional: bool = False) -> np.ndarray | None:
    if raw.get(key) is None and optional:
        return None
    return np.array(_ints(raw, key, size, -bound, bound), dtype=np.int64)


def _cut(entry: Any, k: int, size: int, cols: int) -> Cut:
    if not isinstance(entry, list) or len(entry) != 6:
        raise _Refused(f"cut {k} is not a list of six")
    where = f"cut {k}"
    top = _whole_numbers(entry[0], where, None, 0, size - 1)
    top_counts = _whole_numbers(entry[1], where, len(top), 1, cols)
    bottom = _whole_numbers(entry[3], where, None, 0, size - 1)
    bottom_counts = _whole_numbers(entry[4], where, len(bottom), 1, cols)
    for indices in (top, bottom):
        if len(indices) > cols or any(a >= b for a, b in itertools.pairwise(indices)):
            raise _Refused(f"{where} does not list a board's corners in order")
    f = _number(entry[2], f"{where}'s f", -MAX_VALUE, MAX_VALUE)
    g = _number(entry[5], f"{where}'s g", -MAX_VALUE, MAX_VALUE)
    return Cut(tuple(top), tuple(top_counts), f, tuple(bottom), tuple(bottom_counts), g)


# -- the log line -----------------------------------------------------------------------

def step_line(state: PricingState, steps: int, board: int | None,
              seconds_a_step: float) -> str:
    """What a pricing says of itself after a step: the step, the least bound so far (and
    the bound it certifies), the best board's score, the step size (Polyak's theta or the
    bundle's box, in points) and the seconds a step took lately."""
    least = state.least
    bound = "none yet" if least is None else f"{least / state.scale:,.2f}"
    versus = "" if board is None else f" (best board {board:,})"
    if state.phase == "bundle" and state.box is not None:
        size = f"bundle box {state.box / state.scale:,.2f} points"
    elif state.phase == "done":
        size = "no step does better"
    else:
        size = f"Polyak theta {state.theta:.3g}"
    return (f"pricing step {len(state.values):,}/{steps:,}: bound {bound}{versus}, {size}, "
            f"{seconds_a_step:.2f} s a step")


class StepLog:
    """Hands ``say`` a :func:`step_line` after the first step, then after a step once
    ``every`` seconds have passed since the last line (0: after every step)."""

    def __init__(self, say: Callable[[str], None], steps: int, board: int | None, *,
                 every: float = LOG_SECONDS) -> None:
        self.say, self.steps, self.board, self.every = say, steps, board, every
        self.said_at: float | None = None  # when the last line was said
        self.said_after = 0  # steps done then
        self.since = time.perf_counter()

    def __call__(self, state: PricingState) -> None:
        now = time.perf_counter()
        if self.said_at is not None and now - self.said_at < self.every:
            return
        done = len(state.values)
        # The first line comes after this run's first step (a run that goes on from a
        # state began after its steps).
        taken = 1 if self.said_at is None else max(1, done - self.said_after)
        self.say(step_line(state, self.steps, self.board, (now - self.since) / taken))
        self.said_at, self.said_after, self.since = now, done, now
