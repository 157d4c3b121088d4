"""The route study's arithmetic: the ratio to the fastest single route and the best-of
repeats of short solves (a fake solver stands in for lpcut)."""

from __future__ import annotations

import pytest

from schedlab.experiments.sojourn.bench_exact import (
    FAST_FLOOR_S,
    REPEATS,
    RouteRun,
    best_runs,
    ratio_to_fastest,
)


def test_ratio_is_auto_over_the_fastest_single_route_floored():
    assert ratio_to_fastest({"auto": 3.0, "packing": 1.0, "lp": 2.0, "full": 9.0}) == 3.0
    assert ratio_to_fastest({"auto": 0.001, "lp": 0.04}) == 1.0  # both below the floor
    assert ratio_to_fastest({"auto": 0.2, "lp": 0.01}) == pytest.approx(0.2 / FAST_FLOOR_S)
    assert ratio_to_fastest({"lp": 1.0}) is None and ratio_to_fastest({"auto": 1.0}) is None


def test_short_solves_are_repeated_interleaved_and_the_fastest_kept():
    walls = {"auto": iter([0.5, 0.2, 0.4]), "lp": iter([5.0]), "full": iter([0.3, 0.1, 0.2])}
    cpus = {"auto": iter([0.1, 0.3, 0.05]), "lp": iter([4.0]), "full": iter([0.1, 0.1, 0.1])}
    calls: list[str] = []

    def go(route: str, limit_s: float) -> RouteRun:
        calls.append(route)
        return RouteRun("optimal", next(walls[route]), [route], next(cpus[route]))

    runs = best_runs(go, ["auto", "lp", "full"], 60.0)
    assert calls == ["auto", "lp", "full", "auto", "full", "auto", "full"]  # lp took >= 1 s
    assert len(calls) == 1 + 2 * REPEATS
    assert (runs["auto"].seconds, runs["auto"].cpu_s) == (0.2, 0.05)
    assert runs["lp"].seconds == 5.0 and runs["full"].seconds == 0.1


def test_deficit_share_separates_the_families_at_the_routes_threshold():
    from schedlab.experiments.sojourn.bench_exact import deficit_share
    from schedlab.solvers.lop.lpcut.options import DEFAULT_TUNING
    from schedlab.solvers.lop.matrix import core_costs, dense_io_matrix
    from schedlab.solvers.sojourn.batch import linear_ordering_weights
    from schedlab.solvers.sojourn.generate import generate
    from schedlab.solvers.sojourn.objectives import Objective

    _, W = linear_ordering_weights(generate(30, 13000, family="cyclic"), Objective("B"))
    cyclic = deficit_share(W)
    dense = deficit_share(core_costs(dense_io_matrix(30, 13000))[0])
    assert cyclic is not None and 0 < cyclic < DEFAULT_TUNING.packing_max_deficit < 0.1 < dense
    _, W = linear_ordering_weights(generate(30, 13000), Objective("B"))
    assert deficit_share(W) is None  # default family: no block of 3 jobs
