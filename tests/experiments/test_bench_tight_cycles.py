"""bench_tight_cycles: every variant proves the optimum a subset DP computes on graphs whose
blocks go through LP rounds, the kernel variants really run the kernel, and bad input is
refused."""

from __future__ import annotations

import subprocess
import sys
from unittest import mock

import pytest

from schedlab.experiments.bench import bench_tight_cycles as bench
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.sojourn.lop_graph import SparseCrossings, block_matrix, random_ocr_graph
from tests.experiments.test_bench_branchcut import subset_dp


@pytest.mark.parametrize("seed", [0, 4, 5])  # graphs whose blocks (7-14 classes) run LP rounds
def test_every_variant_proves_the_subset_dp_optimum(seed):
    g = random_ocr_graph(16, 16, seed, mean_degree=3.0, span=10, isolated_share=0.0)
    sc = SparseCrossings.of(g)
    want = subset_dp(block_matrix(sc, sc.active)[0])
    for variant in bench.VARIANTS:
        calls: list[int] = []
        make = bench.kernel_cycles

        def counted(tie, make=make, calls=calls):
            inner = make(tie)

            def run(*args, **kwargs):
                calls.append(1)
                return inner(*args, **kwargs)

            return run

        with mock.patch.object(bench, "kernel_cycles", counted):
            row = bench.solve_variant(g, variant, 30.0)
        assert row["status"] == "optimal" and row["value"] == row["bound"] == want
        assert row["LP rounds"] >= 1
        assert (len(calls) > 0) == (variant != "lpcut")  # the kernel ran, and only there


def test_bad_input_is_refused(tmp_path):
    g = random_ocr_graph(16, 16, 0, mean_degree=3.0, span=10, isolated_share=0.0)
    with pytest.raises(InvalidInput, match="variant"):
        bench.solve_variant(g, "kernel-last", 10.0)
    with pytest.raises(InvalidInput, match="no .gr file"):
        list(bench.graphs(False, str(tmp_path)))
    for limit in ("0", "-5", "nan"):
        cmd = [sys.executable, "-m", "schedlab.experiments.bench", "bench_tight_cycles",
               "--quick", "--time-limit", limit]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True)
        assert (
            out.returncode == 2 and "--time-limit" in out.stderr and "Traceback" not in out.stderr
        )
