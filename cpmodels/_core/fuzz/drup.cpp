// Fuzz target: the DRUP checker (cpcore_drup_check) on any formula and proof the bindings
// accept: clauses as runs of literals (repeated, tautological or empty ones too), steps that
// add, delete or take again any clause, formula units. The verdict must be a step, the end
// or -1, and a proof that holds must hold again when replayed.
#include "bytes.hpp"
#include "cpcore/entry.h"

namespace cpfuzz {
namespace {

struct Proof {
    int64_t n_vars = 1, n_formula = 0, n_clauses = 0, n_steps = 0, n_units_formula = 0;
    std::vector<int64_t> lits, start, length, kind, clause, units;
};

Proof read_proof(Bytes& in) {
    Proof p;
    p.n_vars = in.within(1, 64);
    p.n_clauses = in.within(0, 256);
    p.n_formula = in.within(0, p.n_clauses);
    const uint64_t n_lits = in.count(1024);
    for (uint64_t q = 0; q < n_lits; ++q) {
        const int64_t v = in.within(1, p.n_vars);
        p.lits.push_back(in.count(1) ? -v : v);
    }
    // Each clause a run of the literals (the bindings let runs overlap).
    for (int64_t c = 0; c < p.n_clauses; ++c) {
        const int64_t first = in.within(0, (int64_t)n_lits);
        p.start.push_back(first);
        p.length.push_back(in.within(0, (int64_t)n_lits - first));
    }
    p.n_steps = in.within(0, 256);
    int64_t new_units = 0;
    for (int64_t s = 0; s < p.n_steps; ++s) {
        const int64_t kind = in.within(0, 2);
        const int64_t c =
            p.n_clauses == 0 ? -1 : in.within(kind == 1 ? -1 : 0, p.n_clauses - 1);
        if (c < 0 && kind != 1) continue;
        p.kind.push_back(kind);
        p.clause.push_back(c);
        new_units += kind == 0 && p.length[c] == 1;
    }
    p.n_steps = (int64_t)p.kind.size();
    for (int64_t c = 0; c < p.n_clauses; ++c) {
        if (p.length[c] == 1 && in.count(3) != 0) p.units.push_back(c);
    }
    p.n_units_formula = (int64_t)p.units.size();
    p.units.resize(p.units.size() + new_units + in.count(2), -1);
    return p;
}

// The adapter: the one call of the entry point, its scratch made as drup.py makes it.
int64_t drup_check(Proof p) {
    if (p.lits.empty()) p.lits.push_back(1);
    Buffer<uint8_t> active(p.n_clauses);
    Buffer<int64_t> head(2 * p.n_vars), next(2 * p.n_clauses), trail(p.n_vars + 1);
    Buffer<int8_t> value(p.n_vars), top_level(p.n_vars);
    const cpcore_drup_proof proof{p.n_vars, p.n_formula, p.n_clauses,
                                  p.lits.data(), p.start.data(), p.length.data(),
                                  p.n_steps, p.kind.data(), p.clause.data(),
                                  p.units.data(), p.n_units_formula};
    const cpcore_drup_work work{active.data(), head.data(), next.data(),
                                value.data(), trail.data(), top_level.data()};
    return cpcore_drup_check(&proof, &work);
}

}  // namespace
}  // namespace cpfuzz

FUZZ_TARGET(in) {
    const Proof p = read_proof(in);
    const int64_t verdict = drup_check(p);
    FUZZ_REQUIRE(verdict >= -1 && verdict <= p.n_steps);
    FUZZ_REQUIRE(drup_check(p) == verdict);
    return 0;
}
