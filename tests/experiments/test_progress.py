"""The run's one progress bar (`studies.Progress`): a total fixed before the first cell and a
time left that never increases, checked with an injected clock (no timing)."""

from __future__ import annotations

import math

from schedlab.experiments.studies import Planned, Progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def bar(plan: dict[str, Planned], clock: Clock, workers: int | None = None) -> Progress:
    return Progress(plan=plan, workers=workers, clock=clock, draw=False, every_s=math.inf)


PLAN = {"cheap": Planned(cells=100, cpu_s=1.0), "dear": Planned(cells=10, cpu_s=100.0)}


def test_the_total_is_fixed_before_the_first_cell_and_stays_fixed() -> None:
    clock = Clock()
    p = bar(PLAN, clock)
    assert (p.total, p.fixed) == (110, True)
    totals = []
    for study, n in (("cheap", 100), ("dear", 10)):
        p.add(n, study=study)
        totals.append(p.total)
        for _ in range(n):
            clock.now += 1.0
            p.advance(study=study)
            totals.append(p.total)
    assert set(totals) == {110}
    assert p.done == 110


def test_a_study_left_out_of_the_plan_makes_the_total_a_floor() -> None:
    p = bar({"cheap": Planned(cells=100)}, Clock())
    p.add(5, study="unplanned")
    assert (p.total, p.fixed) == (105, False)
    assert "/at least 105 cells" in p.status(1.0)


def test_a_plan_too_high_shrinks_when_the_study_ends_and_too_low_grows() -> None:
    p = bar({"a": Planned(cells=10), "b": Planned(cells=10)}, Clock())
    p.add(4, study="a")
    p.advance(4, study="a")
    assert p.total == 20
    p.finish("a")
    assert p.total == 14
    p.add(12, study="b")
    assert p.total == 16


def test_journaled_cells_count_as_done_but_not_as_speed() -> None:
    clock = Clock()
    p = bar({"a": Planned(cells=100, cpu_s=100.0)}, clock)
    p.add(100, done=90, study="a")
    clock.now = 10.0
    p.advance(1, study="a")  # one cell (1 CPU-s) in 10 s: 9 cells left take about 90 s
    assert p.done == 91
    assert math.isclose(p.left_s(10.0), 90.0, rel_tol=1e-9)


def test_the_time_left_never_increases_when_dear_cells_come_last() -> None:
    # 100 cheap cells (1 s each) then 10 dear ones (100 s each): by cell count alone the time
    # left would jump from ~0 to ~1,000 s when the dear study starts.
    clock = Clock()
    p = bar(PLAN, clock, workers=1)
    lefts = [p.left_s(clock.now)]
    for study, n, cost in (("cheap", 100, 1.0), ("dear", 10, 150.0)):
        p.add(n, study=study)
        for _ in range(n):
            clock.now += cost
            p.advance(study=study)
            lefts.append(p.left_s(clock.now))
    assert all(b <= a + 1e-9 for a, b in zip(lefts, lefts[1:], strict=False)), lefts
    assert lefts[-1] == 0.0


def test_the_estimate_comes_from_the_plans_cpu_before_any_cell() -> None:
    # 101 CPU-s planned on 2 workers: about 50 s before anything ran.
    p = bar(PLAN, Clock(), workers=2)
    assert math.isclose(p.left_s(0.0), 101.0 / 2, rel_tol=1e-9)
    assert "about 50 s left" in p.status(0.0)


def test_without_cpu_or_workers_the_time_left_is_unknown_until_a_cell_finishes() -> None:
    clock = Clock()
    p = bar({"a": Planned(cells=4)}, clock)
    assert "time left unknown" in p.status(0.0)
    p.add(4, study="a")
    clock.now = 2.0
    p.advance(study="a")
    assert math.isclose(p.left_s(2.0), 6.0, rel_tol=1e-9)


def square(cell: dict) -> dict:
    return {"y": cell["x"] ** 2}


def test_run_studies_gives_the_bar_its_total_before_any_study_hands_in_a_cell(tmp_path):
    """Two studies, run one after the other: when the first starts, the bar already counts the
    cells of both; when the second ends with fewer cells than planned, the total settles."""
    from schedlab.experiments import studies
    from schedlab.experiments.store import RowStore

    seen: list[tuple[int, int]] = []

    def run(name: str, n: int) -> list:
        bar = studies.current_progress()
        assert bar is not None
        seen.append((bar.total, bar.done))
        RowStore(tmp_path / f"{name}.jsonl", ["x"]).run([{"x": i} for i in range(n)], square)
        return []

    def study(name: str, n: int) -> studies.Study:
        return studies.Study(name, "figure", "", "small", 0, "cmd", lambda: run(name, n))

    plan = {"a": Planned(cells=3), "b": Planned(cells=5)}
    stats = studies.run_studies([study("a", 3), study("b", 4)], tmp_path, parallel=False, plan=plan)
    assert [s.cells for s in stats] == [3, 4]
    assert seen == [(8, 0), (8, 3)]
