"""The model formats ``cpmodels export`` writes: their files, what they fit, what reads them
(a table only, so the command line can list them without loading a solver)."""

from __future__ import annotations

# format -> (file extensions, whether packing fits, whether towers fits, what reads it)
FORMATS: dict[str, tuple[tuple[str, ...], bool, bool, str]] = {
    "dimacs": ((".cnf", ".dimacs"), True, False, "SAT solvers (CaDiCaL, kissat, python-sat)"),
    "xcc": ((".xcc", ".dlx"), True, False, "Knuth's DLX programs"),
    "opb": ((".opb",), True, True, "pseudo-Boolean solvers"),
    "mps": ((".mps",), True, True, "MIP solvers (HiGHS, SCIP, CBC)"),
    "lp": ((".lp",), True, True, "MIP solvers (HiGHS, SCIP, CPLEX)"),
    "cpsat": ((".pb", ".pbtxt"), True, True, "OR-Tools CP-SAT"),
    "mzn": ((".mzn",), True, True, "MiniZinc"),
}

FORMAT_NAMES = tuple(FORMATS)
