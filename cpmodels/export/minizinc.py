"""MiniZinc: a model (``.mzn``) that reads its instance from a data file (``.dzn``).

The packing model is exact cover with multiplicities: one Boolean per option, each item
covered ``low`` to ``high`` times; it prints the chosen options. The towers model keeps the
puzzle's own words: a colour (0 for empty) per cell, a colour's needs among its four
neighbours, the score maximised; it prints the board.
"""

from __future__ import annotations

from collections.abc import Iterable

from cpmodels.export.subject import Subject

PACKING_MODEL = """\
% {title}
% Exact cover: choose options (placements) so that every item (a board cell, a piece) is
% covered between low[i] and high[i] times. The data file lists, for each item, the options
% that cover it; option j is the variable x{{j}} of the other formats.
int: n_items;
int: n_options;
array[1..n_items] of string: item_name;
array[1..n_items] of int: low;
array[1..n_items] of int: high;
array[1..n_items] of set of 1..n_options: covers;
array[1..n_options] of var bool: chosen;
constraint forall(i in 1..n_items)(
  let {{ var int: used = sum(j in covers[i])(bool2int(chosen[j])) }}
  in low[i] <= used /\\ used <= high[i]);
solve satisfy;
output ["options = \\([j | j in 1..n_options where fix(chosen[j])]);\\n"];
"""

TOWERS_MODEL = """\
% {title}
% Towers: every cell holds a tower of one colour (or nothing, where empty cells are allowed);
% a colour may stand only where each colour it needs stands on a neighbouring cell (up,
% down, left, right). The score, the sum of the towers' points, is maximised.
int: rows;
int: cols;
int: n_colours;
array[1..n_colours] of string: letter;
array[1..n_colours] of int: points;
array[1..n_colours] of set of 1..n_colours: needs;
bool: allow_empty;
string: empty_letter;
array[1..rows, 1..cols] of -1..n_colours: built;  % -1: free, 0: empty, k: colour k
array[1..rows, 1..cols] of var 0..n_colours: tower;  % 0: empty
constraint forall(r in 1..rows, c in 1..cols)(
  (not allow_empty -> tower[r, c] >= 1) /\\
  (built[r, c] >= 0 -> tower[r, c] = built[r, c]) /\\
  forall(k in 1..n_colours, n in needs[k])(
    tower[r, c] = k -> exists(rr in max(1, r - 1)..min(rows, r + 1),
                              cc in max(1, c - 1)..min(cols, c + 1)
                              where abs(rr - r) + abs(cc - c) = 1)(tower[rr, cc] = n)));
var int: score = sum(r in 1..rows, c in 1..cols)(
  if tower[r, c] = 0 then 0 else points[tower[r, c]] endif);
solve maximize score;
output ["board = ["] ++
       [if c = 1 then "\\"" else "" endif ++
        (if fix(tower[r, c]) = 0 then empty_letter else letter[fix(tower[r, c])] endif) ++
        if c = cols then (if r = rows then "\\"" else "\\", " endif) else "" endif
        | r in 1..rows, c in 1..cols] ++
       ["];\\nscore = \\(score);\\n"];
"""


NEEDS_ALWAYS = """\
  forall(k in 1..n_colours, n in needs[k])(
    tower[r, c] = k -> exists(rr in max(1, r - 1)..min(rows, r + 1),
                              cc in max(1, c - 1)..min(cols, c + 1)
                              where abs(rr - r) + abs(cc - c) = 1)(tower[rr, cc] = n)));
"""

# The build-order rule (colours in a chain, colour k needs 1..k-1; docs/towers.md): the
# city is orderable. t: each cell's last build; lend[r, c, d]: the need (0: none) the
# neighbour in direction d gives, holding it and built before, or built after with as many
# neighbours as that colour needs.
NEEDS_WHEN_BUILT = """\
  true);
array[1..4] of int: dr = [-1, 1, 0, 0];
array[1..4] of int: dc = [0, 0, -1, 1];
function int: degree(int: r, int: c) =
  sum(d in 1..4)(bool2int(r + dr[d] in 1..rows /\\ c + dc[d] in 1..cols));
array[1..rows, 1..cols] of var 0..rows * cols - 1: t;
array[1..rows, 1..cols, 1..4] of var 0..n_colours: lend;
constraint forall(r in 1..rows, c in 1..cols, d in 1..4)(
  if r + dr[d] in 1..rows /\\ c + dc[d] in 1..cols then
    t[r, c] != t[r + dr[d], c + dc[d]] /\\
    (lend[r, c, d] > 0 ->
      ((tower[r + dr[d], c + dc[d]] = lend[r, c, d] /\\ t[r + dr[d], c + dc[d]] < t[r, c]) \\/
       (t[r + dr[d], c + dc[d]] > t[r, c] /\\
        degree(r + dr[d], c + dc[d]) >= card(needs[lend[r, c, d]]))))
  else lend[r, c, d] = 0 endif);
constraint forall(r in 1..rows, c in 1..cols, k in 1..n_colours, n in needs[k])(
  tower[r, c] = k -> exists(d in 1..4)(lend[r, c, d] = n));
"""


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _ints(values: Iterable[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def minizinc_texts(subject: Subject) -> tuple[str, str]:
    """The model and its data file."""
    title = f"cpmodels: {subject.describe()}"
    if not subject.is_towers:
        cover = subject.cover
        covers = ", ".join("{" + ", ".join(str(j + 1) for j in options) + "}"
                           for options in cover.item_options())
        data = [f"% {title}",
                f"n_items = {len(cover.items)};",
                f"n_options = {len(cover.options)};",
                "item_name = [" + ", ".join(_string(it.name) for it in cover.items) + "];",
                f"low = {_ints(it.low for it in cover.items)};",
                f"high = {_ints(it.high for it in cover.items)};",
                f"covers = [{covers}];"]
        return PACKING_MODEL.format(title=title), "\n".join(data) + "\n"
    p = subject.towers
    built = dict(p.fixed)
    cells = [built[r, c] + 1 if (r, c) in built else -1
             for r in range(p.rows) for c in range(p.cols)]
    needs = ", ".join("{" + ", ".join(str(n + 1) for n in col.needs) + "}" for col in p.colours)
    data = [f"% {title}",
            f"rows = {p.rows};",
            f"cols = {p.cols};",
            f"n_colours = {len(p.colours)};",
            "letter = [" + ", ".join(_string(col.letter) for col in p.colours) + "];",
            f"points = {_ints(col.points for col in p.colours)};",
            f"needs = [{needs}];",
            f"allow_empty = {'true' if p.allow_empty else 'false'};",
            f"empty_letter = {_string(p.empty_letter)};",
            f"built = array2d(1..{p.rows}, 1..{p.cols}, {_ints(cells)});"]
    model = TOWERS_MODEL.format(title=title)
    if p.when_built:
        model = model.replace(NEEDS_ALWAYS, NEEDS_WHEN_BUILT)
    return model, "\n".join(data) + "\n"
