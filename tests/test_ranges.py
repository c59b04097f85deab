"""Pieces used a range of times (``count: [min, max]``): specs, counts, backends, symmetry."""

from __future__ import annotations

import json

import pytest
from conftest import SPECS

from cpmodels.backends import count_cover
from cpmodels.counting import count_instance
from cpmodels.errors import SpecError
from cpmodels.instance import packing_instance
from cpmodels.query import Query
from cpmodels.spec import load_spec, parse_spec
from cpmodels.symmetry import held_piece, problem_symmetries

OPTIONAL = SPECS / "pentominoes_10_of_12.yaml"

SMALL = """\
kind: packing
name: squares_and_ells
board: ["....", "....", "....", "...."]
pieces:
  - {name: O, shape: "##/##", count: %s}
  - {name: L, shape: "###/#..", count: %s}
  - {name: I, shape: "####", count: %s}
"""


def test_any_6_of_12_pentominoes_agree_across_backends():
    """The 5x6 box with any 6 of the 12 pentominoes: every backend counts 2,164 raw, and
    541 classes up to the box's 4 symmetries (no piece is in every solution, so the
    classes come from canonical forms)."""
    instance = packing_instance(Query.of(load_spec(OPTIONAL), target="5x6"))
    counts = {name: count_cover(name, instance.cover) for name in ("engine", "cpsat", "sat")}
    assert counts == {"engine": 2164, "cpsat": 2164, "sat": 2164}
    assert count_instance(instance, distinct=True).count == 541
    assert count_instance(instance, distinct=True, backend="sat").count == 541
    # A piece that may be left out cannot pin the classes: no shortcut for the raw count.
    syms = problem_symmetries(instance.cover, instance.cells)
    assert len(syms) == 4 and held_piece(instance.cover, syms) is None


def test_the_bundled_optional_spec(run_cli):
    code, out, _ = run_cli("count", OPTIONAL, "--format", "json")
    assert code == 0 and json.loads(out)["count"] == 27804
    code, out, _ = run_cli("count", OPTIONAL, "--distinct", "--format", "json")
    assert code == 0 and json.loads(out)["count"] == 6951


@pytest.mark.parametrize("counts", [("[0, 4]", "[0, 4]", "[0, 4]"), ("[1, 2]", "[0, 3]", "1"),
                                    ("2", "[0, 2]", "[0, 2]"), ("[0, 1]", "[2, 3]", "[0, 4]")])
def test_ranges_of_copies_agree_across_backends(counts):
    """Tetrominoes in a 4x4 box, each used a range of times: identical copies are one
    piece, so every backend gives the same count, and every solution keeps the ranges."""
    spec = parse_spec(SMALL % counts)
    instance = packing_instance(Query.of(spec))
    found = {name: count_cover(name, instance.cover) for name in ("engine", "cpsat", "sat")}
    assert len(set(found.values())) == 1 and found["engine"] > 0, found
    from cpmodels.backends import iter_cover_solutions

    for chosen in iter_cover_solutions("engine", instance.cover):
        used = [instance.cover.placements[j].piece for j in chosen]
        for piece in spec.pieces:
            assert piece.low <= used.count(piece.name) <= piece.high


@pytest.mark.parametrize(("count", "fragment"), [
    ("true", "give a count: a number of copies, or [min, max]"),
    ("0", "give a count from 1 to 1000, or a range [min, max]"),
    ("[2, 1]", "a range is [min, max] with 0 <= min <= max"),
    ("[0, 0]", "a range is [min, max] with 0 <= min <= max"),
    ("[1, 2, 3]", "a range is [min, max]"),
    ("'two'", "give a count: a number of copies"),
    ("[0.5, 1]", "give a count: a number of copies"),
])
def test_a_bad_count_is_one_clear_line(count, fragment):
    with pytest.raises(SpecError) as caught:
        parse_spec(SMALL % (count, "1", "1"))
    assert fragment in str(caught.value) and "pieces[0].count" in str(caught.value)


def test_an_area_no_choice_of_copies_reaches_is_refused():
    with pytest.raises(SpecError, match=r"cover from 0 to 24 \(but no choice of copies "
                                        r"within the counts covers 16\)"):
        parse_spec(SMALL.replace('"##/##"', '"###/###"').replace(
            '"###/#.."', '"######"').replace('"####"', '"######"') % ("[0, 1]", "[0, 2]",
                                                                      "[0, 1]"))
    with pytest.raises(SpecError, match="the pieces cover from 20 to 32 cells but the board "
                                        "has 16 cells"):
        parse_spec(SMALL % ("[5, 6]", "[0, 1]", "[0, 1]"))


def test_a_design_refuses_a_count_range(tmp_path, run_cli):
    (tmp_path / "b.yaml").write_text((SPECS / "calendar_day.yaml").read_text())
    path = tmp_path / "design.yaml"
    path.write_text("kind: design\nname: x\nboard: b.yaml\nfixed:\n"
                    '  - {name: O6, shape: "###/###", count: [0, 1]}\n'
                    "choose:\n  - {pool: pentominoes, count: 7}\n")
    code, _, err = run_cli("design", path)
    assert code == 2 and "count range" in err and "Traceback" not in err
