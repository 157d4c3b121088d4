"""Claim 12 (cycle-packing bound): holds on the small check, fails for a wrong lemma."""

from __future__ import annotations

from schedlab.theory.claims import claims, run_claim


def test_claim12_holds_and_packing_twice_the_capacities_fails(tmp_path):
    spec = claims()["12"]
    v = run_claim(spec, "small", 0, outdir=tmp_path)
    assert v.verdict == "holds", v.summary
    ev = v.evidence
    assert ev["cyclic_instances"] >= 5 and ev["bound_violations"] == 0
    assert ev["certificates_tried"] >= 5 and ev["certificates_closed"] == ev["certificates_tried"]
    assert ev["worst_rel_duality_gap"] <= 1e-9
    bad = run_claim(spec, "small", 0, outdir=tmp_path, cap_scale=2.0)
    assert bad.verdict == "fails" and bad.evidence["bound_violations"] >= 1
