"""The linear-ordering matrix reader, the dense generator, lpcut's routes on raw matrices
against brute force over permutations, and `bench_exact --lop-dir DIR --json`."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.lop.lpcut.options import ROUTES, LpcutOptions
from schedlab.solvers.lop.matrix import (
    dense_io_matrix,
    parse_lop_text,
    read_lop_dir,
    read_lop_file,
    solve_lop_benchmark,
    write_lop_text,
)
from schedlab.solvers.result import PROOF_TOL, Status
from schedlab.solvers.sojourn.generate import generate
from schedlab.solvers.sojourn.objectives import Objective
from schedlab.solvers.sojourn.problem import SojournProblem
from schedlab.solvers.solve import solve


def brute_max(M: np.ndarray) -> float:
    """The largest above-diagonal sum over every simultaneous row/column permutation."""
    n = M.shape[0]
    return max(
        float(sum(M[p[i], p[j]] for i in range(n) for j in range(i + 1, n)))
        for p in itertools.permutations(range(n))
    )


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 10 * PROOF_TOL * max(1.0, abs(b))


def test_reader_reads_the_format_with_any_whitespace(tmp_path):
    f = tmp_path / "t3"
    f.write_text("3\n0 1 2\n3 0\t4\n\n5 6 0   \n")
    mat = read_lop_file(f)
    assert mat.name == "t3" and mat.n == 3
    assert mat.M.tolist() == [[0, 1, 2], [3, 0, 4], [5, 6, 0]]
    assert parse_lop_text("2 0 -1.5e2 7 0").tolist() == [[0, -150.0], [7, 0]]


def test_writer_round_trips_the_dense_generator():
    M = dense_io_matrix(9, 4)
    assert np.array_equal(parse_lop_text(write_lop_text(M)), M)
    assert np.array_equal(dense_io_matrix(9, 4), M)  # seeded
    off = M[~np.eye(9, dtype=bool)]
    assert np.all(M == np.round(M)) and (off > 0).mean() > 0.7  # integers, mostly non-zero


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty file"),
        ("x\n1 2\n3 4\n", "line 1, token 1 'x'"),
        ("0\n", "line 1, token 1 '0'"),
        ("2\n0 1\n2\n", "needs 4 entries after it, found 3 (the file ends at line 3)"),
        ("2\n0 1\n2 0\n9\n", "line 4 token '9' is one too many"),
        ("2\n0 1\n2 zz\n", "line 3, token 'zz' (entry row 2, column 2)"),
        ("2\n0 nan\n2 0\n", "line 2, token 'nan' (entry row 1, column 2)"),
    ],
)
def test_reader_names_line_and_token_of_a_malformed_file(tmp_path, text, needle):
    f = tmp_path / "bad"
    f.write_text(text)
    with pytest.raises(InvalidInput) as exc:
        read_lop_file(f)
    assert needle in str(exc.value) and str(f) in str(exc.value)


def test_read_lop_dir_refuses_a_missing_or_empty_folder(tmp_path):
    with pytest.raises(InvalidInput, match="not a directory"):
        read_lop_dir(tmp_path / "nope")
    with pytest.raises(InvalidInput, match="no files"):
        read_lop_dir(tmp_path)


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_equals_brute_force_on_tiny_matrices(route):
    rng = np.random.default_rng(7)
    cases = [dense_io_matrix(6, s) for s in range(3)]
    cases += [rng.integers(-20, 30, (6, 6)).astype(float) for _ in range(2)]  # negatives too
    cases += [rng.random((7, 7))]  # real entries, cyclic preferences
    for M in cases:
        ref = brute_max(M)
        r = solve_lop_benchmark(M, options=LpcutOptions(route=route))
        assert r.status is Status.OPTIMAL, (route, r.stats)
        assert close(r.value, ref), (route, r.value, ref)
        assert r.bound is not None and r.bound >= r.value and close(r.bound, ref)
        n = M.shape[0]
        above = sum(M[r.solution[i], r.solution[j]] for i in range(n) for j in range(i + 1, n))
        assert close(above, r.value)  # the value is the order's own


def test_auto_records_its_route_per_block_and_picks_differently_by_family():
    dense = solve_lop_benchmark(dense_io_matrix(30, 1))
    assert dense.status is Status.OPTIMAL and dense.stats["routes"] == ["lp"]
    cyc = solve(SojournProblem(generate(30, 1, family="cyclic"), Objective("B")), "lpcut", seed=0)
    assert cyc.status is Status.OPTIMAL and cyc.stats["routes"] == ["packing"]
    assert cyc.stats["route_packing"] == 1 and cyc.stats["route_option"] == "auto"


def test_a_packing_route_without_the_packing_is_refused():
    with pytest.raises(InvalidInput, match="route"):
        solve_lop_benchmark(
            dense_io_matrix(5, 0), options=LpcutOptions(packing=False, route="packing")
        )


def test_bench_lop_dir_json_prints_one_line_per_file(tmp_path):
    mats = {"b_io6": dense_io_matrix(6, 3), "a_rand5": np.arange(25.0).reshape(5, 5) % 7}
    for name, M in mats.items():
        (tmp_path / name).write_text(write_lop_text(M))
    cmd = [sys.executable, "-m", "schedlab.experiments.bench", "bench_exact", "--lop-dir",
           str(tmp_path), "--json"]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    lines = [json.loads(line) for line in out.strip().splitlines()]
    assert [d["name"] for d in lines] == ["a_rand5", "b_io6"]  # every stdout line is JSON
    for d in lines:
        assert {"name", "n", "value", "bound", "status", "runtime_s", "routes"} <= set(d)
        ref = brute_max(mats[d["name"]])
        assert d["n"] == mats[d["name"]].shape[0] and d["status"] == "optimal"
        assert close(d["value"], ref) and close(d["bound"], ref) and d["runtime_s"] >= 0


def test_bench_lop_dir_exits_2_on_a_malformed_file_and_on_a_foreign_benchmark(tmp_path):
    (tmp_path / "bad").write_text("3\n1 2\n")
    base = [sys.executable, "-m", "schedlab.experiments.bench"]
    r = subprocess.run([*base, "bench_exact", "--lop-dir", str(tmp_path)], capture_output=True,
                       text=True)  # fmt: skip
    assert r.returncode == 2 and "needs 9 entries" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([*base, "bench_kernels", "--lop-dir", str(tmp_path)], capture_output=True,
                       text=True)  # fmt: skip
    assert r.returncode == 2 and "does not take it" in r.stderr
