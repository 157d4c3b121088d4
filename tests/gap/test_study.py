"""The gap study: gap sign and scale, the join to the proven optimum, the summary's intervals by
hand, and the optimum cache (a rerun computes nothing, a new method only its own cells, a
changed method only its own, stale rows dropped)."""

from __future__ import annotations

import json
import math

import pytest

import schedlab.experiments.gap.study as study_mod
from schedlab.experiments.gap import cache
from schedlab.experiments.gap.spec import MethodSpec, Rung, parse_method, split_methods
from schedlab.experiments.gap.study import _Planned, gap_of, join_instance, run_study
from schedlab.experiments.gap.summary import median_interval, summarize, wilson
from schedlab.solvers.errors import InvalidInput


def test_gap_is_on_the_bad_side_and_scaled_by_the_bound():
    assert gap_of(11.0, 10.0, "min", "relative") == pytest.approx(0.1)
    assert gap_of(9.0, 10.0, "max", "relative") == pytest.approx(0.1)
    assert gap_of(9.0, 10.0, "min", "relative") == pytest.approx(-0.1)  # better than the bound
    assert gap_of(-2.0, -1.0, "max", "absolute") == pytest.approx(1.0)
    assert (
        gap_of(None, 1.0, "min", "relative") is None
        and gap_of(1.0, None, "min", "relative") is None
    )


def test_median_interval_and_wilson_by_hand():
    # Binomial(10, 1/2): P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so x_(2), x_(9)
    assert median_interval([float(v) for v in range(10, 0, -1)]) == (2.0, 9.0)
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) == (None, None)  # 2/32 > 0.05: none
    lo, hi = wilson(5, 10)  # the textbook 95 % Wilson interval of 5/10
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 0) == (None, None) and wilson(3, 3)[1] == 1.0


def test_method_lists_parse_with_options():
    assert split_methods("smith, split[rule=slack,x=1],tag:index") == [
        "smith", "split[rule=slack,x=1]", "tag:index"
    ]  # fmt: skip
    spec = parse_method("split[rule=slack,limit=2.5,on=true]")
    assert spec == MethodSpec("split", {"rule": "slack", "limit": 2.5, "on": True})
    assert parse_method(spec.label) == spec and parse_method("smith").label == "smith"
    for bad in ("split[rule]", "[x=1]", "split[rule=slack"):
        with pytest.raises(InvalidInput):
            parse_method(bad)


RUNG = Rung("g", 5, "n=5", "B", {"n": 5}, 1, ("dp", "cpsat"))


def _cells(*rows: tuple[str, str, str, float | None, float | None]):
    planned = [_Planned(0, 0, 7, MethodSpec(m), role, {}) for m, role, *_ in rows]
    cached = [{"status": st, "value": v, "bound": b, "runtime_s": 0.1, "stats": {}}
              for _, _, st, v, b in rows]  # fmt: skip
    return planned, cached


def test_join_takes_the_first_proven_exact_answer_as_the_optimum():
    planned, cached = _cells(
        ("dp", "exact", "optimal", 10.0, 10.0),
        ("cpsat", "exact", "optimal", 10.5, 10.5),  # disagrees with the reference
        ("smith", "method", "feasible", 12.0, None),
    )
    rows = {r["method"]: r for r in join_instance(RUNG, planned, cached, "min")}
    assert rows["dp"]["reference"] and rows["smith"]["proven"] and rows["smith"]["optimum"] == 10.0
    assert rows["smith"]["gap"] == pytest.approx(0.2) and rows["dp"]["gap"] == 0.0
    assert rows["cpsat"]["agrees"] is False and rows["dp"]["agrees"] is None


def test_join_without_a_proof_uses_the_best_bound_and_says_so():
    planned, cached = _cells(
        ("cpsat", "exact", "timeout", None, 8.0),
        ("milp", "exact", "feasible", 11.0, 9.0),
        ("smith", "method", "feasible", 12.0, None),
    )
    rows = {r["method"]: r for r in join_instance(RUNG, planned, cached, "min")}
    smith = rows["smith"]
    assert not smith["proven"] and smith["optimum"] is None and smith["best_bound"] == 9.0
    assert smith["gap"] == pytest.approx(3.0 / 9.0)  # an upper bound on the true gap
    summary = {s["method"]: s for s in summarize(_study(list(rows.values())))}
    assert summary["smith"]["proven"] == 0 and summary["smith"]["mean_gap"] is None
    assert summary["smith"]["unproven"] == 1
    assert summary["smith"]["max_gap_vs_bound_unproven"] == pytest.approx(3.0 / 9.0)


def _study(rows):
    return study_mod.Study("sojourn", "default", "tiny", 0, "min", [RUNG], [], rows)


@pytest.mark.parametrize("size", ["tiny", "small", "full"])
def test_every_registered_ladder_is_well_formed(size):
    """Every rung of every family: its exact methods exist, are exact and solve its kind; its
    parameters are JSON; its instance seeds are distinct. (A TK rung given CP-SAT, which solves
    only A and B, was caught here.)"""
    from schedlab.experiments.gap.spec import GAP_FAMILIES
    from schedlab.solvers.solve import METHODS

    for entry in GAP_FAMILIES.entries():
        seeds = set()
        for rung in entry.obj(size):
            assert rung.count >= 1 and rung.exact, (entry.key, rung)
            json.dumps(dict(rung.params))
            for m in rung.exact:
                spec = METHODS.get(m, scope=entry.scope)
                kinds = spec.meta.get("kinds")
                assert spec.meta["exact"] and (kinds is None or rung.kind in kinds), (entry.key, m)
            group = {(rung.params_key, entry.meta["seed_rule"](0, rung, i))
                     for i in range(rung.count)}  # fmt: skip
            assert len(group) == rung.count and not group & seeds, (entry.key, rung.label)
            seeds |= group


# ---- the cache -----------------------------------------------------------------------------
def _run(tmp_path, methods, **kw):
    return run_study("sojourn", "default", "tiny", 0, tmp_path, methods=methods, count=1, **kw)


def test_rerun_and_a_new_method_compute_only_what_is_missing(tmp_path, monkeypatch):
    first = _run(tmp_path, ["smith"])
    assert first.counts["exact_solved"] == first.counts["exact_cells"] == 8  # 4 objectives x 2 n
    assert first.counts["method_solved"] == 8
    again = _run(tmp_path, ["smith"])
    assert again.counts["exact_solved"] == again.counts["method_solved"] == 0
    assert [r["gap"] for r in again.rows] == [r["gap"] for r in first.rows]
    more = _run(tmp_path, ["smith", "uindex"])  # a new heuristic: its cells only
    assert more.counts["exact_solved"] == 0 and more.counts["method_solved"] == 8
    assert {r["method"] for r in more.rows} == {"dp", "smith", "uindex"}
    for r in more.rows:
        assert r["proven"] and r["gap"] >= -1e-9, r  # no heuristic beats the proven optimum


def test_a_changed_method_recomputes_its_cells_only_and_stale_rows_go(tmp_path, monkeypatch):
    _run(tmp_path, ["smith", "uindex"])
    real = study_mod.method_version
    monkeypatch.setattr(study_mod, "method_version",
                        lambda s, m: "edited" if m == "smith" else real(s, m))  # fmt: skip
    edited = _run(tmp_path, ["smith", "uindex"])
    assert edited.counts["exact_solved"] == 0 and edited.counts["method_solved"] == 8
    path = cache.cache_path(tmp_path, "sojourn", "methods")
    rows = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    assert sum(r["version"] == "edited" for r in rows) == 8 and len(rows) == 24
    monkeypatch.setattr(study_mod, "method_version", real)
    store = cache.open_cache(tmp_path, "sojourn", "methods")  # the edited rows are stale now
    assert len(store.rows) == 16 and all(r["version"] != "edited" for r in store.rows)


def test_unknown_methods_and_a_heuristic_as_exact_are_refused(tmp_path):
    with pytest.raises(InvalidInput, match="nosuch"):
        _run(tmp_path, ["nosuch"])
    with pytest.raises(InvalidInput, match="not an exact"):
        _run(tmp_path, ["smith"], exact="smith")
    with pytest.raises(InvalidInput, match="tag"):
        _run(tmp_path, ["tag:nosuchtag"])
    with pytest.raises(InvalidInput):
        _run(tmp_path, ["batchlocal[nosuch=1]"])
    assert not math.isnan(0.0)
