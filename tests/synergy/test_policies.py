"""Policies order jobs exactly as documented (hand-computed keys on three or four jobs)."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.experiments.synergy.policies import (
    POLICIES,
    PolicyView,
    dominant_share,
    ftf_rho,
    get_policy,
)
from schedlab.solvers.errors import InvalidInput


def view(**over: object) -> PolicyView:
    base: dict[str, object] = dict(
        now_s=1000.0,
        job_id=np.array([0, 1, 2, 3]),
        arrival_s=np.array([0.0, 100.0, 200.0, 300.0]),
        gpus=np.array([1, 2, 1, 4]),
        cpu_demand=np.array([12.0, 2.0, 3.0, 12.0]),
        mem_demand_gb=np.array([125.0, 40.0, 62.5, 250.0]),
        work_s=np.array([1000.0, 4000.0, 500.0, 8000.0]),
        remaining_s=np.array([900.0, 100.0, 400.0, 2000.0]),
        attained_gpu_s=np.array([100.0, 7800.0, 100.0, 24000.0]),
        est_speedup=np.array([3.0, 1.0, 1.0, 1.0]),
        bumped=np.array([False, False, False, False]),
        total_gpus=16.0,
        total_cpus=48.0,
        total_mem_gb=1000.0,
    )
    base.update(over)
    return PolicyView(**base)  # type: ignore[arg-type]


def order(name: str, v: PolicyView) -> list[int]:
    return get_policy(name).order(v).tolist()


def test_fifo_by_arrival_and_ignores_bumps() -> None:
    assert order("fifo", view()) == [0, 1, 2, 3]
    bumped = np.array([False, False, False, True])
    assert order("fifo", view(bumped=bumped)) == [0, 1, 2, 3]


def test_srtf_uses_remaining_over_estimated_speedup() -> None:
    # remaining / speedup = 300, 100, 400, 2000
    assert order("srtf", view()) == [1, 0, 2, 3]


def test_las_least_attained_gpu_seconds_ties_by_arrival() -> None:
    assert order("las", view()) == [0, 2, 1, 3]


def test_ftf_most_unfair_first() -> None:
    v = view()
    rho = ftf_rho(v)
    # (now - arrival + remaining/speedup) / work: (1000+300)/1000, (900+100)/4000, ...
    np.testing.assert_allclose(rho, [1.3, 0.25, 2.4, 0.3375], rtol=1e-12)
    assert order("ftf", v) == [2, 0, 3, 1]


def test_drf_least_dominant_share() -> None:
    v = view()
    # max(g/16, c/48, m/1000): .25, .125, .0625, .25
    np.testing.assert_allclose(dominant_share(v), [0.25, 0.125, 0.0625, 0.25], rtol=1e-12)
    assert order("drf", v) == [2, 1, 0, 3]


def test_tetris_remaining_times_normalized_demand() -> None:
    v = view()
    # (g/16 + c/48 + m/1000) * remaining/speedup
    norm = np.array([1 / 16 + 12 / 48 + 0.125, 2 / 16 + 2 / 48 + 0.04, 1 / 16 + 3 / 48 + 0.0625])
    keys = list(norm * np.array([300.0, 100.0, 400.0])) + [(4 / 16 + 12 / 48 + 0.25) * 2000]
    assert order("tetris", v) == list(np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("name", ["srtf", "las", "ftf", "drf", "tetris"])
def test_starving_jobs_go_first(name: str) -> None:
    bumped = np.array([False, False, False, True])
    got = order(name, view(bumped=bumped))
    assert got[0] == 3
    assert got[1:] == [j for j in order(name, view()) if j != 3]


def test_ties_break_by_arrival_then_id() -> None:
    v = view(
        arrival_s=np.array([5.0, 5.0, 1.0, 5.0]),
        attained_gpu_s=np.zeros(4),
        job_id=np.array([9, 3, 7, 1]),
    )
    assert order("las", v) == [2, 3, 1, 0]


def test_unknown_policy() -> None:
    with pytest.raises(InvalidInput, match="choose one of"):
        get_policy("lottery")
    assert set(POLICIES.names(scope="synergy")) == {"fifo", "srtf", "las", "ftf", "drf", "tetris"}
