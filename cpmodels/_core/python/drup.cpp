// The DRUP checker's replay on numpy arrays (drup.py builds them and the scratch arrays).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "checked_arrays.hpp"
#include "cpcore/entry.h"

namespace nb = nanobind;

namespace cpbind {

void bind_drup(nb::module_& m) {
    m.def(
        "drup_check",
        [](int64_t n_vars, int64_t n_formula, Out<int64_t> lits, In<int64_t> start,
           In<int64_t> length, In<int64_t> step_kind, In<int64_t> step_clause,
           Out<int64_t> units, int64_t n_units_formula, Out<uint8_t> active,
           Out<int64_t> head, Out<int64_t> next, Out<int8_t> value, Out<int64_t> trail,
           Out<int8_t> top_level) {
            const size_t n_clauses = start.shape(0);
            require(n_vars >= 1 && n_formula >= 0 && (size_t)n_formula <= n_clauses,
                    "the counts of variables and clauses are out of range");
            require(length.shape(0) == n_clauses
                        && active.shape(0) == n_clauses && next.shape(0) == 2 * n_clauses
                        && head.shape(0) == 2 * (size_t)n_vars
                        && value.shape(0) == (size_t)n_vars
                        && top_level.shape(0) == (size_t)n_vars
                        && trail.shape(0) == (size_t)n_vars + 1
                        && step_clause.shape(0) == step_kind.shape(0)
                        && n_units_formula >= 0 && (size_t)n_units_formula <= n_clauses,
                    "the checker's arrays disagree in length");
            const int64_t *first = start.data(), *len = length.data(), *lit = lits.data();
            for (size_t c = 0; c < n_clauses; ++c) {
                require(first[c] >= 0 && len[c] >= 0 && (size_t)first[c] <= lits.shape(0)
                            && (size_t)len[c] <= lits.shape(0) - (size_t)first[c],
                        "a clause runs past the literals");
                for (int64_t q = first[c]; q < first[c] + len[c]; ++q) {
                    require(lit[q] >= -n_vars && lit[q] <= n_vars && lit[q] != 0,
                            "a literal is 0 or past the variables");
                }
            }
            const int64_t *kind = step_kind.data(), *clause = step_clause.data();
            size_t new_units = 0;  // each goes on the list of units
            for (size_t s = 0; s < step_kind.shape(0); ++s) {
                require(kind[s] >= 0 && kind[s] <= 2 && clause[s] >= -1
                            && clause[s] < (int64_t)n_clauses
                            && (kind[s] == 1 || clause[s] >= 0),
                        "a step is not a clause's");
                new_units += kind[s] == 0 && len[clause[s]] == 1;
            }
            require((size_t)n_units_formula + new_units <= units.shape(0),
                    "the list of units is too short for the proof's");
            const int64_t* unit = units.data();
            for (int64_t u = 0; u < n_units_formula; ++u) {
                require(unit[u] >= 0 && (size_t)unit[u] < n_clauses && len[unit[u]] == 1,
                        "a unit is not a clause of one literal");
            }
            const cpcore_drup_proof proof{n_vars, n_formula, (int64_t)n_clauses, lits.data(),
                                          start.data(), length.data(),
                                          (int64_t)step_kind.shape(0), step_kind.data(),
                                          step_clause.data(), units.data(), n_units_formula};
            const cpcore_drup_work work{active.data(), head.data(), next.data(),
                                        value.data(), trail.data(), top_level.data()};
            return cpcore_drup_check(&proof, &work);
        },
        nb::arg("n_vars"), nb::arg("n_formula"), nb::arg("lits").noconvert(),
        nb::arg("start"), nb::arg("length"), nb::arg("step_kind"), nb::arg("step_clause"),
        nb::arg("units").noconvert(), nb::arg("n_units_formula"),
        nb::arg("active").noconvert(), nb::arg("head").noconvert(),
        nb::arg("next").noconvert(), nb::arg("value").noconvert(),
        nb::arg("trail").noconvert(), nb::arg("top_level").noconvert(),
        nb::call_guard<nb::gil_scoped_release>(),
        "Replay a DRUP proof: the first step that fails, len(step_kind) when the proof does "
        "not reach the empty clause, -1 when it holds.");
}

}  // namespace cpbind
