"""An independent solution checker: it reads spec files itself and shares no package code."""

from __future__ import annotations

from pathlib import Path

import yaml


def _rows(value):
    if isinstance(value, str):
        text = value.strip("\n")
        return text.split("\n") if "\n" in text else text.split("/")
    return value


def _shape(rows):
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"}
    return _norm(cells)


def _norm(cells):
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _variants(cells, rotate, flip):
    out = set()
    current = list(cells)
    for _ in range(4 if rotate else 1):
        out.add(_norm(current))
        if flip:
            out.add(_norm([(r, -c) for r, c in current]))
        current = [(c, -r) for r, c in current]
    return out


def board_of(spec_path: str | Path, target: str | None = None):
    """(cells to fill or leave, {label: cell}) read straight from the YAML."""
    data = yaml.safe_load(Path(spec_path).read_text())
    if data["kind"] == "calendar":
        cells, labels = set(), {}
        for r, row in enumerate(data["board"]):
            for c, tok in enumerate(row.split()):
                if tok != "#":
                    cells.add((r, c))
                if tok not in ("#", "."):
                    labels[tok] = (r, c)
        return data, cells, labels
    if "targets" in data:
        boards = {t["name"]: t["board"] for t in data["targets"]}
        rows = _rows(boards[target] if target else next(iter(boards.values())))
    else:
        rows = _rows(data["board"])
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."}
    return data, cells, {}


def check_packing(spec_path: str | Path, payload: dict, *, face_up: bool = False) -> None:
    """Assert that a ``solve`` JSON payload is a legal solution of the spec it names."""
    data, cells, labels = board_of(spec_path, payload.get("target"))
    assert payload["status"] == "solved", payload["status"]
    uncovered = {labels[label] for label in payload["labels"]}
    assert {tuple(rc) for rc in payload["uncovered"]} == uncovered
    if data["kind"] == "calendar":
        groups = data["groups"]
        assert len(payload["labels"]) == len(groups)
        for label, group in zip(payload["labels"], groups.values()):
            assert label in [str(x) for x in group]
    covered: list[tuple[int, int]] = []
    used: dict[str, int] = {}
    pieces = {p["name"]: p for p in data["pieces"]}
    for placement in payload["placements"]:
        piece = pieces[placement["piece"]]
        shape = _shape(_rows(piece["shape"]))
        rotate = piece.get("rotate", data.get("rotate", True))
        flip = False if face_up else piece.get("flip", data.get("flip", True))
        got = [tuple(rc) for rc in placement["cells"]]
        assert _norm(got) in _variants(shape, rotate, flip), f"illegal shape for {piece['name']}"
        covered += got
        used[piece["name"]] = used.get(piece["name"], 0) + 1
    assert len(covered) == len(set(covered)), "a cell is covered twice"
    assert set(covered) == cells - uncovered, "covered cells differ from the board"
    assert used == {name: p.get("count", 1) for name, p in pieces.items()}, "piece counts"


NEEDS = {"B": "", "R": "B", "G": "RB", "Y": "GRB", "W": "YGRB"}
POINTS = {"B": 10, "R": 20, "G": 30, "Y": 40, "W": 100}


def check_towers(grid: list[str], rows: int, cols: int) -> int:
    """Assert the towers rules on a board of the reference colours; return its score."""
    assert len(grid) == rows and all(len(row) == cols for row in grid)
    for r in range(rows):
        for c in range(cols):
            around = {grid[r + dr][c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                      if 0 <= r + dr < rows and 0 <= c + dc < cols}
            for need in NEEDS[grid[r][c]]:
                assert need in around, f"{grid[r][c]} at ({r},{c}) lacks {need}"
    return sum(POINTS[ch] for row in grid for ch in row)


def brute_force_count(cells, shapes_by_piece) -> int:
    """Count tilings of ``cells`` by one copy of each piece, by plain backtracking."""
    cells = set(cells)
    pieces = list(shapes_by_piece.items())

    def place(free, remaining):
        if not free:
            return 1 if not remaining else 0
        first = min(free)
        total = 0
        for name in list(remaining):
            for variant in shapes_by_piece[name]:
                anchor = min(variant)
                moved = {(r - anchor[0] + first[0], c - anchor[1] + first[1])
                         for r, c in variant}
                if moved <= free:
                    total += place(free - moved, remaining - {name})
        return total

    return place(frozenset(cells), frozenset(name for name, _ in pieces))


def variants_of(rows, rotate=True, flip=True):
    return _variants(_shape(_rows(rows)), rotate, flip)


#: Small boards and piece sets whose tilings the backends and the brute force must agree on.
SMALL_BOARDS = [
    ({(r, c) for r in range(2) for c in range(5)}, {"L": "####/#...", "P": "##/##/#."}),
    ({(r, c) for r in range(3) for c in range(5)},
     {"L": "####/#...", "P": "##/##/#.", "U": "#.#/###"}),
    ({(r, c) for r in range(4) for c in range(5)},
     {"L": "####/#...", "P": "##/##/#.", "Y": "####/.#..", "N": "##../.###"}),
    ({(r, c) for r in range(4) for c in range(4)},
     {"T": "###/.#.", "L": "###/#..", "S": "##./.##", "O": "##/##"}),
    ({(r, c) for r in range(5) for c in range(5)} - {(2, 2)},
     {"L": "####/#...", "T": "###/.#.", "S": "##./.##", "O": "##/##", "I": "####",
      "J": "#../###"}),
]


def replay_towers(order, rows: int, cols: int) -> list[str]:
    """Replay builds ``[row, col, letter]`` from an empty board under the game's rule (a
    tower's needs are checked when it is built; it may replace another); return the city."""
    board = [[None] * cols for _ in range(rows)]
    for r, c, letter in order:
        assert 0 <= r < rows and 0 <= c < cols, f"({r},{c}) is off the board"
        around = {board[r + dr][c + dc] for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                  if 0 <= r + dr < rows and 0 <= c + dc < cols}
        for need in NEEDS[letter]:
            assert need in around, f"{letter} built at ({r},{c}) without {need}"
        board[r][c] = letter
    assert all(all(row) for row in board), "a cell is never built"
    return ["".join(row) for row in board]
