"""`schedlab slaq predict --scoring strict|authors`: the two conventions' numbers, keys and
refusals (exit 2 naming the option)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from schedlab.experiments.cli import cli

STRICT_KEYS = {
    "curve",
    "points",
    "model",
    "ahead",
    "mean_relative_error_pct",
    "families",
    "forecast",
    "predictions",
}
NEW_KEYS = {"scoring", "decay", "dropped", "unscored"}


def run(*args: str):
    r = CliRunner().invoke(cli, ["slaq", "predict", *args])
    return r, (json.loads(r.stdout) if r.exit_code == 0 and "--json" in args else None)


def test_authors_naive_is_the_papers_52_5_percent():
    r, out = run(
        "svm-poly-mnist", "--ahead", "10", "--model", "naive", "--scoring", "authors", "--json"
    )
    assert r.exit_code == 0, r.output
    assert out["mean_relative_error_pct"] == pytest.approx(52.54648303054411, rel=1e-12)
    assert set(out) == STRICT_KEYS | NEW_KEYS | {"authors_family", "fit_steps"}
    assert out["dropped"] == 1 and out["unscored"] == 0
    assert [p["iteration"] for p in out["predictions"]] == list(range(6, 100))
    assert min(p["predicted"] for p in out["predictions"]) < 0  # unclipped
    assert len(out["forecast"]["losses"]) == 10


def test_strict_keeps_its_keys_and_number():
    r, out = run("svm-poly-mnist", "--model", "naive", "--json")
    assert r.exit_code == 0, r.output
    assert set(out) == STRICT_KEYS | NEW_KEYS and out["scoring"] == "strict"
    assert out["mean_relative_error_pct"] == pytest.approx(16.605468616782296, rel=1e-9)
    assert min(p["predicted"] for p in out["predictions"]) == 0.0  # clipped


def test_authors_auto_is_their_family_for_the_curve(tmp_path):
    r, out = run("logreg", "--scoring", "authors", "--json")
    assert r.exit_code == 0, r.output
    assert out["authors_family"] == "exponential" and out["families"] == {"exponential": 95}
    assert out["mean_relative_error_pct"] == pytest.approx(4.27, abs=0.01)  # the paper's
    f = tmp_path / "mycurve.txt"
    f.write_text("\n".join(str(0.9**k + 0.1) for k in range(30)))
    r, _ = run(str(f), "--scoring", "authors")
    assert r.exit_code == 2 and "--model inverse-poly or exponential" in r.stderr
    r, out = run(str(f), "--scoring", "authors", "--model", "exponential", "--ahead", "1", "--json")
    assert r.exit_code == 0 and out["mean_relative_error_pct"] < 0.1


def test_authors_work_cap_and_bad_decay_exit_2(tmp_path):
    f = tmp_path / "logreg-long.txt"
    f.write_text("\n".join(str(0.99**k + 0.1) for k in range(60)))
    r, _ = run(str(f), "--scoring", "authors", "--max-fits", "50")
    assert r.exit_code == 2 and "--max-fits" in r.stderr and "56" in r.stderr
    r, _ = run(str(f), "--scoring", "authors", "--model", "naive", "--max-fits", "50")
    assert r.exit_code == 0  # the rules fit nothing
    r, _ = run("logreg", "--decay", "1.5")
    assert r.exit_code == 2 and "--decay" in r.stderr
