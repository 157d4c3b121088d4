"""The one allocator table: fast path and `solve` agree, the solution is the Allocation, and a
new allocator defined in a plugin module works in `allocate` and `simulate` (subprocess)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import schedlab
from schedlab.solvers.solve import METHODS
from schedlab.solvers.synergy import (
    Allocation,
    RoundAllocator,
    check_allocation,
    fast_methods,
    generate_snapshot,
    solve,
)

SRC = Path(schedlab.__file__).resolve().parents[1]


def test_fast_methods_come_from_the_table():
    # read from the registry, never pinned: a new allocator (a plugin too) joins them
    fast = fast_methods()
    assert fast and fast == METHODS.names(scope="synergy", tag="fast")
    assert set(METHODS.names(scope="synergy", tag="paper")) <= set(fast)  # the figures' ones
    exact = METHODS.names(scope="synergy", tag="exact")
    assert exact and not set(exact) & set(fast)
    assert set(fast) <= set(METHODS.names(scope="synergy", tag="heuristic"))


def test_solve_and_round_allocator_run_the_same_allocator():
    snap = generate_snapshot(4, 40, 7, gpu_mix="multi")
    ra = RoundAllocator(snap.cluster, snap.profiles)
    for m in fast_methods():
        rr = ra.allocate(m, snap.model_indices(), snap.gpu_demands())
        res = solve(snap, m)
        assert math.isclose(rr.total_tput, res.value, rel_tol=1e-12), m
        assert res.solution == rr.to_allocation(snap.ids), m


def test_solution_is_the_allocation_and_its_json_is_unchanged():
    snap = generate_snapshot(2, 20, 1)
    res = solve(snap, "tune")
    alloc = res.solution
    assert isinstance(alloc, Allocation) and check_allocation(snap, alloc) == []
    d = res.to_dict()["solution"]
    assert list(d) == ["jobs", "not_run"]
    assert list(d["jobs"][0]) == ["id", "parts", "cpus_per_gpu", "mem_gb_per_gpu", "tput_per_gpu"]
    assert len(d["jobs"]) + len(d["not_run"]) == snap.n
    # policy order, and the JSON loads back into the same allocation
    pos = {j.id: i for i, j in enumerate(snap.jobs)}
    assert [pos[a["id"]] for a in d["jobs"]] == sorted(pos[a["id"]] for a in d["jobs"])
    assert Allocation.from_dict(d) == alloc
    job = snap.jobs[pos[alloc.jobs[0].job_id]]
    k = snap.profiles.index(job.model)
    a0 = alloc.jobs[0]
    assert a0.tput_per_gpu == snap.profiles.tput(k, a0.cpus_per_gpu, a0.mem_gb_per_gpu)


def test_cli_is_light_at_import():
    code = (
        "import sys, schedlab.experiments.synergy.cli as c\n"
        "heavy = [m for m in ('ortools', 'numba', 'pandas', 'pulp', 'highspy', 'scipy', 'numpy')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_snapshot_gpu_mix_choices_match_the_generator():
    from schedlab.experiments.synergy.cli_allocate import snapshot_cmd
    from schedlab.solvers.synergy.generate import GPU_MIXES

    (opt,) = [p for p in snapshot_cmd.params if p.name == "gpu_mix"]
    assert sorted(opt.type.choices) == sorted(GPU_MIXES)  # type: ignore[attr-defined]


PLUGIN = '''
"""A new Synergy allocator in one file: ideal demand, else the proportional share."""

from schedlab.solvers.solve import register_method


@register_method(
    "synergy", "ideal-or-prop", exact=False, tags=("fast",),
    summary="ideal demand, else proportional share",
)
def ideal_or_prop(p, options):
    def run(models, gpus, *, deadline=None):
        st = p.state(len(models))
        fallbacks = 0
        for j, (k, g) in enumerate(zip(models, gpus)):
            if g > st.total_free:
                continue
            if not p.place(st, j, g, p.ideal_c[k], p.ideal_m[k], p.ideal_t[k]):
                fallbacks += p.place(st, j, g, p.pc, p.pm, p.prop_t[k])
        return p.result(st, gpus, {"fallbacks": fallbacks})

    return run
'''


def _schedlab(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SCHEDLAB_PLUGINS": "my_synergy_plugin",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)]),
    }
    cmd = [sys.executable, "-m", "schedlab.experiments.cli", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_a_plugin_allocator_works_in_allocate_and_simulate(tmp_path):
    (tmp_path / "my_synergy_plugin.py").write_text(textwrap.dedent(PLUGIN))
    snap = generate_snapshot(2, 20, 4, gpu_mix="multi")
    snap.save(tmp_path / "snap.json")
    out = _schedlab(tmp_path, "synergy", "allocate", "snap.json", "--method", "ideal-or-prop")
    assert out.returncode == 0, out.stderr
    out = _schedlab(
        tmp_path, "synergy", "allocate", "snap.json", "--method", "ideal-or-prop", "--json"
    )
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["method"] == "ideal-or-prop" and d["status"] == "feasible"
    assert check_allocation(snap, Allocation.from_dict(d["allocation"])) == []
    assert d["jobs_run"] == len(snap.proportional_set())  # the fallback always fits
    assert d["stats"]["fallbacks"] >= 0 and d["value"] > 0
    sim = _schedlab(
        tmp_path,
        *("synergy", "simulate", "--workload", "dynamic-100job", "--jobs", "30"),
        *("--policy", "srtf", "--alloc", "ideal-or-prop", "--json"),
    )
    assert sim.returncode == 0, sim.stderr
    s = json.loads(sim.stdout)
    assert s["alloc"] == "ideal-or-prop" and s["jobs_completed"] == s["jobs_arrived"] == 30
    assert s["allocator_calls"] >= 1 and "fallbacks" in s["alloc_stats"]
    # a flag the plugin does not take is refused, naming it
    bad = _schedlab(
        tmp_path, "synergy", "allocate", "snap.json", "--method", "ideal-or-prop", "--solver", "cbc"
    )
    assert bad.returncode == 2 and "--solver" in bad.stderr
