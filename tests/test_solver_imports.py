"""pulp, highspy and CP-SAT load together in one process and each solves a tiny model.

ortools ships its own HiGHS; highspy >= 1.13 clashes with it, hence the pin highspy==1.12.0.
Both import orders are exercised in fresh subprocesses, so an earlier import elsewhere in the
test session cannot hide a clash.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
order = sys.argv[1]
mods = {}
for name in order.split(","):
    if name == "ortools":
        from ortools.sat.python import cp_model
        mods["ortools"] = cp_model
    elif name == "highspy":
        import highspy
        mods["highspy"] = highspy
    else:
        import pulp
        mods["pulp"] = pulp

cp_model = mods["ortools"]
m = cp_model.CpModel()
x, y = m.new_int_var(0, 10, "x"), m.new_int_var(0, 10, "y")
m.add(x + 2 * y >= 7)
m.minimize(3 * x + 4 * y)
s = cp_model.CpSolver()
s.parameters.num_workers = 1
s.parameters.max_deterministic_time = 5.0
assert s.solve(m) == cp_model.OPTIMAL and s.objective_value == 15, s.objective_value

highspy = mods["highspy"]
h = highspy.Highs()
h.setOptionValue("output_flag", False)
a, b = h.addVariable(0, 10), h.addVariable(0, 10)
h.changeColsIntegrality(2, [0, 1], [highspy.HighsVarType.kInteger] * 2)
h.addConstr(a + 2 * b >= 7)
h.minimize(3 * a + 4 * b)
assert abs(h.getInfo().objective_function_value - 15) < 1e-9

pulp = mods["pulp"]
p = pulp.LpProblem("tiny", pulp.LpMinimize)
u = p.add_variable("u", 0, 10, pulp.LpInteger)
v = p.add_variable("v", 0, 10, pulp.LpInteger)
p.addConstraint(u + 2 * v >= 7)
p.setObjective(3 * u + 4 * v)
cbc = pulp.COIN_CMD(path=pulp.apis.coin_api.pulp_cbc_path, msg=False)
for solver in (pulp.HiGHS(msg=False), cbc):
    p.solve(solver)
    assert p.sol_status == pulp.LpSolutionOptimal and abs(pulp.value(p.objective) - 15) < 1e-9
print("ok", highspy.__name__, pulp.__version__)
"""


@pytest.mark.parametrize("order", ["ortools,highspy,pulp", "highspy,pulp,ortools"])
def test_pulp_highspy_cpsat_in_one_process(order):
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, order], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("ok")


def test_in_this_process_too():
    import highspy
    import pulp
    from ortools.sat.python import cp_model

    assert highspy.Highs().version().startswith("1.12")
    assert pulp.HiGHS(msg=False).available()
    assert cp_model.CpModel().new_bool_var("b") is not None
