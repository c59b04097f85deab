"""The engine's buffers of the standard library (``layouts/buffers.py``): typed, shaped,
read in place by numpy and the core, and private to a forked worker."""

from __future__ import annotations

import os

import numpy as np

from cpmodels.backends.engine.layouts.buffers import SMALL, of, zeros


def test_buffers_have_the_core_types_and_shapes():
    for fmt, dtype in (("q", np.int64), ("Q", np.uint64), ("?", np.bool_)):
        for shape in ((3,), (2, 5), (SMALL, 3)):  # a bytearray, and an anonymous map
            a = zeros(shape, fmt)
            view = np.asarray(a)
            assert (view.dtype, view.shape) == (dtype, shape) and not view.any()
            view[(1,) * len(shape)] = 1
            assert a[(1,) * len(shape)] == 1  # the same memory
    assert of([1, -2, 3], shape=(1, 3)).tolist() == [[1, -2, 3]]
    assert of([True, False], "?").tolist() == [True, False]
    assert np.asarray(zeros((0, 3), "Q")).shape == (0, 3)  # no memoryview has that shape


def test_a_forked_worker_writes_its_own_copy():
    """A worker process starts from the parent's tables warm, and what it writes stays its
    own (a shared map would be one table and one stop flag for every worker)."""
    small, mapped = zeros(8), zeros((SMALL, 2))
    pid = os.fork()
    if pid == 0:
        small[0], mapped[0, 0] = 7, 7
        os._exit(0 if (small[0], mapped[0, 0]) == (7, 7) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert small[0] == 0 and mapped[0, 0] == 0
