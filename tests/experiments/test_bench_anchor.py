"""bench_anchor: the side by side with an external solver, tried with stand-in anchors (small
scripts) on generated graphs: recounted values against a subset DP, a wrong anchor value
flagged, an interrupted sweep resumed without rerunning, a child's own peak memory, a hung
child killed, and bad input refused by name; a flag given to a benchmark that does not take it
exits 2; the subset DP oracle (tests/experiments/lop_oracle.py) against enumeration."""

from __future__ import annotations

import itertools
import json
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from schedlab.experiments.bench import bench_anchor as bench
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.core import lop_cost
from schedlab.solvers.lop.crossings import SparseCrossings, block_matrix
from schedlab.solvers.lop.graph import random_ocr_graph, write_ocr_text
from schedlab.solvers.lop.graph_route import solve_graph
from schedlab.solvers.validate import Deadline
from tests.experiments.lop_oracle import subset_dp


def _graph(tmp_path: Path, seed: int = 4):
    """A 16 x 16 graph whose block runs LP rounds, on disk."""
    g = random_ocr_graph(16, 16, seed, mean_degree=3.0, span=10, isolated_share=0.0)
    d = tmp_path / "graphs"
    d.mkdir(exist_ok=True)
    (d / "7.gr").write_text(write_ocr_text(g))
    return g, d


def _anchor(tmp_path: Path, ids: list[int] | None, *, rc: int = 0, calls: Path | None = None):
    """A stand-in anchor: reads the graph on stdin, prints `ids` one per line (none if None),
    appends a line to `calls` if given, exits with `rc`."""
    p = tmp_path / "anchor.py"
    lines = [f"#!{sys.executable} -S", "import sys", "sys.stdin.read()"]
    if calls is not None:
        lines.append(f"open({str(calls)!r}, 'a').write('x\\n')")
    if ids is not None:
        lines.append(f"print('\\n'.join(map(str, {ids!r})))")
    lines.append(f"sys.exit({rc})")
    p.write_text("\n".join(lines) + "\n")
    p.chmod(0o755)
    return str(p)


def _run(d: Path, anchor: str | None, out: Path | None = None, **kw) -> None:
    bench.run(lop_dir=str(d), anchor=anchor, time_limit=30.0,
              out=str(out) if out else None, **kw)  # fmt: skip


def test_an_optimal_anchor_agrees_and_a_wrong_one_is_flagged(tmp_path, capsys):
    g, d = _graph(tmp_path)
    sc = SparseCrossings.of(g)
    want = subset_dp(block_matrix(sc, sc.active)[0])
    best = g.ids_of(solve_graph(g, deadline=Deadline.after(30.0)).solution)
    log = tmp_path / "runs.jsonl"
    _run(d, _anchor(tmp_path, best), log)
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    assert {r["solver"]: r["value"] for r in recs} == {"anchor": want, "lpcut": want}
    assert {r["solver"]: r["status"] for r in recs} == {"anchor": "proven", "lpcut": "optimal"}
    printed = capsys.readouterr().out
    assert "agree" in printed and "DIFFER" not in printed and "anchor proved 1 of 1" in printed
    md = (tmp_path / "runs.md").read_text().splitlines()
    assert md[0].startswith("| instance |") and md[2].startswith(f"| #7 | 16 | {int(want)} |")

    identity = [g.n0 + 1 + v for v in range(g.n1)]
    assert g.crossings(list(range(g.n1))) > want  # so the stand-in below is wrong
    _run(d, _anchor(tmp_path, identity), tmp_path / "wrong.jsonl")
    printed = capsys.readouterr().out
    assert "values DIFFER on #7" in printed


def test_a_rerun_resumes_without_rerunning(tmp_path, capsys):
    _, d = _graph(tmp_path)
    calls, log = tmp_path / "calls", tmp_path / "runs.jsonl"
    anchor = _anchor(tmp_path, None, rc=1, calls=calls)  # no order, exit 1: a failed run
    _run(d, anchor, log, repeats=2)
    assert calls.read_text().count("x") == 2 and len(log.read_text().splitlines()) == 4
    failed = [json.loads(x) for x in log.read_text().splitlines()]
    assert {r["status"] for r in failed if r["solver"] == "anchor"} == {"failed"}
    _run(d, anchor, log, repeats=2)  # everything held: no process runs
    assert calls.read_text().count("x") == 2 and len(log.read_text().splitlines()) == 4
    _run(d, anchor, log, repeats=3)  # the third repeat only
    assert calls.read_text().count("x") == 3 and len(log.read_text().splitlines()) == 6
    assert "anchor proved 0 of 1" in capsys.readouterr().out


def test_a_child_reports_its_own_peak_and_a_hung_one_is_killed():
    parent_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if parent_mb < 80:  # the check below could not tell the launcher from a plain fork
        pytest.skip(f"this process peaks at {parent_mb:.0f} MB only")
    small = bench.run_measured([sys.executable, "-S", "-c", "pass"], None, 30.0)
    assert small.rc == 0 and small.max_mb < 40 < parent_mb
    hung = bench.run_measured([sys.executable, "-S", "-c", "import time; time.sleep(60)"],
                              None, 0.5)  # fmt: skip
    assert hung.rc == -9 and hung.wall_s < 20


def test_anchor_output_is_checked():
    assert bench.anchor_order("5\n4\n3\n", 2, 3) == [2, 1, 0]
    assert bench.anchor_order("c a comment\n3\n\n4\n", 2, 2) == [0, 1]
    assert "not the 3 free vertices" in str(bench.anchor_order("3\n4\n4\n", 2, 3))
    assert "not one vertex id" in str(bench.anchor_order("3\nfour\n", 2, 2))


def test_bad_input_is_refused_by_name(tmp_path):
    _, d = _graph(tmp_path)
    with pytest.raises(InvalidInput, match="--anchor"):
        _run(d, str(tmp_path / "missing"))
    with pytest.raises(InvalidInput, match="--repeats"):
        _run(d, None, repeats=0)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instance": 1}\n')
    with pytest.raises(InvalidInput, match="--out"):
        _run(d, None, bad)
    cmd = [sys.executable, "-m", "schedlab.experiments.bench", "bench_anchor", "--lop-dir",
           str(d), "--anchor", str(tmp_path / "missing")]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 2 and "--anchor" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("name", "flag"), [("bench_exact", "--repeats"), ("bench_startup", "--time-limit")]
)
def test_a_flag_is_refused_for_a_benchmark_that_does_not_take_it(name, flag):
    cmd = [sys.executable, "-m", "schedlab.experiments.bench", name, flag, "2"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 2 and f"{flag}: benchmark {name} does not take it" in out.stderr


def test_the_subset_dp_oracle_agrees_with_enumeration_on_a_small_matrix():
    W = np.random.default_rng(3).integers(0, 100, (7, 7)).astype(float)
    np.fill_diagonal(W, 0.0)
    brute = min(lop_cost(W, list(p)) for p in itertools.permutations(range(7)))
    assert subset_dp(W) == brute
