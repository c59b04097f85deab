"""solve, verify and prove: one puzzle's answer, a towers certificate, a proof of none."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cpmodels.cli.output import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_UNSOLVABLE,
    PICTURES,
    STATUS_EXIT,
    answer,
    colour_ok,
    emit,
    picture_module,
)
from cpmodels.cli.parser import (
    add_backend_arg,
    add_cluster_arg,
    add_instance_args,
    add_quiet_arg,
    grid_size,
    job_count,
    positive_seconds,
    whole_number,
)
from cpmodels.cli.runtime import bars_on, cluster_from, packing_instance_of
from cpmodels.errors import InputError

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers


def cmd_solve(args: argparse.Namespace) -> int:
    from cpmodels.spec.kinds import TowersKind
    from cpmodels.spec.validated import read_spec

    spec = read_spec(args.spec)
    if args.out is not None and args.format not in PICTURES:
        raise InputError("--out goes with --format svg or png")
    colour = colour_ok(sys.stdout)
    if isinstance(spec, TowersKind):
        for flag in ("date", "labels", "target"):
            if getattr(args, flag) is not None:
                raise InputError(f"--{flag} does not apply to a towers spec")
        from cpmodels import towers
        from cpmodels.render import towers_payload, towers_text

        rows, cols = args.size or (None, None)
        problem = towers.towers_problem(spec, rows, cols)
        if args.proof is None:
            _no_pricing_without_proof(args)
            best = towers.solve(problem, time_limit=args.time_limit)
            answer(args, towers_payload(problem, best), towers_text(problem, best, colour),
                   lambda: picture_module().towers_picture(problem, best))
            return STATUS_EXIT[best.status]
        return _solve_towers_with_proof(args, problem, colour)

    if args.size is not None:
        raise InputError("--size applies to towers specs only")
    _no_pricing_without_proof(args)
    if args.proof is not None:
        raise InputError("solve --proof is for towers specs; a packing puzzle's proof of "
                         "no solution comes from prove --proof")
    from cpmodels.backends import solve_cover
    from cpmodels.render import packing_payload, packing_text

    instance = packing_instance_of(args, spec)
    result = solve_cover(args.backend, instance.cover, time_limit=args.time_limit)
    answer(args, packing_payload(instance, result), packing_text(instance, result, colour),
            lambda: picture_module().packing_picture(instance, result))
    return STATUS_EXIT[result.status]


def _no_pricing_without_proof(args: argparse.Namespace) -> None:
    for flag in ("price_from", "price_save", "cluster"):
        if getattr(args, flag) is not None:
            raise InputError(f"--{flag.replace('_', '-')} goes with --proof on a towers spec "
                             "(the pricing of its certified bound)")
    if args.priced_bound:
        raise InputError("--priced-bound goes with --proof on a towers spec")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _solve_towers_with_proof(args: argparse.Namespace, problem: Any, colour: bool) -> int:
    """Solve, write the programme's certificate of the answer, and check it."""
    from cpmodels.files import check_output
    from cpmodels.render import towers_payload, towers_text
    from cpmodels.towers.proof import Pricing, is_priced, solve_with_certificate

    check_output(args.proof)  # before the search
    pricing = Pricing(args.price_steps, args.price_method, args.price_scale,
                      resume=args.price_from, save=args.price_save,
                      say=None if args.quiet else _say, priced=args.priced_bound)
    if is_priced(problem, pricing):
        with cluster_from(args, check_backend=False) as cluster:
            proved = solve_with_certificate(problem, args.proof, time_limit=args.time_limit,
                                            pricing=replace(pricing, cluster=cluster))
    else:
        proved = solve_with_certificate(problem, args.proof, time_limit=args.time_limit,
                                        pricing=replace(pricing,
                                                        cluster=args.cluster or None))
    result, check = proved.result, proved.check
    payload = towers_payload(problem, result)
    if proved.pricing_state is not None:
        payload.update(pricing_state=str(proved.pricing_state))
    text = towers_text(problem, result, colour)

    def picture() -> Any:
        return picture_module().towers_picture(problem, result)

    if check is None:
        payload.update(proof=None, proof_checked=False)
        answer(args, payload, f"{text}\nno certificate written: {proved.why_not}", picture)
        return EXIT_INTERRUPTED if proved.interrupted else EXIT_UNKNOWN
    payload.update(proof=str(args.proof), proof_checked=check.ok, proof_states=check.states)
    if check.bound is not None:  # a board too wide to prove: a certified bound
        payload.update(proof_bound=check.bound)
    if not check.ok:
        note = f"certificate in {args.proof} was rejected: {check.message}"
    elif check.bound is not None:
        note = (f"bound {check.bound:,} certified in {args.proof} (two priced bands of rows, "
                f"checked: {check.states:,} states); the pricing is kept in "
                f"{proved.pricing_state}")
    else:
        note = (f"certificate in {args.proof}, checked: {check.states:,} states in "
                f"{check.layers} layers")
    answer(args, payload, f"{text}\n{note}", picture)
    return STATUS_EXIT[result.status] if check.ok else EXIT_UNKNOWN


def cmd_verify(args: argparse.Namespace) -> int:
    from cpmodels.progress import progress_bar
    from cpmodels.spec import TowersSpec, load_spec
    from cpmodels.towers.proof import verify_certificate

    spec = load_spec(args.spec)
    if not isinstance(spec, TowersSpec):
        raise InputError(f"verify checks towers certificates; {args.spec} is not a towers "
                         "spec (a packing puzzle's DRUP proof is checked by prove itself)")
    with progress_bar(total=None, desc="checking", unit="layer", enabled=bars_on(args)) as bar:
        problem, check = verify_certificate(spec, args.proof, args.size,
                                            on_layer=lambda t, total: bar.update(1),
                                            workers=args.jobs)
    rows, cols = problem.rows, problem.cols
    payload = {"spec": problem.name, "size": [rows, cols], "proof": str(args.proof),
               "ok": check.ok, "optimum": check.optimum, "states": check.states,
               "message": check.message}
    payload["bound"] = check.bound
    if check.ok:
        what = (f"optimum {check.optimum:,} proved" if check.optimum is not None
                else f"no board scores more than {check.bound:,}, proved"
                if check.bound is not None else "no legal board, proved")
        how = (f"the bands of {check.recomputed:,} branch"
               f"{'' if check.recomputed == 1 else 'es'} worked out again" if check.recomputed
               else f"{check.states:,} states in {check.layers} layers")
        text = f"{problem.name} {rows}x{cols}: {what} (certificate checked: {how})"
    else:
        text = f"{problem.name} {rows}x{cols}: certificate rejected: {check.message}"
    emit(payload, text, args.format)
    return EXIT_OK if check.ok else EXIT_UNKNOWN


def cmd_branch(args: argparse.Namespace) -> int:
    """Branch and bound over a priced bound's cut (``towers.branching``)."""
    from cpmodels.spec import TowersSpec, load_spec

    spec = load_spec(args.spec)
    if not isinstance(spec, TowersSpec) or spec.rules == "when-built":
        raise InputError(f"branch is for towers specs under the default rule; {args.spec} "
                         "is not one")
    from cpmodels import towers
    from cpmodels.files import check_output
    from cpmodels.towers.branching import BranchSearch, load_prices

    rows, cols = args.size or (None, None)
    problem = towers.towers_problem(spec, rows, cols)
    start = load_prices(args.prices, problem)
    goal = args.goal
    if goal is None:
        if start.board is None:
            raise InputError(f"give --goal: {args.prices} keeps no board")
        goal = problem.score(start.board)
    check_output(args.proof)
    state = args.state or args.proof.with_name(args.proof.name + ".branches")
    search = BranchSearch(problem, state, cut=start.cut, scale=start.scale,
                          prices=start.prices, goal=goal, steps=args.branch_steps)
    board = start.board if start.board is not None and problem.score(start.board) == goal \
        else None

    def heard(found: Any) -> None:
        if not args.quiet:
            shown = "no board" if found.bound is None else f"bound {found.bound:,}"
            _say(f"branch {_fixing_text(problem, found.fixing)}: {shown}, "
                 f"{'closed' if found.closed else 'split'} ({found.seconds:.1f} s)")

    try:
        with cluster_from(args, check_backend=False) as cluster:
            from cpmodels.running import OnCluster

            outcome = search.run(None if cluster is None else OnCluster(cluster),
                                 max_branches=args.max_branches, on_branch=heard)
    except KeyboardInterrupt:
        print(f"interrupted; every finished branch is kept in {state}: run the same command "
              "to go on", file=sys.stderr)
        return EXIT_INTERRUPTED
    payload: dict[str, Any] = {
        "spec": problem.name, "size": [problem.rows, problem.cols], "goal": goal,
        "bound": outcome.bound, "closed": outcome.closed, "finished": outcome.finished,
        "waiting": outcome.waiting, "state": str(state),
        "levels": [{"depth": lv.depth, "branches": lv.branches, "closed": lv.closed,
                    "highest": lv.highest, "seconds": round(lv.seconds, 1),
                    "cpu": round(lv.cpu, 1)}
                   for lv in outcome.levels]}
    lines = [f"depth {lv.depth}: {lv.branches:,} branches, {lv.closed:,} closed, highest "
             f"bound {'none' if lv.highest is None else f'{lv.highest:,}'}, "
             f"{lv.seconds:,.0f} s ({lv.cpu:,.0f} s of CPU)" for lv in outcome.levels]
    if not outcome.closed:
        bound = "none yet" if outcome.bound is None else f"{outcome.bound:,}"
        lines.append(f"not closed: the branches prove {bound} (goal {goal:,}); "
                     f"{outcome.waiting:,} branches wait; the state is kept in {state}")
        payload.update(proof=None, proof_checked=False)
        emit(payload, "\n".join(lines), args.format)
        return EXIT_UNKNOWN
    search.write_certificate(args.proof, board)
    check = search.check(args.proof)
    payload.update(proof=str(args.proof), proof_checked=check.ok,
                   proof_bytes=args.proof.stat().st_size)
    lines.append(f"{check.message} in {args.proof} ({args.proof.stat().st_size:,} bytes)"
                 if check.ok else f"certificate in {args.proof} was rejected: {check.message}")
    emit(payload, "\n".join(lines), args.format)
    return EXIT_OK if check.ok else EXIT_UNKNOWN


def _fixing_text(problem: Any, fixing: Any) -> str:
    """A branch as its columns and the letters of their two cells at the cut."""
    letters = [c.letter for c in problem.colours] + [problem.empty_letter]
    return ", ".join(f"column {j} {letters[a]}/{letters[k]}" for j, a, k in fixing) or "root"


def cmd_prove(args: argparse.Namespace) -> int:
    from cpmodels.proving import prove_cover
    from cpmodels.render import packing_payload, packing_text

    instance = packing_instance_of(args)
    try:
        outcome = prove_cover(instance.cover, args.proof, time_limit=args.time_limit)
    except OSError as exc:
        raise InputError(f"cannot write {args.proof}: {exc.strerror or exc}") from None
    result, check = outcome.result, outcome.check
    payload = packing_payload(instance, result)
    if check is None:
        emit(payload, packing_text(instance, result, colour_ok(sys.stdout)), args.format)
        return STATUS_EXIT[result.status]
    payload.update(proof_checked=check.ok, lemmas=check.lemmas,
                   proof=str(args.proof) if args.proof else None)
    if check.ok:
        where = f"; proof in {args.proof}, formula in {args.proof}.cnf" if args.proof else ""
        text = f"unsolvable (proof checked: {check.lemmas} lemmas){where}"
    else:
        text = f"no solution found, but the proof was rejected: {check.message}"
    emit(payload, text, args.format)
    return EXIT_UNSOLVABLE if check.ok else EXIT_UNKNOWN


MAX_PRICE_STEPS = 100_000  # band solves a priced bound may take (each takes seconds)
MAX_PRICE_SCALE = 1_000  # finest prices: a thousandth of a point


def add_solve(sub: Subparsers) -> None:
    solve = sub.add_parser("solve", help="solve one puzzle and show the answer")
    add_instance_args(solve)
    solve.add_argument("--size", type=grid_size, metavar="RxC", help="towers specs: grid size")
    solve.add_argument("--time-limit", type=positive_seconds, metavar="S",
                       help="stop after S seconds (towers: return the best board so far)")
    solve.add_argument("--format", choices=("text", "json", "svg", "png"), default="text",
                       help="text (default), json, or a picture: svg or png (with --out)")
    solve.add_argument("--out", type=Path, metavar="FILE",
                       help="write the svg/png picture to FILE (svg goes to stdout without it)")
    solve.add_argument("--proof", type=Path, metavar="FILE",
                       help="towers specs: write a certificate of the optimum to FILE and "
                       "check it (boards up to 8 wide; wider boards get a certified bound "
                       "from two priced bands of rows; see docs/towers.md)")
    solve.add_argument("--price-steps", type=whole_number(1, MAX_PRICE_STEPS), default=120,
                       metavar="N", help="towers past 8 wide with --proof: solve both bands "
                       "at most N times to price the bound (fewer once it is down to the "
                       "best board's score; default 120)")
    solve.add_argument("--price-method", choices=("polyak", "bundle"), default="polyak",
                       help="... by subgradient steps (polyak, the default) or by cutting "
                       "planes after a quarter of them (bundle: lower bounds in more steps)")
    solve.add_argument("--price-scale", type=whole_number(1, MAX_PRICE_SCALE), default=10,
                       metavar="K", help="... prices in 1/K of a point (default 10)")
    solve.add_argument("--price-save", type=Path, metavar="STATE",
                       help="... save the pricing's whole state to STATE as it goes and on "
                       "Ctrl-C (default: the certificate's name and .pricing)")
    solve.add_argument("--price-from", type=Path, metavar="STATE",
                       help="... go on with the pricing saved in STATE (the same board, "
                       "method and scale) to N steps in all, saving it there again unless "
                       "--price-save names another file")
    solve.add_argument("--priced-bound", action="store_true",
                       help="... certify the priced bound even on a board up to 8 wide, "
                       "whose optimum the programme would prove")
    add_cluster_arg(solve)
    solve.add_argument("--quiet", action="store_true",
                       help="towers with --proof: no line on the pricing's progress on stderr")
    add_backend_arg(solve, "cpsat")
    solve.set_defaults(handler=cmd_solve)


def add_prove(sub: Subparsers) -> None:
    prove = sub.add_parser("prove", help="solve, or prove there is no solution with a checked "
                           "DRUP proof")
    add_instance_args(prove)
    prove.add_argument("--proof", type=Path, metavar="FILE",
                       help="write the proof to FILE and the formula to FILE.cnf")
    prove.add_argument("--time-limit", type=positive_seconds, metavar="S")
    prove.add_argument("--format", choices=("text", "json"), default="text")
    prove.set_defaults(handler=cmd_prove)


MAX_BRANCH_STEPS = 10_000  # pricing steps within one branch


def add_branch(sub: Subparsers) -> None:
    branch = sub.add_parser("branch", help="towers: close a priced bound by branch and bound "
                            "over its cut, with a certificate verify checks")
    branch.add_argument("spec", help="the towers spec")
    branch.add_argument("--size", type=grid_size, metavar="RxC", help="the board size")
    branch.add_argument("--prices", type=Path, metavar="FILE", required=True,
                        help="the root's prices: a pricing's state (solve --proof, "
                        "--price-save) or prices kept with a board")
    branch.add_argument("--goal", type=whole_number(0, 10**12), metavar="SCORE",
                        help="prove no board scores more (default: the score of the board "
                        "kept with the prices)")
    branch.add_argument("--proof", type=Path, metavar="FILE", required=True,
                        help="write the certificate here once every branch is closed")
    branch.add_argument("--state", type=Path, metavar="FILE",
                        help="keep every finished branch here, and go on from it if it "
                        "exists (default: the certificate's name and .branches)")
    branch.add_argument("--branch-steps", type=whole_number(1, MAX_BRANCH_STEPS), default=1,
                        metavar="K", help="price a branch its parent's prices do not close "
                        "again, K steps of the bundle (default 1: no pricing)")
    branch.add_argument("--max-branches", type=whole_number(1, 10**9), metavar="N",
                        help="bound at most N branches in this run")
    branch.add_argument("--format", choices=("text", "json"), default="text")
    branch.add_argument("--quiet", action="store_true",
                        help="no line on stderr for each branch")
    add_cluster_arg(branch)
    branch.set_defaults(handler=cmd_branch)


def add_verify(sub: Subparsers) -> None:
    verify = sub.add_parser("verify", help="check a towers certificate written by solve "
                            "--proof, without the solver")
    verify.add_argument("spec", help="the towers spec the certificate is for")
    verify.add_argument("--proof", type=Path, metavar="FILE", required=True,
                        help="the certificate")
    verify.add_argument("--size", type=grid_size, metavar="RxC",
                        help="the board size (default: the size the certificate is for)")
    verify.add_argument("--jobs", type=job_count, default=1, metavar="N",
                        help="a branched bound: work out N branches at a time, in threads "
                        "(default 1; at most every core)")
    verify.add_argument("--format", choices=("text", "json"), default="text")
    add_quiet_arg(verify)
    verify.set_defaults(handler=cmd_verify)
