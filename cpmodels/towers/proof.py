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

from cpmodels.errors import InputError
from cpmodels.spec.models import TowersSpec
from cpmodels.towers.certificate import (
    CertificateCheck,
    CertificateWriter,
    check_certificate,
    read_header,
)
from cpmodels.towers.problem import TowersProblem, towers_problem
from cpmodels.towers.result import TowersResult


@dataclass
class ProvedAnswer:
    """A towers answer and what became of its certificate."""

    result: TowersResult
    check: CertificateCheck | None  # None: no certificate was written
    why_not: str = ""  # why none was written


def solve_with_certificate(problem: TowersProblem, path: Path, *,
                           time_limit: float | None = None) -> ProvedAnswer:
    """Solve ``problem``, write the programme's certificate of the answer to ``path`` and
    check it. Nothing is left at ``path`` unless the certificate is whole and proved."""
    from cpmodels.towers import model, programme

    if min(problem.rows, problem.cols) > model.DP_PROOF_WIDTH:
        raise InputError(f"certificates come from the exact programme, which proves boards "
                         f"up to {model.DP_PROOF_WIDTH} wide; {problem.rows}x{problem.cols} "
                         "is wider (drop --proof for its best board and bound)")
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


def verify_certificate(spec: TowersSpec, path: Path, size: tuple[int, int] | None = None,
                       on_layer: Callable[[int, int], None] | None = None,
                       ) -> tuple[TowersProblem, CertificateCheck]:
    """Check the certificate at ``path`` for ``spec`` (its board size from ``size``, else
    from the certificate's header), without a solver."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        header = read_header(path)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size is not None:
        rows, cols = size
    elif isinstance(header.get("rows"), int) and isinstance(header.get("cols"), int) \
            and header["rows"] > 0 and header["cols"] > 0:
        rows, cols = header["rows"], header["cols"]
    else:
        raise InputError(f"{path}: the header gives no board size")
    problem = towers_problem(spec, rows, cols)
    return problem, check_certificate(path, problem, on_layer=on_layer)
