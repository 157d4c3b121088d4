"""The esg policy splits a DAG's SLO online: each head plans its segment within the segment's
budget (not the critical path only), with the split chosen by `--split` and named in the JSON."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.esg.policies import SPLITS, EsgPolicy, make_policy
from schedlab.experiments.esg.simulator import SimConfig, simulate
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.esg.generate import generate
from schedlab.solvers.esg.problem import App

#: (latency_ms, cost) per configuration of a diamond a -> {b, c} -> d. The critical path (at
#: fastest) is a, b, d: planned alone, a takes its slow cheap configuration (20 + 10 + 1 = 31
#: fits) and leaves c 10 ms, its dear fast configuration. The optimum gives the segment {b, c}
#: 15 ms: a fast (10), c slow and cheap (15): 10 + 15 + 1 = 26 <= 31.
DIAMOND = {
    "a": [(10.0, 0.010), (20.0, 0.005)],
    "b": [(10.0, 0.010)],
    "c": [(5.0, 0.100), (15.0, 0.0075)],
    "d": [(1.0, 0.001)],
}


def diamond(slo: float = 31.0) -> App:
    """The DIAMOND app (batch 1: no batch-fill wait in the planning tables)."""
    fns = [
        {
            "id": f,
            "configs": [
                {"batch": 1, "vcpus": 1000.0 * c / lat, "gpu_share": 0.1, "latency_ms": lat}
                for lat, c in cs
            ],
            "output_mb": 0.0,
        }
        for f, cs in DIAMOND.items()
    ]
    edges = [["a", "b"], ["a", "c"], ["b", "d"], ["c", "d"]]
    data = {"slo_ms": slo, "prices": {"vcpu_s": 1.0, "gpu_s": 0.0}, "functions": fns}
    return App.from_dict({**data, "edges": edges})


def test_the_head_plans_its_segment_within_the_segment_budget():
    app = diamond()
    split = EsgPolicy("opt")
    st = split.prepare(app, 10.0)
    assert st.seg_path == [[0], [1], [2], [3]]  # segments [a], [b, c], [d]
    assert st.seg_after[0] == pytest.approx(15.0 + 1.0)  # a's deadline leaves {b, c} and d
    assert split.decide(st, 0, 31.0) == 0  # a fast: the segment {b, c} gets its 15 ms
    assert split.decide(st, 2, 31.0 - 10.0) == 1  # c then fits its cheap configuration
    # planning the critical path only (a, b, d) takes a's slow configuration
    cp = EsgPolicy("critical_path")
    st_cp = cp.prepare(app, 10.0)
    assert st_cp.seg_path is None
    assert cp.decide(st_cp, 0, 31.0) == 1


@pytest.mark.parametrize("rule", ["min_latency", "slack"])
def test_the_paper_rules_give_per_segment_budgets(rule):
    app = diamond()
    st = EsgPolicy(rule).prepare(app, 10.0)
    assert st.seg_path is not None and st.seg_after is not None
    # min_latency: budgets in proportion to the segments' fastest latencies 10, 10, 1 of 31
    if rule == "min_latency":
        assert st.seg_after[0] == pytest.approx(31.0 * 11.0 / 21.0)
    assert st.seg_after[3] == 0.0 and st.seg_after[1] == st.seg_after[2]


def test_online_the_split_lowers_cost_on_the_diamond():
    cfg = SimConfig(load=0.05, requests=300, seed=2, invokers=2)
    runs = {s: simulate([diamond()], make_policy("esg", s), cfg) for s in SPLITS}
    for s, m in runs.items():
        assert m["split"] == s
    # the same arrivals; with the split, c runs its cheap configuration
    assert runs["opt"]["cost"] < runs["critical_path"]["cost"] * 0.5
    assert runs["opt"]["slo_hit_rate"] >= 0.95


def test_a_chain_is_one_segment_so_every_split_plans_the_same():
    apps = [generate(4, 20, 5)]
    cfg = SimConfig(load=0.2, requests=300, seed=1)
    keys = ("slo_hit_rate", "cost", "p99_latency_ms", "cold_starts")
    runs = [simulate(apps, make_policy("esg", s), cfg) for s in SPLITS]
    assert all({k: r[k] for k in keys} == {k: runs[0][k] for k in keys} for r in runs)


def test_split_choices_are_checked():
    with pytest.raises(InvalidInput, match="split"):
        EsgPolicy("nope")
    with pytest.raises(InvalidInput, match="only the esg policy"):
        make_policy("greedy", "opt")
    assert make_policy("greedy").split == "critical_path"
    assert make_policy("esg").split == "opt"


def test_cli_split_flag_and_json(tmp_path):
    app = tmp_path / "dag.json"
    app.write_text(generate(6, 10, 3, shape="dag").to_json())
    base = ["esg", "simulate", "--apps", str(app), "--requests", "100", "--json"]
    for s in SPLITS:
        res = CliRunner().invoke(cli, [*base, "--split", s])
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["split"] == s
    res = CliRunner().invoke(cli, base)
    assert json.loads(res.stdout)["split"] == "opt"
    res = CliRunner().invoke(cli, [*base, "--split", "paper"])
    assert res.exit_code == 2
    res = CliRunner().invoke(cli, [*base, "--policy", "greedy", "--split", "opt"])
    assert res.exit_code == 2 and "only the esg policy" in res.output
