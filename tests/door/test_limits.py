"""Limits that hold: time limits through model building, the memory budget, simulator work
caps, overflow-safe numbers, seeds, JSON guards, ids, and the same rules in the Python API."""

from __future__ import annotations

import json

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import Instance, SojournProblem
from schedlab.solvers.solve import solve
from schedlab.solvers.synergy.problem import Snapshot
from schedlab.solvers.synergy.profiles import default_profiles
from schedlab.solvers.validate import MAX_SEED, parse_json
from tests.door.contract import check
from tests.door.test_files import APP, INSTANCE, SNAPSHOT


def write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(p)


# ---- time limits ------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["milp", "cpsat"])
def test_sojourn_time_limit_covers_data_preparation(method):
    """A limit that passes while the pairwise tables are built: an order, honestly unproven."""
    inst = generate(300, 1)
    res = solve(SojournProblem(inst, Objective.parse("B")), method, time_limit=1e-6)
    assert res.status.value in ("feasible", "timeout")
    assert res.stats.get("stopped_while_preparing") or res.stats.get("stopped_while_building")
    if res.status.value == "feasible":
        assert res.value is not None and res.value > 0 and sorted(res.solution) == sorted(inst.ids)


@pytest.mark.parametrize("method", ["milp", "cpsat"])
def test_synergy_time_limit_covers_model_building(method):
    snap = Snapshot.from_dict({**SNAPSHOT, "cluster": {"servers": 20_000}})
    res = solve(snap, method, time_limit=1e-6)
    assert res.status.value == "timeout" and res.value is None
    assert res.stats.get("stopped_while_building")


@pytest.mark.parametrize("method", ["milp", "cpsat"])
def test_esg_time_limit_covers_model_building(method):
    from schedlab.solvers.esg.problem import App

    res = solve(App.from_dict(APP), method, time_limit=1e-6)
    assert res.status.value in ("timeout", "feasible", "optimal")


def test_enum_refuses_spaces_too_large_to_list(tmp_path):
    snap = {
        "cluster": {
            "servers": 4,
            "gpus_per_server": 1024,
            "cpus_per_server": 1e5,
            "mem_gb_per_server": 1e6,
        },
        "jobs": [{"id": "a", "model": "res18", "gpus": 800}],
    }
    f = write(tmp_path, "wide.json", snap)
    assert (
        check("limits: enum space", ["synergy", "allocate", f, "--method", "enum"], ["enum:"]) == 2
    )


# ---- memory budget ----------------------------------------------------------------------
def test_memory_budget_refuses_before_allocating(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEDLAB_MEMORY_BUDGET_GB", "0.0001")  # about 100 KB
    inst = write(tmp_path, "inst.json", generate(200, 1).to_dict())
    for method in ("milp", "cpsat"):
        args = ["sojourn", "solve", inst, "--objective", "B", "--method", method]
        assert check("limits: memory budget", args, ["memory budget"]) == 2
    args = [
        "sojourn",
        "evaluate",
        inst,
        "--order",
        ",".join(f"j{i}" for i in range(200)),
        "--objective",
        "A",
        "--how",
        "montecarlo",
        "--samples",
        "100000",
    ]
    assert check("limits: memory budget", args, ["memory budget"]) == 2
    snap = write(tmp_path, "snap.json", {**SNAPSHOT, "cluster": {"servers": 1000}})
    args = ["synergy", "allocate", snap, "--method", "milp"]
    assert check("limits: memory budget", args, ["memory budget"]) == 2


# ---- work caps --------------------------------------------------------------------------
HEAD = "job_id,model_name,arrival_s,num_iterations,gpu_demand\n"


@pytest.mark.parametrize(
    ("name", "trace", "extra"),
    [
        ("1e12 iterations", HEAD + "0,res18,0,1e12,1\n", []),
        ("year 9999", HEAD + "0,res18,253402300799,100,1\n", []),
        ("round 1e-9 s", HEAD + "0,res18,0,100,1\n", ["--round-s", "1e-9"]),
    ],
)
def test_synergy_simulate_work_caps(name, trace, extra, tmp_path):
    f = write(tmp_path, "t.csv", trace)
    args = ["synergy", "simulate", "--trace", f, "--policy", "fifo", "--alloc", "tune", *extra]
    assert check("limits: work cap", args, ["work cap", "cap of"]) == 2, name


def test_simulator_flags_refuse_absurd_rates():
    for args in (
        ["synergy", "simulate", "--policy", "fifo", "--alloc", "tune", "--load", "1e-9"],
        ["synergy", "simulate", "--policy", "fifo", "--alloc", "tune", "--load", "inf"],
        [
            "sojourn",
            "simulate",
            "--workload",
            "synthetic",
            "--servers",
            "2",
            "--policy",
            "fcfs",
            "--load",
            "inf",
        ],
        [
            "sojourn",
            "solve",
            "x.json",
            "--objective",
            "B",
            "--method",
            "cpsat",
            "--num-workers",
            "-1",
        ],
        ["synergy", "snapshot", "--jobs", "3", "--seed", "1", "--task-mix", "nan,1,1"],
    ):
        assert check("limits: absurd flags", args, ["--load", "--num-workers", "--task-mix"]) == 2


def test_sojourn_and_esg_simulate_event_caps(tmp_path):
    args = [
        "sojourn",
        "simulate",
        "--workload",
        "synthetic",
        "--servers",
        "2",
        "--policy",
        "fcfs",
        "--jobs",
        "1000",
        "--max-events",
        "100",
    ]
    assert check("limits: work cap", args, ["--max-events"]) == 2
    app = write(tmp_path, "app.json", APP)
    args = ["esg", "simulate", "--apps", app, "--requests", "1000", "--max-events", "100"]
    assert check("limits: work cap", args, ["--max-events"]) == 2


# ---- overflow-safe numbers --------------------------------------------------------------
def test_sizes_and_throughputs_near_float_max_are_refused_with_the_reason(tmp_path):
    inst = json.loads(json.dumps(INSTANCE))
    inst["jobs"][0]["sizes"] = [1e300, 1e308]
    f = write(tmp_path, "inst.json", inst)
    args = ["sojourn", "solve", f, "--objective", "B", "--method", "batchlocal", "--json"]
    assert check("limits: overflow", args, ["'sizes'"]) == 2
    prof = default_profiles().to_dict()
    prof["models"]["res18"]["tput"] = [[1e308] * len(r) for r in prof["models"]["res18"]["tput"]]
    f = write(tmp_path, "snap.json", {**SNAPSHOT, "profiles": prof})
    assert (
        check("limits: overflow", ["synergy", "allocate", f, "--method", "milp"], ["'tput'"]) == 2
    )


def test_zero_throughput_is_value_zero_for_every_method(tmp_path):
    prof = default_profiles().to_dict()
    for m in prof["models"].values():
        m["tput"] = [[0.0] * len(r) for r in m["tput"]]
    snap = Snapshot.from_dict({**SNAPSHOT, "profiles": prof})
    for method in ("proportional", "tune", "opt", "greedy", "milp", "cpsat", "enum"):
        res = solve(snap, method)
        assert res.status.value in ("optimal", "feasible"), method
        assert res.value == 0.0, method


# ---- seeds, JSON, ids, the Python API ---------------------------------------------------
def test_seeds(tmp_path):
    inst = write(tmp_path, "inst.json", INSTANCE)
    snap = write(tmp_path, "snap.json", SNAPSHOT)
    app = write(tmp_path, "app.json", APP)
    for cmd in (
        ["sojourn", "solve", inst, "--objective", "B", "--method", "cpsat"],
        ["synergy", "allocate", snap, "--method", "cpsat"],
        ["esg", "plan", app, "--method", "cpsat"],
    ):
        assert check("limits: seeds", [*cmd, "--seed", str(MAX_SEED), "--json"], []) == 0
        assert check("limits: seeds", [*cmd, "--seed", "-1"], ["--seed"]) == 2
    with pytest.raises(InvalidInput, match="seed"):
        solve(Snapshot.from_dict(SNAPSHOT), "cpsat", seed=-1)
    with pytest.raises(InvalidInput, match="seed"):
        solve(Snapshot.from_dict(SNAPSHOT), "cpsat", seed=2**63)


def test_json_guards_in_the_api():
    for text in ("9" * 5000, "[" * 10_000 + "]" * 10_000, '{"a": NaN}', "1e999"):
        with pytest.raises(InvalidInput):
            parse_json(text, "x.json")
    with pytest.raises(InvalidInput, match="x.json"):
        Instance.from_json('{"jobs": [' + "1" * 5000 + "]}", source="x.json")


@pytest.mark.parametrize("bad", ["a,b", " a", "a ", "a\tb"])
def test_ids_that_a_comma_list_cannot_name_are_refused(bad):
    inst = json.loads(json.dumps(INSTANCE))
    inst["jobs"][0]["id"] = bad
    with pytest.raises(InvalidInput, match="comma"):
        Instance.from_dict(inst)
    snap = json.loads(json.dumps(SNAPSHOT))
    snap["jobs"][0]["id"] = bad
    with pytest.raises(InvalidInput, match="comma"):
        Snapshot.from_dict(snap)
    from schedlab.solvers.esg.problem import App

    app = json.loads(json.dumps(APP))
    app["functions"][0]["id"] = bad
    with pytest.raises(InvalidInput, match="comma"):
        App.from_dict(app)


def test_python_constructors_apply_the_same_rules():
    from dataclasses import replace

    from schedlab.solvers.esg.problem import App
    from schedlab.solvers.sojourn.problem import Job
    from schedlab.solvers.synergy.problem import Cluster

    with pytest.raises(InvalidInput, match="sizes"):
        Instance((Job("a", (1e308,), (1.0,)),))
    with pytest.raises(InvalidInput, match="comma"):
        Instance((Job("a,b", (1.0,), (1.0,)),))
    snap = Snapshot.from_dict(SNAPSHOT)
    with pytest.raises(InvalidInput, match="servers"):
        replace(snap, cluster=Cluster(servers=10**9))
    app = App.from_dict(APP)
    with pytest.raises(InvalidInput, match="slo_ms"):
        replace(app, slo_ms=float("inf"))


def test_work_cap_helpers_name_the_flag():
    from schedlab.solvers.validate import WorkCap, check_work

    cap = WorkCap(3, "simulate", "--max-steps")
    cap.step(3)
    with pytest.raises(InvalidInput, match="--max-steps"):
        cap.step()
    with pytest.raises(InvalidInput, match="unbounded"):
        check_work(float("inf"), 10, "simulate", "--max-steps")
