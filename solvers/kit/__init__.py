"""The kit of the exact back ends: one place for what every subject's MILP and CP-SAT methods
share, so that a back end is its model's data and its decoding, nothing more.

- `kit.linear.LinearModel`: a subject builds its model once in this neutral form and hands it to
  a MILP or to CP-SAT (in integer units for CP-SAT);
- `kit.mip`: HiGHS in process and the CBC binary on a `LinearModel`, and on a PuLP model (the
  PuLP `sol_status` rule), each read into one `MipOutcome`; CBC runs killed after the limit;
- `kit.cpsat`: the CP-SAT solver from the shared options and the `LinearModel` hand-over;
- `kit.enum`: the one work cap of the enumeration oracles.

What a back end returns is decided elsewhere, once: `result.solution_result` (the
result-from-solution rule) and `result.certify` (the status rule). The kit imports no subject.
"""
