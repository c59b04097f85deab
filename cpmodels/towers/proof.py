"""A towers answer with its certificate: written while the programme runs, then checked.

:func:`solve_with_certificate` is the whole life cycle of ``solve --proof``: the programme's
layers go to the certificate as they are made, the file is kept only when the optimum (or
that no board is legal) was proved and every layer is in it, and it is checked by
``certificate.py``, which shares no code with the programme. :func:`verify_certificate`
checks a certificate again, its board size read from its header when not given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cpmodels.errors import InputError
from cpmodels.files import check_input, json_member, zip_in_place
from cpmodels.spec.models import TowersSpec
from cpmodels.towers.certificate import (
    BRANCHED_FORMAT,
    BRANCHED_VERSION,
    MAX_SCORE,
    PRICED_FORMAT,
    CertificateCheck,
    CertificateWriter,
    Fixing,
    band_entry,
    check_certificate,
    check_priced_bound,
    header_problem,
    priced_bands,
    read_header,
    same_json,
)
from cpmodels.towers.problem import TowersProblem, towers_problem
from cpmodels.towers.result import TowersResult

if TYPE_CHECKING:
    from cpmodels.towers.pricing import PricingState

PRICED_VERSION = 2  # the priced bound's claim as this module writes and reads it
WHEN_BUILT = ("certificates are for the default rule; under rules: when-built the optimum "
              "is CP-SAT's and the city comes with its order of builds")
MAX_CERTIFICATE_BYTES = 16_000_000_000  # a certificate is read a layer at a time


@dataclass
class ProvedAnswer:
    """A towers answer and what became of its certificate."""

    result: TowersResult
    check: CertificateCheck | None  # None: no certificate was written
    why_not: str = ""  # why none was written
    interrupted: bool = False  # Ctrl-C stopped the work after the answer was found
    pricing_state: Path | None = None  # where a priced bound's pricing left its state


@dataclass(frozen=True)
class Pricing:
    """How a board past 8 wide prices its bands for the certified bound: ``steps`` solves
    of both bands at most (fewer once the bound is down to the best board's score), by
    ``method`` ("polyak" or "bundle", see ``bounds.lagrangian_bound``), prices in
    ``1 / scale`` of a point. The pricing's state is saved to ``save`` as it goes (by
    default to ``resume``, else beside the certificate: its name and ``.pricing``) and
    goes on from the state saved at ``resume``; ``say`` hears a line on its progress now
    and then; ``cluster`` (``engine.connect``) runs each step's bands. With ``priced`` a
    board the programme proves whole gets the priced bound too."""

    steps: int = 120
    method: str = "polyak"
    scale: int = 10
    resume: Path | None = None
    save: Path | None = None
    say: Callable[[str], None] | None = None
    cluster: Any = None
    priced: bool = False

    @property
    def asks_for_state(self) -> bool:
        """Whether it asks for anything only a priced bound has."""
        return self.resume is not None or self.save is not None or self.cluster is not None


def is_priced(problem: TowersProblem, pricing: Pricing) -> bool:
    """Whether ``solve_with_certificate`` certifies a priced bound for ``problem`` (a board
    past 8 wide, or ``pricing.priced``) rather than the programme's optimum."""
    from cpmodels.towers import model

    return pricing.priced or min(problem.rows, problem.cols) > model.DP_PROOF_WIDTH


def state_path(path: Path, pricing: Pricing) -> Path:
    """Where the pricing for the certificate at ``path`` saves its state."""
    return pricing.save or pricing.resume or path.with_name(path.name + ".pricing")


def solve_with_certificate(problem: TowersProblem, path: Path, *,
                           time_limit: float | None = None,
                           pricing: Pricing = Pricing()) -> ProvedAnswer:
    """Solve ``problem``, write the programme's certificate of the answer to ``path`` and
    check it. Nothing is left at ``path`` unless the certificate is whole and proved.
    Past 8 wide, the bound is priced as ``pricing`` says."""
    from cpmodels.towers import model, programme

    _default_rule_only(problem)
    if is_priced(problem, pricing):
        return _solve_wide(problem, path, time_limit, pricing)
    if pricing.asks_for_state:
        raise InputError("--price-from, --price-save and --cluster are for a priced bound: "
                         f"boards past {model.DP_PROOF_WIDTH} wide, or --priced-bound")
    writer = CertificateWriter(path, problem, programme.key_layout(problem))
    try:
        result = model.solve(problem, time_limit=time_limit, layer_sink=writer.layer)
        proved = result.status == "unsolvable" or result.optimal
        if proved and writer.complete:
            writer.finish(result.score, result.grid or None)
        else:
            writer.discard()
    except OSError as exc:
        writer.discard()
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        writer.discard()
        raise
    if not (proved and writer.complete):
        why = ("the optimum was not proved" if not proved
               else "the programme did not finish within the time limit")
        return ProvedAnswer(result, None, why)
    return ProvedAnswer(result, check_certificate(path, problem))


def _default_rule_only(problem: TowersProblem) -> None:
    if problem.when_built:
        raise InputError(WHEN_BUILT)


def verify_certificate(spec: TowersSpec, path: Path, size: tuple[int, int] | None = None,
                       on_layer: Callable[[int, int], None] | None = None,
                       workers: int = 1) -> tuple[TowersProblem, CertificateCheck]:
    """Check the certificate at ``path`` for ``spec`` (its board size from ``size``, else
    from the certificate's header), without a solver; a branched bound's branches
    ``workers`` at a time."""
    if spec.rules == "when-built":
        raise InputError(WHEN_BUILT)
    check_input(path, MAX_CERTIFICATE_BYTES, "certificate")
    claim = _priced_claim(path)
    if claim is not None:
        branched = claim.get("format") == BRANCHED_FORMAT
        version = BRANCHED_VERSION if branched else PRICED_VERSION
        if not same_json(claim.get("version"), version):
            raise InputError(f"{path} is a {'branched' if branched else 'priced'} bound of "
                             f"version {claim.get('version')!r}; this checker reads version "
                             f"{version}")
        rows, cols = size or (claim.get("rows"), claim.get("cols"))
        if not (type(rows) is int and type(cols) is int and rows > 0 and cols > 0):
            raise InputError(f"{path}: the claim gives no board size")
        problem = towers_problem(spec, rows, cols)
        if branched:
            from cpmodels.towers.compact import check_branched_bound

            return problem, check_branched_bound(path, problem, on_branch=on_layer,
                                                 workers=workers)
        return problem, check_priced_bound(path, problem, on_layer=on_layer)
    try:
        header = read_header(path)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size is not None:
        rows, cols = size
    elif type(header.get("rows")) is int and type(header.get("cols")) is int \
            and header["rows"] > 0 and header["cols"] > 0:
        rows, cols = header["rows"], header["cols"]
    else:
        raise InputError(f"{path}: the header gives no board size")
    problem = towers_problem(spec, rows, cols)
    return problem, check_certificate(path, problem, on_layer=on_layer)


@dataclass
class ProvedBound:
    """A priced bound on a board too wide for the programme, and its certificate's check."""

    bound: int
    cut: int
    steps: int
    check: CertificateCheck


def bound_with_certificate(problem: TowersProblem, path: Path, *, cut: int,
                           steps: int = 120, target: int | None = None,
                           time_limit: float | None = None, method: str = "polyak",
                           start: np.ndarray | None = None,
                           scale: int | None = None,
                           stop_at: int | None = None,
                           resume: PricingState | None = None, save: Path | None = None,
                           on_state: Callable[[PricingState], None] | None = None,
                           place: Any = None) -> ProvedBound:
    """Price two bands' boundary rows (``bounds.lagrangian_bound``), then solve each band
    once more at the best prices with its certificate, and write both with the claim to
    ``path`` (a zip: ``claim.json``, ``top.cert``, ``bottom.cert``), checked by
    ``certificate.check_priced_bound``. Nothing is left at ``path`` unless it is whole.
    ``method``, ``start``, ``scale`` and ``stop_at`` go to the pricing: with ``start``
    (prices found before) and one step, the bound is that of ``start`` itself; with
    ``stop_at`` (a board's score) it ends once the bound is down to that score;
    ``resume``, ``save``, ``on_state`` and ``place`` go on from a saved state, save it,
    hear of each step and run the bands where the pricing says."""
    import json
    import tempfile
    import time

    from cpmodels.towers import bounds

    deadline = None if time_limit is None else time.perf_counter() + time_limit
    priced = bounds.lagrangian_bound(problem, cut, steps=steps, target=target,
                                     deadline=deadline, method=method, start=start,
                                     scale=scale or bounds.PRICE_SCALE, stop_at=stop_at,
                                     resume=resume, save=save, on_state=on_state,
                                     place=place)
    if priced.prices is None:
        raise InputError("the bands did not finish within the time limit: no bound")
    prices = priced.prices
    scale = priced.scale
    with zip_in_place(path) as archive, \
            tempfile.TemporaryDirectory(dir=path.parent) as scratch:
        total = 0
        for part, best in certified_bands(problem, cut, scale, prices, Path(scratch)):
            if best is None:
                raise InputError("a band has no legal board: no bound")
            total += best
            archive.write(part, part.name)
        bound = problem.bound_from(total, scale)
        claim = {"format": PRICED_FORMAT, "version": PRICED_VERSION,
                 "puzzle": problem.name,
                 **header_problem(problem), "cut": cut, "scale": scale,
                 "prices": prices.tolist(), "bound": bound}
        archive.writestr("claim.json", json.dumps(claim))
    return ProvedBound(bound, cut, len(priced.steps), check_priced_bound(path, problem))



def certified_bands(problem: TowersProblem, cut: int, scale: int, prices: np.ndarray,
                    folder: Path, fixing: Fixing = (), prefix: str = "",
                    ) -> list[tuple[Path, int | None]]:
    """Solve both priced bands (restricted to ``fixing``) with the programme writing their
    certificates to ``folder`` (``prefix`` + ``top.cert``, ``bottom.cert``): each file and
    its band's optimum (None: no legal band board; its certificate proves so)."""
    from cpmodels.towers import programme

    out = []
    for (band, helper, points), name in zip(priced_bands(problem, cut, scale, prices, fixing),
                                            ("top.cert", "bottom.cert")):
        part = folder / f"{prefix}{name}"
        writer = CertificateWriter(part, band, programme.key_layout(band),
                                   band=band_entry(helper, points))
        try:
            found = programme.solve_dp(band, helpers=frozenset([helper]), cell_points=points,
                                       layer_sink=writer.layer)
            if not found.finished:
                raise InputError("a band did not finish: no bound")
            writer.finish(None, None, bound=-MAX_SCORE if found.best is None else found.best)
        except BaseException:
            writer.discard()
            raise
        out.append((part, found.best))
    return out


def _solve_wide(problem: TowersProblem, path: Path, time_limit: float | None,
                pricing: Pricing) -> ProvedAnswer:
    """A board too wide for the programme to prove: CP-SAT's best board in the time limit,
    and a priced bound with its certificate (:func:`bound_with_certificate`)."""
    from cpmodels.towers import model
    from cpmodels.towers.pricing import StepLog

    if time_limit is None:
        raise InputError(f"give --time-limit: past {model.DP_PROOF_WIDTH} wide the search for "
                         "a board has no end (the certified bound is worked out after it)")
    if problem.fixed:
        raise InputError("a certified bound past 8 wide is for boards with no towers built")
    from cpmodels.towers import programme

    cut = (problem.rows + 1) // 2
    widest = programme.max_width(problem)
    if min(max(cut, problem.rows - cut) + 1, problem.cols) > widest:
        raise InputError(f"a certified bound cuts the board into two bands of rows, each "
                         f"solved by the programme (at most {widest} wide); "
                         f"{problem.rows}x{problem.cols} is too large for that")
    kept, resume = _pricing_state(problem, path, cut, pricing)
    result = model.solve(problem, time_limit=time_limit)
    log = None
    if pricing.say is not None:
        log = StepLog(pricing.say, pricing.steps, result.score)
    place = None
    if pricing.cluster is not None:
        from cpmodels.running import OnCluster

        place = OnCluster(pricing.cluster)
    try:
        proved = bound_with_certificate(
            problem, path, cut=cut,
            target=resume.target if resume is not None else result.score,
            steps=pricing.steps, method=pricing.method, scale=pricing.scale,
            stop_at=result.score, resume=resume, save=kept, on_state=log, place=place)
    except KeyboardInterrupt:  # Ctrl-C while the bands are priced: the board is kept
        why = "interrupted while the bound was worked out"
        if kept.is_file():
            why += f"; the pricing so far is kept in {kept}: go on with --price-from {kept}"
        return ProvedAnswer(result, None, why, interrupted=True,
                            pricing_state=kept if kept.is_file() else None)
    if proved.check.ok:
        if result.bound is None or proved.bound < result.bound:
            result.bound = proved.bound
        result.optimal = result.score is not None and result.score >= result.bound
    return ProvedAnswer(result, proved.check, pricing_state=kept)


def _pricing_state(problem: TowersProblem, path: Path, cut: int, pricing: Pricing,
                   ) -> tuple[Path, PricingState | None]:
    """Where the pricing saves its state (checked to be writable) and the state it goes on
    from (read and checked against this pricing), before any search."""
    from cpmodels.files import check_output
    from cpmodels.towers import bounds
    from cpmodels.towers.pricing import check_same_pricing, load_state

    kept = state_path(path, pricing)
    check_output(kept)
    if pricing.resume is None:
        return kept, None
    resume = load_state(pricing.resume, problem)
    check_same_pricing(resume, problem, cut, pricing.scale, pricing.method, resume.target,
                       bounds.POLYAK_SHARE, bounds.BOX, where=str(pricing.resume))
    return kept, resume


def _priced_claim(path: Path) -> dict | None:
    """The claim of a priced bound's certificate, or None when the file is not one."""
    import json
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            if "claim.json" not in archive.namelist():
                return None
            claim = json_member(archive, "claim.json")
    except json.JSONDecodeError as exc:
        if "out of range" in exc.msg:
            raise InputError(f"{path} is not a priced bound ({exc.msg})") from None
        return None
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    return claim if isinstance(claim, dict) \
        and claim.get("format") in (PRICED_FORMAT, BRANCHED_FORMAT) else None
