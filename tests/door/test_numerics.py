"""Valid but extreme numbers (sizes from 5e-324 to 1e12, throughputs up to 1e12, capacities up
to 1e12; ESG latencies, shares, vCPUs and prices, SLAQ losses and costs at the ends of their
ranges): every method returns a finite value, and exact methods are never beaten."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.solvers.esg.problem import App
from schedlab.solvers.slaq.problem import Snapshot as SlaqSnapshot
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


# ---- ESG: latencies, shares, vCPUs and prices from 5e-324 to 1e12 ----------------------
tiny_to_huge = st.sampled_from([5e-324, 1e-300, 1e-9, 1.0, 37.5, 1e6, MAX_MAGNITUDE])


@st.composite
def esg_apps(draw: st.DrawFn) -> App:
    stages = []
    for _ in range(draw(st.integers(1, 3))):
        configs = []
        for _ in range(draw(st.integers(1, 3))):
            configs.append(
                {
                    "batch": draw(st.sampled_from([1, 2, 1_000_000])),
                    "vcpus": draw(st.sampled_from([0.0, 1e-300, 1.0, 32.0, MAX_MAGNITUDE])),
                    "gpu_share": draw(st.sampled_from([5e-324, 1e-9, 0.5, 1.0])),
                    "latency_ms": draw(tiny_to_huge),
                }
            )
        stages.append({"id": f"f{len(stages)}", "configs": configs})
    lat_sum = sum(max(c["latency_ms"] for c in f["configs"]) for f in stages)
    slo = min(MAX_MAGNITUDE, lat_sum * draw(st.sampled_from([0.3, 0.7, 1.0, 2.0])))
    prices = {
        "vcpu_s": draw(st.sampled_from([0.0, 1e-300, 1e-5, MAX_MAGNITUDE])),
        "gpu_s": draw(st.sampled_from([0.0, 1e-300, 1e-4, MAX_MAGNITUDE])),
    }
    data = {"name": "x", "slo_ms": max(slo, 5e-324), "prices": prices, "functions": stages}
    return App.from_dict(data)


ESG_METHODS = ("greedy", "astar", "brute", "milp", "cpsat")


@settings(max_examples=30)
@given(app=esg_apps())
def test_esg_methods_stay_finite_and_exact_ones_agree(app):
    """Every plan method on extreme numbers: finite costs, a plan that fits the budget, and no
    method (heuristic or exact) beats a proven optimum; a proven infeasible app has no plan."""
    from schedlab.solvers.esg.problem import LAT_TOL

    CASES["numerics: esg application"] += 1
    out = {m: solve(app, m, time_limit=5) for m in ESG_METHODS}
    for m, res in out.items():
        assert res.status.value != "error", (m, res.stats)
        if res.solution is not None:
            assert res.value is not None and math.isfinite(res.value), (m, res)
            assert res.solution.latency_ms <= app.budget + LAT_TOL * max(1.0, app.budget), m
    optimal = [r.value for r in out.values() if r.status.value == "optimal"]
    for m, res in out.items():
        for v in optimal:
            if res.value is not None:
                assert res.value >= v - 1e-9 * max(1.0, abs(v)), (
                    m,
                    {k: r.value for k, r in out.items()},
                )
    if any(r.status.value == "infeasible" for m, r in out.items() if m != "greedy"):
        assert all(r.solution is None for r in out.values()), {k: r.status for k, r in out.items()}


# ---- SLAQ: losses, W_j and cores at the ends of their ranges ------------------------------
loss = st.sampled_from([5e-324, 1e-300, 1e-9, 0.5, 1.0, 2.3, 1e6, MAX_MAGNITUDE])


@st.composite
def slaq_snapshots(draw: st.DrawFn) -> SlaqSnapshot:
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        losses = draw(st.lists(loss, min_size=1, max_size=6))
        if draw(st.booleans()):
            losses = sorted(losses, reverse=True)  # a decreasing curve, the usual case
        jobs.append(
            {
                "id": f"j{i}",
                "losses": losses,
                "core_s_per_iter": draw(st.sampled_from([1e-300, 1e-6, 4.0, MAX_MAGNITUDE])),
            }
        )
    data = {
        "total_cores": draw(st.integers(len(jobs), 12)),
        "epoch_s": draw(st.sampled_from([1e-6, 3.0, 86_400.0])),
        "min_cores": draw(st.integers(0, 2)),
        "objective": draw(st.sampled_from(["sum", "maxmin"])),
        "jobs": jobs,
    }
    return SlaqSnapshot.from_dict(data)


SLAQ_METHODS = ("greedy", "maxmin", "fair", "dp", "enum", "milp", "cpsat")


@settings(max_examples=30)
@given(snap=slaq_snapshots())
def test_slaq_methods_stay_finite_and_exact_ones_agree(snap):
    """Every allocation method on extreme losses and costs: finite values, every core given,
    and no method beats a proven optimum (relative 1e-6)."""
    CASES["numerics: slaq snapshot"] += 1
    out = {m: solve(snap, m, time_limit=5) for m in SLAQ_METHODS}
    for m, res in out.items():
        assert res.status.value in ("optimal", "feasible"), (m, res.status, res.stats)
        assert res.value is not None and math.isfinite(res.value), (m, res)
        assert sum(res.solution.cores) <= snap.total_cores, (m, res.solution)
    optimal = [r.value for r in out.values() if r.status.value == "optimal"]
    for m, res in out.items():
        for v in optimal:
            assert res.value <= v + 1e-6 * max(1.0, abs(v)), (
                m,
                {k: r.value for k, r in out.items()},
            )
