"""The one backend contract: every packing backend offers the same calls and honours them."""

from __future__ import annotations

import inspect
import itertools

import pytest
from conftest import SPECS, cpu_seconds

from cpmodels.backends import (
    BACKENDS,
    backend,
    count_cover,
    iter_cover_solutions,
    solve_cover,
)
from cpmodels.errors import OutOfTime
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec


def _cover(spec: str, **which):
    return packing_instance(Query.of(load_spec(SPECS / spec), **which)).cover


@pytest.mark.parametrize("name", list(BACKENDS))
def test_every_backend_offers_the_contract(name):
    module = backend(name)
    assert name == module.NAME and isinstance(module.STREAMS, bool)
    for call in ("solve", "iter_solutions", "count"):
        params = inspect.signature(getattr(module, call)).parameters
        assert {"time_limit", "forced"} <= set(params), (name, call)
        assert params["time_limit"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "progress" in inspect.signature(module.count).parameters


def test_an_unknown_backend_is_named_in_the_error():
    with pytest.raises(ValueError, match="unknown backend 'dlx'; choose from engine"):
        backend("dlx")


@pytest.mark.parametrize("name", list(BACKENDS))
def test_forced_options_are_in_every_answer(name):
    cover = _cover("calendar_day.yaml", labels=["Oct", "6"])
    solutions = sorted(sorted(s) for s in iter_cover_solutions("engine", cover))
    assert len(solutions) == 7
    forced = [solutions[3][0], solutions[3][1]]
    expected = [s for s in solutions if set(forced) <= set(s)]
    got = sorted(sorted(s) for s in iter_cover_solutions(name, cover, forced=forced))
    assert got == expected
    assert count_cover(name, cover, forced=forced) == len(expected)
    solved = solve_cover(name, cover, forced=forced)
    assert solved.status == "solved" and set(forced) <= set(solved.chosen)
    # Two options that overlap: no solution has both.
    clash = next(j for j in range(len(cover.options)) if j != forced[0]
                 and set(cover.options[j]) & set(cover.options[forced[0]]))
    assert solve_cover(name, cover, forced=[forced[0], clash]).status == "unsolvable"


@pytest.mark.parametrize("name", list(BACKENDS))
def test_every_backend_honours_its_time_limit(name):
    cover = _cover("pentominoes_8x8_square.yaml")  # 129,168 raw solutions: minutes for all
    start = cpu_seconds()
    with pytest.raises(OutOfTime) as stop:
        count_cover(name, cover, time_limit=0.5)
    assert isinstance(stop.value.partial, int)  # what was counted before the limit
    with pytest.raises(OutOfTime):
        for _ in iter_cover_solutions(name, cover, time_limit=0.5):
            pass
    assert cpu_seconds() - start < 8


@pytest.mark.parametrize("name", list(BACKENDS))
def test_solutions_stream_and_stop_when_the_consumer_does(name):
    """The first solutions of a big search arrive long before it could end; closing the
    stream ends the search."""
    cover = _cover("pentominoes_8x8_square.yaml")
    start = cpu_seconds()
    stream = iter_cover_solutions(name, cover)
    first = list(itertools.islice(stream, 3))
    stream.close()
    assert len(first) == 3 and len({tuple(sorted(s)) for s in first}) == 3
    assert all(cover.is_solution(sorted(s)) for s in first)
    assert cpu_seconds() - start < 20


def test_capabilities_are_declared_and_asked_for_in_one_place():
    from cpmodels.backends import Capability, require
    from cpmodels.errors import InputError

    assert {name for name, info in BACKENDS.items()
            if Capability.CLUSTER in info.capabilities} == {"engine"}
    assert {name for name, info in BACKENDS.items()
            if Capability.PROVE in info.capabilities} == {"sat"}
    require("engine", Capability.CLUSTER, "--cluster")
    with pytest.raises(InputError, match=r"--cluster needs a backend that runs its work in "
                                         r"units on a Dask cluster \(engine\), not cpsat"):
        require("cpsat", Capability.CLUSTER, "--cluster")


def test_a_cluster_with_another_backend_is_refused_before_connecting(capsys):
    from cpmodels.cli import main

    code = main(["count", "calendar_day", "--date", "2024-10-06", "--backend", "sat",
                 "--cluster", "tcp://127.0.0.1:9"])
    assert code == 2
    assert "needs a backend that runs its work in units on a Dask cluster (engine), not sat" \
        in capsys.readouterr().err
