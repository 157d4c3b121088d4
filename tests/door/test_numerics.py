"""Valid but extreme numbers (sizes from 5e-324 to 1e12, throughputs up to 1e12, capacities up
to 1e12): every method returns a finite value, and exact methods are never beaten."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.profiles import default_profiles
from schedlab.solvers.validate import MAX_MAGNITUDE
from tests.door.conftest import CASES

size = st.floats(min_value=5e-324, max_value=MAX_MAGNITUDE, allow_subnormal=True)


@st.composite
def instances(draw: st.DrawFn) -> Instance:
    jobs = []
    for i in range(draw(st.integers(1, 5))):
        sizes = sorted(set(draw(st.lists(size, min_size=1, max_size=3))))
        weights = [draw(st.integers(0, 5)) for _ in sizes]
        weights[-1] += 1
        probs = [w / sum(weights) for w in weights]
        probs[-1] = 1.0 - sum(probs[:-1])
        jobs.append({"id": f"j{i}", "sizes": sizes, "probs": probs})
    return Instance.from_dict({"jobs": jobs})


@settings(max_examples=30)
@given(inst=instances(), kind=st.sampled_from(["A", "B"]))
def test_sojourn_methods_stay_finite_on_extreme_sizes(inst, kind):
    CASES["numerics: sojourn instance"] += 1
    problem = SojournProblem(inst, Objective.parse(kind))
    values = {}
    for method in ("smith", "batchlocal", "dp", "milp", "cpsat"):
        res = solve(problem, method, time_limit=5)
        assert res.value is not None and math.isfinite(res.value), (method, res)
        values[method] = (res.status.value, res.value)
    best = min(v for _s, v in values.values())
    for method, (status, v) in values.items():
        if status == "optimal":  # a proven optimum is never beaten (relative 1e-6)
            assert v <= best + 1e-6 * max(1.0, abs(best)), (method, values)


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    prof = default_profiles().to_dict()
    names = ["res18", "gnmt", "lstm"]
    prof["models"] = {k: prof["models"][k] for k in names}
    scale = draw(st.sampled_from([0.0, 1e-300, 1.0, 1e6, MAX_MAGNITUDE / 10]))
    for m in prof["models"].values():
        m["tput"] = [[v * scale for v in r] for r in m["tput"]]
    gps = draw(st.sampled_from([1, 2, 8]))
    cluster = {
        "servers": draw(st.integers(1, 3)),
        "gpus_per_server": gps,
        "cpus_per_server": draw(st.sampled_from([24.0, 1e6, MAX_MAGNITUDE])) * gps / 8,
        "mem_gb_per_server": draw(st.sampled_from([500.0, MAX_MAGNITUDE])) * gps / 8,
    }
    jobs = [
        {
            "id": f"j{i}",
            "model": draw(st.sampled_from(names)),
            "gpus": draw(st.sampled_from([1, gps])),
        }
        for i in range(draw(st.integers(0, 4)))
    ]
    return Snapshot.from_dict({"cluster": cluster, "jobs": jobs, "profiles": prof})


@settings(max_examples=20)
@given(snap=snapshots())
def test_synergy_methods_agree_on_extreme_numbers(snap):
    CASES["numerics: synergy snapshot"] += 1
    out = {m: solve(snap, m, time_limit=5) for m in ("tune", "opt", "milp", "cpsat", "enum")}
    for m, res in out.items():
        assert res.status.value in ("optimal", "feasible"), (m, res.status, res.stats)
        assert res.value is not None and math.isfinite(res.value), (m, res)
    exact = [r.value for r in out.values() if r.status.value == "optimal"]
    for m, res in out.items():
        for v in exact:
            assert res.value <= v + 1e-6 * max(1.0, abs(v)), (
                m,
                {k: r.value for k, r in out.items()},
            )
