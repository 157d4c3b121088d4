"""Arrivals from a whole Azure LLM trace file: offsets, bad rows named, requests conserved."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli
from schedlab.experiments.esg.simulator import trace_offsets
from schedlab.solvers.errors import InvalidInput

HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens\n"


def _trace(tmp_path, rows):
    p = tmp_path / "trace.csv"
    p.write_text(HEADER + "".join(f"{r},10,5\n" for r in rows))
    return p


def test_offsets_start_at_zero_and_are_sorted(tmp_path):
    p = _trace(
        tmp_path, ["2023-11-16 18:17:04.5", "2023-11-16 18:17:03.9799600", "2023-11-16 18:17:06"]
    )
    off = trace_offsets(str(p))
    assert off == pytest.approx(np.array([0.0, 0.52004, 2.02004]))


def test_bad_timestamp_is_named_with_its_line(tmp_path):
    p = _trace(tmp_path, ["2023-11-16 18:17:04", "yesterday", "2023-11-16 18:17:06"])
    with pytest.raises(InvalidInput, match="line 3: TIMESTAMP 'yesterday'"):
        trace_offsets(str(p))


def test_simulate_with_a_trace_conserves_requests(tmp_path):
    rows = [f"2023-11-16 18:{m:02d}:{s:02d}" for m in range(17, 20) for s in range(0, 60, 7)]
    trace = _trace(tmp_path, rows)
    runner = CliRunner()
    app = runner.invoke(cli, ["esg", "generate", "--stages", "2", "--configs", "8", "--seed", "3"])
    (tmp_path / "app.json").write_text(app.stdout)
    args = ["esg", "simulate", "--apps", str(tmp_path / "app.json"), "--policy", "greedy"]
    args += ["--arrivals", "azure", "--trace", str(trace), "--requests", "60", "--json"]
    res = runner.invoke(cli, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["requests"] == 60 and out["completed"] == 60
