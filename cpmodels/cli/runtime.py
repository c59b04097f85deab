"""What the commands share while they run: the Dask cluster they were pointed at, progress
bars, and the puzzle instance the arguments name (loaded with a clear error)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cpmodels.errors import InputError

if TYPE_CHECKING:
    from cpmodels.instance import PackingInstance
    from cpmodels.spec.kinds import CalendarKind, PackingKind, TowersKind


@contextlib.contextmanager
def cluster_from(args: argparse.Namespace, *, check_backend: bool = True) -> Iterator[Any]:
    """The cluster ``--cluster`` (or ``$CPMODELS_CLUSTER``) names, connected; else None.
    With ``check_backend`` the command's backend must run on a cluster (work of the
    engine's); without, the work is the command's own (a towers pricing's bands)."""
    from cpmodels.backends.engine import CLUSTER_ENV

    address = args.cluster or os.environ.get(CLUSTER_ENV)
    if not address:
        yield None
        return
    from cpmodels.backends import Capability, require
    from cpmodels.backends.engine import connect  # (the Dask side, loaded only now)

    if check_backend:
        require(getattr(args, "backend", "engine"), Capability.CLUSTER, "--cluster")
    with connect(address) as cluster:
        where = f"; dashboard {cluster.dashboard}" if cluster.dashboard else ""
        n = cluster.workers
        print(f"cluster {cluster.address}: {n} worker{'' if n == 1 else 's'}{where}",
              file=sys.stderr)
        yield cluster


def advance(bar: Any, done: int, in_all: int) -> None:
    """Show ``done`` of ``in_all`` on a progress bar."""
    bar.total = in_all or None  # 0: not known (solutions counted as they are listed)
    bar.n = done
    bar.refresh()


def bars_on(args: argparse.Namespace) -> bool:
    """Whether to show progress bars: not --quiet, and stderr is a terminal."""
    return not args.quiet and sys.stderr.isatty()


def packing_instance_of(args: argparse.Namespace,
                        spec: PackingKind | CalendarKind | TowersKind | None = None,
                        ) -> PackingInstance:
    """The instance the arguments ask for (``--date``/``--labels``/``--target``/``--face-up``)
    of ``spec`` (default: the spec ``args`` names, a bundled one read as its record)."""
    from cpmodels.instance import packing_instance
    from cpmodels.query import Query
    from cpmodels.spec.kinds import TowersKind
    from cpmodels.spec.validated import read_spec

    spec = spec if spec is not None else read_spec(args.spec)
    if isinstance(spec, TowersKind):
        raise InputError(f"{args.command} applies to packing and calendar specs, "
                         "not to towers")
    return packing_instance(Query.of(spec, target=args.target, labels=args.labels,
                                     date=args.date, face_up=args.face_up))
