"""The packing formats that are lists of constraints over the exact cover itself: DIMACS CNF
and the XCC text of Knuth's DLX programs."""

from __future__ import annotations

from cpmodels.backends.cnf import PROOF_ENCODING, build_cnf
from cpmodels.export.linear import header_lines
from cpmodels.export.subject import Subject

XCC_NAME_LIMIT = 8  # DLX1 and its kin take item names of at most 8 characters


def dimacs_text(subject: Subject) -> str:
    """The CNF the ``sat`` backend proves with: one variable per placement, each item's
    cardinality constraint as clauses (Sinz's sequential counter, auxiliary variables after
    the placements). Comment lines map every variable; ``c p show`` lists the placement
    variables, so a projected model counter counts solutions, not encodings."""
    cover = subject.cover
    cnf = build_cnf(cover, PROOF_ENCODING)
    n = len(cover.options)
    extra = [f"variables 1..{n} are placements; {cnf.n_vars - n} auxiliary after them"]
    lines = [f"c {line}" for line in header_lines(subject, extra)]
    for item, first, last in cnf.auxiliary:
        lines.append(f"c x{first}..x{last} = auxiliary: the cardinality constraint of "
                     f"{cover.items[item].name}")
    lines.append("c p show " + " ".join(str(v) for v in range(1, n + 1)) + " 0")
    return "\n".join(lines) + "\n" + cnf.dimacs()


def dimacs_variables(subject: Subject) -> int:
    """How many variables the DIMACS file has, auxiliary ones included."""
    return build_cnf(subject.cover, PROOF_ENCODING).n_vars


def xcc_names(subject: Subject) -> list[str]:
    """Each item's name in XCC: its own where DLX takes it (at most 8 characters, no blank,
    ``|`` or ``:``, not taken by another item), else ``i`` and its number."""
    names: list[str] = []
    seen: set[str] = set()
    for i, item in enumerate(subject.cover.items):
        name = item.name
        if (len(name) > XCC_NAME_LIMIT or not name or name in seen
                or any(ch.isspace() or ch in "|:" for ch in name)):
            name = f"i{i}"
        while name in seen:
            name += "'"
        seen.add(name)
        names.append(name)
    return names


def xcc_text(subject: Subject) -> str:
    """Exact cover in the input format of Knuth's DLX programs: ``|`` comment lines, the
    primary items (a piece with copies or a range as ``low:high|name``, which DLX3 and SSMCC
    read), ``|``, the secondary items, then one option a line, in variable order."""
    cover = subject.cover
    names = xcc_names(subject)
    primary, secondary = [], []
    for item, name in zip(cover.items, names):
        if item.low == item.high == 1:
            primary.append(name)
        elif item.low == 0 and item.high == 1:
            secondary.append(name)
        else:
            primary.append(f"{item.low}:{item.high}|{name}")
    extra = ["option k (the k-th option line) is variable xk"]
    if len(primary) != sum(it.low == it.high == 1 for it in cover.items):
        extra.append("items with copies are written low:high|name, for DLX3 or SSMCC")
    lines = [f"| {line}" for line in header_lines(subject, extra)]
    lines.append(" ".join(primary) + (" | " + " ".join(secondary) if secondary else ""))
    lines += [" ".join(names[i] for i in option) for option in cover.options]
    return "\n".join(lines) + "\n"
