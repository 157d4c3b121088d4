"""`schedlab verify`: table, one JSON object, exit codes, resumable rows."""

from __future__ import annotations

import json

from click.testing import CliRunner

from schedlab.experiments.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_json_output_is_one_object_and_failing_claims_exit_0(tmp_path):
    r = run("verify", "4", "1", "--json", "--out", str(tmp_path))
    assert r.exit_code == 0
    out = json.loads(r.stdout)
    assert [c["id"] for c in out["claims"]] == ["4", "1"]
    for c in out["claims"]:
        assert {"id", "verdict", "instances", "worst"} <= set(c)
    assert out["claims"][0]["verdict"] == "fails"
    assert (tmp_path / "theory" / "claim4-smallest-counterexample.json").exists()
    saved = json.loads((tmp_path / "theory" / "verify-small-s0.json").read_text())
    assert {c["id"] for c in saved["claims"]} == {"1", "4"}
    # rows were journaled: a rerun resumes from them and gives the same verdicts
    journals = list((tmp_path / "theory" / "journal").glob("*.jsonl"))
    assert journals
    again = json.loads(run("verify", "1", "4", "--json", "--out", str(tmp_path)).stdout)
    assert [c["worst"]["value"] for c in again["claims"]] == [
        c["worst"]["value"] for c in reversed(out["claims"])
    ]


def test_table_and_unknown_claim(tmp_path):
    r = run("verify", "no-preemption-A", "--out", str(tmp_path))
    assert r.exit_code == 0
    assert "claim" in r.stdout and "holds" in r.stdout
    bad = CliRunner().invoke(cli, ["verify", "42", "--out", str(tmp_path)])
    assert bad.exit_code == 2
    assert "unknown '42'" in bad.stderr


def test_list():
    r = run("verify", "--list", "--json")
    ids = [c["id"] for c in json.loads(r.stdout)["claims"]]
    assert ids[:3] == ["1", "2", "2a"]
