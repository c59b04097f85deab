"""Narrow a towers size's gap from the prices kept beside this script: go on pricing its
bands by the bundle (``bounds.lagrangian_bound``, its whole state kept in
``towers_RxC.pricing`` as it goes, so a stopped run goes on from there), and at every step
join the two bands' boards at the cut, re-solve the rows around it and polish the board by
its windows (``towers.search``). A better board (legal by the rules, scoring more) is
written back to ``towers_RxC_prices.json`` as it is found, and the least step's prices
when their bound is lower, at the end or on Ctrl-C.

    python benchmarks/towers_gap.py 11 --steps 40

The bound written is the two bands' optima at the prices, as ``solve --proof`` certifies
them (``benchmarks/run.py towers_11x11_certified`` writes and checks that certificate).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from cpmodels.spec import load_spec
from cpmodels.towers import search
from cpmodels.towers.bounds import lagrangian_bound
from cpmodels.towers.pricing import load_state
from cpmodels.towers.problem import towers_problem

HERE = Path(__file__).resolve().parent
SPECS = HERE.parent / "specs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("size", type=int, help="the board's side (the prices kept for it)")
    parser.add_argument("--steps", type=int, default=40, help="pricing steps in all")
    args = parser.parse_args()
    n = args.size
    kept = HERE / f"towers_{n}x{n}_prices.json"
    stored = json.loads(kept.read_text())
    problem = towers_problem(load_spec(SPECS / stored["puzzle"]), n, n)
    state_file = HERE / f"towers_{n}x{n}.pricing"
    cut, scale = stored["cut"], stored["scale"]
    best = {"score": problem.score(stored["board"]), "board": stored["board"]}
    began = time.process_time()

    def joined(top: list[str], bottom: list[str]) -> None:
        whole = search.best_window(problem, top[:cut] + bottom[1:], cut - 2, 4)
        if not whole:
            return
        board = search.polish(problem, whole)
        if not problem.violations(board) and problem.score(board) > best["score"]:
            best.update(score=problem.score(board), board=board)
            print(f"board {best['score']:,}: {' / '.join(board)}", flush=True)
            stored["board"] = board
            keep()

    def heard(step: int, value: float) -> None:
        print(f"step {step}: {value:,.2f} ({time.process_time() - began:,.0f} s of CPU)",
              flush=True)

    def keep() -> None:
        kept.write_text(json.dumps(stored, separators=(",", ":")) + "\n")

    resume = load_state(state_file, problem) if state_file.is_file() else None
    try:
        # The aim stays the one the pricing began with, whatever board was found since.
        lagrangian_bound(problem, cut, steps=args.steps,
                         target=best["score"] if resume is None else resume.target,
                         method="bundle", polyak_share=0.0, scale=scale,
                         stop_at=best["score"], resume=resume,
                         start=None if resume else np.array(stored["prices"]),
                         save=state_file, on_step=heard, on_boards=joined)
    except KeyboardInterrupt:
        print("interrupted: the pricing's state is kept", flush=True)
    state = load_state(state_file, problem)  # the least step's prices, however it ended
    if state.least is not None and state.best is not None \
            and problem.bound_from(state.least, scale) < stored["bound"]:
        stored.update(bound=problem.bound_from(state.least, scale),
                      prices=state.best.reshape(np.shape(stored["prices"])).tolist())
    keep()
    print(f"board {problem.score(stored['board']):,}, bound {stored['bound']:,} "
          f"({time.process_time() - began:,.0f} s of CPU)")


if __name__ == "__main__":
    main()
