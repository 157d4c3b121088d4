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
from tests.door.contract import check, run
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
        Instance.loads('{"jobs": [' + "1" * 5000 + "]}", source="x.json")


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


# ---- SLAQ and ESG (issue 26) ------------------------------------------------------------
SLAQ_SNAP = {
    "total_cores": 16,
    "jobs": [
        {"id": "a", "losses": [2.3, 1.7, 1.2, 1.0, 0.9], "core_s_per_iter": 4.0},
        {"id": "b", "losses": [5.0, 3.0, 2.2, 1.9], "core_s_per_iter": 2.5},
    ],
}


def _with_id(doc, jobs_key, text):
    doc = json.loads(json.dumps(doc))
    doc[jobs_key][0]["id"] = text
    return doc


@pytest.mark.parametrize("as_json", [False, True])
def test_lone_surrogates_are_refused_in_every_subject_and_output_mode(tmp_path, as_json):
    """`"\\ud800"` is valid JSON but no character: refused at the door naming the item, for
    text and JSON output alike (text output used to end in exit 1, UnicodeEncodeError)."""
    lone = "\ud800"
    app = json.loads(json.dumps(APP))
    app["name"] = lone
    cases = {
        "slaq.json": (_with_id(SLAQ_SNAP, "jobs", lone), ["slaq", "allocate"]),
        "esg.json": (app, ["esg", "plan"]),
        "inst.json": (_with_id(INSTANCE, "jobs", lone), ["sojourn", "solve"]),
        "snap.json": (_with_id(SNAPSHOT, "jobs", lone), ["synergy", "allocate"]),
    }
    extra = {
        "sojourn": ["--objective", "B", "--method", "smith"],
        "synergy": ["--method", "tune"],
    }
    for name, (doc, verb) in cases.items():
        f = write(tmp_path, name, json.dumps(doc))  # json.dumps writes "\ud800" as an escape
        args = [*verb, f, *extra.get(verb[0], []), *(["--json"] if as_json else [])]
        assert check("limits: lone surrogates", args, [f]) == 2
        msg = run(args).stderr
        assert "surrogate" in msg and ("jobs[0].id" in msg or "name" in msg), msg


def test_the_door_accepts_a_surrogate_pair_and_names_every_lone_one():
    from schedlab.solvers.validate import check_id, parse_json

    assert parse_json('{"id": "\\ud83d\\ude00"}') == {"id": "\U0001f600"}
    assert parse_json('{"id": "\\\\ud800"}') == {"id": "\\ud800"}  # an escaped backslash
    with pytest.raises(InvalidInput) as ei:
        parse_json('{"a": ["\\ud800", {"\\udfff": 1}]}', "x.json")
    assert len(ei.value.problems) == 2 and "a[0]" in str(ei.value)
    assert check_id("\udc80", "job 'x': field 'id'") is not None


def test_text_output_survives_an_undecodable_file_name(tmp_path):
    """A file name of undecodable bytes reaches Python as surrogates: the text output escapes
    them (`safe_text_output`) instead of failing half way through."""
    p = tmp_path / "loss\udcff.txt"  # b"loss\xff.txt" on disk
    p.write_text("2.3\n1.7\n1.2\n1.0\n0.9\n0.85\n0.82\n0.8\n")
    res = run(["slaq", "predict", str(p), "--ahead", "2"])
    assert res.exit_code == 0, res.output
    assert "\\udcff" in res.stdout


def test_esg_dp_buckets_range_and_memory_budget(tmp_path, monkeypatch):
    from schedlab.solvers.esg.astar import MAX_DP_BUCKETS, AStarOptions
    from schedlab.solvers.esg.generate import generate
    from schedlab.solvers.esg.problem import App

    f = write(tmp_path, "app.json", APP)
    for bad in ("-1", str(MAX_DP_BUCKETS + 1), "1000000000"):
        args = ["esg", "plan", f, "--method", "astar", "--dp-buckets", bad]
        assert check("limits: esg dp-buckets", args, ["--dp-buckets"]) == 2
    with pytest.raises(InvalidInput, match="dp_buckets"):  # an options object is checked too
        solve(App.from_dict(APP), "astar", options=AStarOptions(dp_buckets=-1))
    big = write(tmp_path, "big.json", generate(64, 100, 1).to_dict())
    monkeypatch.setenv("SCHEDLAB_MEMORY_BUDGET_GB", "0.01")
    args = ["esg", "plan", big, "--method", "astar", "--dp-buckets", str(MAX_DP_BUCKETS)]
    assert check("limits: esg dp-buckets", args, ["memory budget"]) == 2
    assert "--dp-buckets" in run(args).stderr


def test_esg_simulate_refuses_a_function_no_invoker_holds(tmp_path):
    from schedlab.experiments.esg.simulator import SimConfig, simulate
    from schedlab.solvers.esg.problem import App

    app = json.loads(json.dumps(APP))
    app["functions"][0]["configs"] = [{"batch": 1, "vcpus": 64, "gpu_share": 1, "latency_ms": 5}]
    f = write(tmp_path, "big.json", app)
    args = ["esg", "simulate", "--apps", f, "--requests", "200"]
    assert check("limits: esg unservable", args, [f]) == 2
    msg = run(args).stderr
    assert "function 'f0'" in msg and "vCPUs" in msg and "64" in msg, msg
    with pytest.raises(InvalidInput, match="GPU share"):  # the other resource, from Python
        simulate([App.from_dict(APP)], "esg", SimConfig(requests=20, gpus_per_invoker=0.2))
    app["functions"][0]["configs"].append({"batch": 1, "vcpus": 1, "gpu_share": 1, "latency_ms": 9})
    f = write(tmp_path, "mixed.json", app)
    args = ["esg", "simulate", "--apps", f, "--requests", "50", "--json"]
    assert check("limits: esg unservable", args, [f]) == 0
    assert json.loads(run(args).stdout)["configs_too_large"] == 1


def test_esg_simulate_tiny_loads_are_refused_up_front(tmp_path):
    """load 5e-324 used to give NaN times (exit 1); bursty at 1e-9 looped ~10^8 times."""
    import numpy as np

    from schedlab.experiments.esg.simulator import arrival_times

    f = write(tmp_path, "app.json", APP)
    for arrivals in ("poisson", "bursty", "azure"):
        for load in ("5e-324", "1e-9"):
            args = ["esg", "simulate", "--apps", f, "--load", load, "--arrivals", arrivals]
            assert check("limits: esg tiny load", args, ["--load"]) == 2

    class NoDraws:  # the refusal comes before any draw
        def __getattr__(self, name):
            raise AssertionError(f"drew {name} before the work check")

    with pytest.raises(InvalidInput, match="--max-events"):
        arrival_times("bursty", 1e-3, 2000, NoDraws(), max_steps=10**5)  # type: ignore[arg-type]
    t = arrival_times("bursty", 20.0, 500, np.random.default_rng(0), max_steps=10**6)
    assert len(t) == 500 and np.isfinite(t).all()


def test_esg_traces_with_equal_timestamps(tmp_path):
    import numpy as np

    from schedlab.experiments.esg.simulator import arrival_times

    app = write(tmp_path, "app.json", APP)
    head = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    for name, stamps in {
        "two": ["2023-11-16 18:15:46.6805900"] * 2,
        "all": ["2023-11-16 18:15:46"] * 5,
        "fractions": ["2023-11-16 18:15:46.6805901", "2023-11-16 18:15:46.6805904"],
    }.items():
        tr = write(tmp_path, f"{name}.csv", head + "".join(f"{s},1,1\n" for s in stamps))
        args = ["esg", "simulate", "--apps", app, "--arrivals", "azure", "--trace", tr]
        assert check("limits: esg equal timestamps", args, [tr]) == 2, name
        assert "one instant" in run(args).stderr
    stamps = ["2023-11-16 18:15:46"] * 3 + ["2023-11-16 18:15:51"]
    tr = write(tmp_path, "window.csv", head + "".join(f"{s},1,1\n" for s in stamps))

    class Start0:  # the seeded start picks the window of zero gaps
        def integers(self, n):
            return 0

    t = arrival_times("azure", 10.0, 2, Start0(), tr)  # type: ignore[arg-type]
    assert list(t) == [0.0, 0.0]  # two simultaneous arrivals, not NaN
    t = arrival_times("azure", 10.0, 6, Start0(), tr)  # type: ignore[arg-type]
    assert np.isfinite(t).all() and np.mean(np.diff(np.r_[0.0, t])) == pytest.approx(100.0)


def test_esg_simulate_work_cap_counts_the_decisions(tmp_path, monkeypatch):
    """1,000 stages x 20 requests: 80,000 events, but each esg decision runs A* over the
    remaining stages; the work cap now counts that and refuses before the first event."""
    from schedlab.experiments.esg.simulator import SimConfig, Simulation

    fns = [
        {"id": f"f{i}", "configs": [{"batch": 1, "vcpus": 1, "gpu_share": 0.25, "latency_ms": 5}]}
        for i in range(1000)
    ]
    f = write(tmp_path, "long.json", {"name": "long", "slo_ms": 1e4, "functions": fns})

    def no_run(self):
        raise AssertionError("the run started")

    monkeypatch.setattr(Simulation, "run", no_run)
    args = ["esg", "simulate", "--apps", f, "--requests", "20"]
    assert check("limits: esg work cap", args, ["--max-events"]) == 2
    assert "the input implies" in run(args).stderr
    monkeypatch.undo()
    from schedlab.solvers.esg.problem import App

    sim = Simulation([App.from_dict(APP)], "esg", SimConfig(requests=50, max_events=10**6))
    monkeypatch.setattr(Simulation, "work_estimate", lambda self: 0.0)
    sim.cap.cap = 100  # an estimate that is too low is still caught while running
    with pytest.raises(InvalidInput, match="stopped after"):
        sim.run()


def test_slaq_simulate_with_more_jobs_than_cores_finishes():
    """--cores 1 (fair share 0 for two jobs or more) used to stall: exit 2 naming --cores.
    FIFO admission (docs/slaq.md, "Correctness") runs at most C jobs at once: every job
    finishes, well inside the work cap."""
    from schedlab.experiments.slaq.simulator import SimConfig, simulate, summarize

    for cfg, policy in (
        (SimConfig(cores=1), "fair"),
        (SimConfig(jobs=60, cores=16, arrival_mean_s=0.5), "slaq"),
    ):
        s = summarize(simulate(cfg, policy))
        assert s["finished_jobs"] == cfg.jobs and s["max_queued_jobs"] > 0
        assert s["epochs"] < cfg.max_epochs / 10
    args = ["slaq", "simulate", "--policy", "fair", "--cores", "1", "--json"]
    assert check("limits: slaq more jobs than cores", args, []) == 0


#: An 8-job, 2-server snapshot of res18/gnmt/alexnet with 1- and 2-GPU jobs, on which the
#: enumeration ran past 30 s (issue 37) before the oracles shared one work cap.
EIGHT_JOBS = {
    "cluster": {"servers": 2},
    "jobs": [
        {"id": f"j{i}", "model": ("res18", "gnmt", "alexnet")[i % 3], "gpus": 1 + i % 2}
        for i in range(8)
    ],
}


def test_synergy_enum_without_a_limit_stops_at_the_work_cap_with_a_sound_bound():
    """With no time limit the oracle stops at the shared work cap (a few seconds): its best
    allocation, status feasible, and a bound no less than the MILP's proven optimum."""
    from schedlab.solvers.kit.enum import MAX_WORK
    from schedlab.solvers.synergy.problem import Snapshot

    snap = Snapshot.from_dict(EIGHT_JOBS)
    res = solve(snap, "enum")
    opt = solve(snap, "milp")
    assert opt.status.value == "optimal" and opt.value is not None
    assert res.stats["stopped"] and res.stats["steps"] == MAX_WORK + 1
    assert res.status.value == "feasible" and res.value is not None and res.bound is not None
    assert res.value <= opt.value * (1 + 1e-12) and res.bound >= opt.value * (1 - 1e-12)
    small = solve(snap, "enum", options={"max_work": 1000})
    assert small.stats["steps"] == 1001 and small.bound is not None
    assert small.bound >= opt.value * (1 - 1e-12)


def test_philly_trace_without_cluster_column_says_so(tmp_path):
    f = write(
        tmp_path,
        "p.csv",
        "timestamp,duration,num_gpus\n2017-10-09 07:01:55,3600,1\n2017-10-09 07:05:00,7200,2\n",
    )
    args = ["sojourn", "simulate", "--workload", "philly", "--trace", f, "--servers", "8"]
    args += ["--policy", "fcfs", "--replications", "1", "--json"]
    assert check("limits: philly cluster column", args, [f]) == 0
    assert any("'cluster' column" in w for w in json.loads(run(args).stdout)["warnings"])


def test_nothing_is_written_where_a_bad_input_was_refused(tmp_path):
    out = tmp_path / "app.json"
    args = ["esg", "generate", "--configs", "1500", "-o", str(out)]
    assert check("limits: nothing written", args, ["--configs"]) == 2
    assert not out.exists()
    args = ["esg", "generate", "--configs", "960", "--stages", "2", "-o", str(out)]
    assert check("limits: nothing written", args, []) == 0 and out.is_file()
