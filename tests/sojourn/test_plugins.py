"""Adding a sojourn heuristic or an online policy is adding one module: found by the CLI.

Each plugin is written as text into a temporary folder and named in SCHEDLAB_PLUGINS; the CLI
runs in a fresh process, so nothing here registers into this test session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective, evaluate

ROOT = Path(__file__).resolve().parents[2]

HEURISTIC = '''
"""A new sojourn heuristic: file order rotated by `shift` positions."""

from dataclasses import dataclass, field

from schedlab.solvers.result import SolveResult, Status
from schedlab.solvers.solve import register_method
from schedlab.solvers.sojourn.objectives import evaluate


@dataclass(frozen=True)
class RotateOptions:
    shift: int = field(default=0, metadata={"help": "positions to rotate the file order by"})


@register_method("sojourn", "rotate", exact=False, options=RotateOptions, tags=("baseline",))
def solve_rotate(problem, *, deadline=None, seed=None, options: RotateOptions):
    """File order rotated left by `options.shift` positions."""
    inst = problem.instance
    s = options.shift % inst.n
    order = list(range(s, inst.n)) + list(range(s))
    value = evaluate(inst, order, problem.objective)
    return SolveResult(Status.FEASIBLE, value, None, inst.ids_of(order), "rotate", 0.0)
'''

POLICY = '''
"""A new online sojourn policy: last come, first served (non-preemptive)."""

import numpy as np

from schedlab.experiments.registry import register_policy
from schedlab.experiments.sojourn.policies.base import Policy


@register_policy(
    "sojourn", "lifo", summary="last come, first served (non-preemptive)", preemptive=False
)
class LIFO(Policy):
    def keys(self, workload, levels):
        return np.repeat(-workload.arrival_s[:, None], workload.dists.width, axis=1)
'''


def schedlab(tmp_path: Path, plugin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SCHEDLAB_PLUGINS": plugin,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src"), str(ROOT)]),
    }
    return subprocess.run(
        [sys.executable, "-m", "schedlab.experiments.cli", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_new_heuristic_in_one_module_is_solvable_from_the_cli(tmp_path):
    (tmp_path / "my_heuristic.py").write_text(textwrap.dedent(HEURISTIC))
    inst = generate(6, 3)
    inst.save(tmp_path / "inst.json")
    args = ["sojourn", "solve", "inst.json", "--objective", "B", "--method", "rotate"]
    r = schedlab(tmp_path, "my_heuristic", *args, "--shift", "2", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["method"] == "rotate" and out["status"] == "feasible"
    assert out["solution"] == inst.ids[2:] + inst.ids[:2]
    value = evaluate(inst, inst.order_from_ids(out["solution"]), Objective("B"))
    assert out["value"] == value
    # its option is a flag of `solve`, refused for a method that does not take it
    r = schedlab(tmp_path, "my_heuristic", *args[:-1], "smith", "--shift", "2")
    assert r.returncode == 2 and "--shift: not an option of sojourn/smith" in r.stderr


def test_a_new_online_policy_in_one_module_is_simulated_from_the_cli(tmp_path):
    (tmp_path / "my_policy.py").write_text(textwrap.dedent(POLICY))
    args = ["sojourn", "simulate", "--workload", "synthetic", "--servers", "2"]
    args += ["--jobs", "200", "--replications", "2", "--seed", "3", "--json"]
    r = schedlab(tmp_path, "my_policy", *args, "--policy", "lifo")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["policy"] == "lifo" and out["jobs"] == 200 and out["preemptions"] == 0
    fcfs = json.loads(schedlab(tmp_path, "my_policy", *args, "--policy", "fcfs").stdout)
    assert out["mean_sojourn_all"] != fcfs["mean_sojourn_all"]  # it really ordered the jobs


def test_the_sojourn_cli_modules_are_light_at_import():
    code = (
        "import sys, schedlab.experiments.sojourn.cli, schedlab.experiments.sojourn.cli_simulate;"
        "heavy = [m for m in ('ortools', 'numba', 'pandas', 'pulp', 'scipy') if m in sys.modules];"
        "print(heavy)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
