"""The claim registry: ids, slugs, settings and errors."""

from __future__ import annotations

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.theory.claims import claims, resolve, run_claim


def test_registry_lists_claims_1_to_7_in_order():
    ids = list(claims())
    for cid in ("1", "2", "2a", "3", "4", "5", "6", "7"):
        assert cid in ids
    assert ids.index("2") < ids.index("2a") < ids.index("3") < ids.index("7")


def test_resolve_by_id_and_slug_and_unknown():
    assert [s.id for s in resolve(["4", "no-preemption-A", "4"])] == ["4", "1"]
    assert len(resolve([])) == len(claims())
    with pytest.raises(InvalidInput, match="unknown 'nine'"):
        resolve(["nine"])


def test_bad_size_and_unknown_setting(tmp_path):
    spec = claims()["6"]
    with pytest.raises(InvalidInput, match="size"):
        run_claim(spec, "huge", 0, outdir=tmp_path)
    with pytest.raises(InvalidInput, match="unknown name"):
        run_claim(spec, "small", 0, outdir=tmp_path, jobz=3)


def test_claim8_holds_and_a_wrong_rule_fails(tmp_path):
    spec = claims()["8"]
    v = run_claim(spec, "small", 0, outdir=tmp_path)
    assert v.verdict == "holds"
    assert v.evidence["cyclic"]["cyclic_instances"] == 3  # the known seeds are cyclic
    bad = run_claim(spec, "small", 0, outdir=tmp_path, rule="pairwise")
    assert bad.verdict == "fails" and bad.worst["instance"] is not None
