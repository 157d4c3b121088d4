"""The sweep runner: same rows on every engine, resume after a kill, failing cells reported."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from schedlab.experiments import sweep
from schedlab.experiments.store import RowStore, write_csv
from schedlab.experiments.sweep import SweepError, run_cells

CELLS = [{"a": a, "b": b} for a in range(3) for b in ("x", "y")]


def draw(cell: dict, *, seed: int, calls: str | None = None, fail: int | None = None) -> dict:
    """A small seeded cell: counts its calls in files under `calls`, fails when a == `fail`."""
    if calls is not None:
        Path(calls, f"{cell['a']}-{cell['b']}-{np.random.default_rng().integers(1 << 60)}").touch()
    if cell["a"] == fail:
        raise ValueError(f"cell a={cell['a']} refuses")
    rng = np.random.default_rng([seed, cell["a"], ord(cell["b"])])  # the cell's key, not its place
    return {"mean": float(rng.normal(size=100).mean()), "draws": rng.integers(0, 9, 3).tolist()}


def study(tmp: Path, *, engine=None, **kw) -> list[dict]:
    store = RowStore(tmp / "j.jsonl", ["a", "b"], config={"seed": 7})
    return run_cells(partial(draw, seed=7, **kw), CELLS, store=store, engine=engine)


def csv_bytes(rows: list[dict], path: Path) -> bytes:
    return write_csv(path, rows).read_bytes()


def test_serial_equals_two_processes_bit_for_bit(tmp_path):
    serial = study(tmp_path / "s", engine=sweep.SerialEngine())
    with sweep.using(workers=2) as engine:
        assert isinstance(engine, sweep.PoolEngine)
        parallel = study(tmp_path / "p")
    assert [(r["a"], r["b"]) for r in parallel] == [(c["a"], c["b"]) for c in CELLS]
    assert csv_bytes(serial, tmp_path / "s.csv") == csv_bytes(parallel, tmp_path / "p.csv")


def test_dask_local_cluster_gives_the_same_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial = study(tmp_path / "s", engine=sweep.SerialEngine())
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        with sweep.using(scheduler=cluster.scheduler_address) as engine:
            assert isinstance(engine, sweep.DaskEngine)
            assert engine.workers == 2  # the cluster's threads: cells it runs at once
            on_dask = study(tmp_path / "d")
    assert csv_bytes(serial, tmp_path / "s.csv") == csv_bytes(on_dask, tmp_path / "d.csv")
    journal = (tmp_path / "d" / "j.jsonl").read_text().splitlines()
    assert len(journal) == 1 + len(CELLS)  # header, then one line per cell


def test_killed_sweep_resumes_without_redoing_finished_cells(tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()
    full = study(tmp_path / "ref", engine=sweep.SerialEngine())
    # "Kill" the first run after 4 cells: an engine that stops yielding after k outcomes.
    k = 4

    class Killed(sweep.SerialEngine):
        def run(self, fn, todo):
            for n, out in enumerate(super().run(fn, todo)):
                yield out
                if n + 1 == k:
                    raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        study(tmp_path, engine=Killed(), calls=str(calls))
    assert len(list(calls.iterdir())) == k
    for f in calls.iterdir():
        f.unlink()
    with sweep.using(workers=2):
        rows = study(tmp_path, calls=str(calls))
    computed = sorted(f.name.rsplit("-", 1)[0] for f in calls.iterdir())
    assert computed == sorted(f"{c['a']}-{c['b']}" for c in CELLS[k:])
    assert rows == full


def test_failing_cell_is_reported_with_its_config_and_others_are_kept(tmp_path):
    with pytest.raises(SweepError) as err:
        study(tmp_path, engine=sweep.SerialEngine(), fail=1)
    msg = str(err.value)
    assert "2 of 6 cells failed" in msg
    assert json.dumps({"a": 1, "b": "x"}, sort_keys=True) in msg
    assert "ValueError: cell a=1 refuses" in msg
    assert [f.index for f in err.value.failures] == [2, 3]
    kept = RowStore(tmp_path / "j.jsonl", ["a", "b"], config={"seed": 7})
    assert sorted((r["a"], r["b"]) for r in kept.rows) == [(0, "x"), (0, "y"), (2, "x"), (2, "y")]
    rows = study(tmp_path, engine=sweep.SerialEngine())  # the fix: a rerun fills the gaps
    assert len(rows) == len(CELLS)


def test_failing_cell_on_worker_processes(tmp_path):
    with sweep.using(workers=2), pytest.raises(SweepError) as err:
        study(tmp_path, fail=2)
    assert [f.cell for f in err.value.failures] == [{"a": 2, "b": "x"}, {"a": 2, "b": "y"}]


def test_unpicklable_cell_function_is_refused_not_run_in_process(tmp_path):
    """A study never silently runs its cells serially in the main process."""
    from schedlab.solvers.errors import InvalidInput

    with sweep.using(workers=2), pytest.raises(InvalidInput, match="module-level function"):
        run_cells(lambda c: {"twice": 2 * c["a"]}, CELLS)


def test_journal_keeps_each_cells_cost_apart_from_its_row(tmp_path):
    rows = study(tmp_path, engine=sweep.SerialEngine())
    assert all("_cost" not in r for r in rows)
    lines = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()[1:]]
    assert all(set(x["_cost"]) == {"wall_s", "cpu_s", "peak_mb"} for x in lines)
    store = RowStore(tmp_path / "j.jsonl", ["a", "b"], config={"seed": 7})
    assert all("_cost" not in r for r in store.rows)
    assert store.cost_of((0, "x"))["cpu_s"] >= 0.0
    assert study(tmp_path, engine=sweep.SerialEngine()) == rows  # reused, cost stripped


def test_cells_count_in_their_study_and_the_one_bar(tmp_path):
    from schedlab.experiments import studies

    def run() -> list:
        study(tmp_path / "a")
        return []

    spec = studies.Study("toy", "figure", "", "small", 0, "toy command", run,
                         extra_modules=("schedlab.experiments.sweep",))  # fmt: skip
    with sweep.using(workers=2):
        first = studies.run_studies([spec], tmp_path, parallel=True)[0]
        again = studies.run_studies([spec], tmp_path, parallel=True)[0]
    assert (first.status, first.cells, first.computed, first.failed) == ("ok", 6, 6, 0)
    # CPU is read at the clock's resolution: tiny cells may sum to 0.0, never below.
    assert first.peak_mb > 0 and first.cell_cpu_s >= 0.0
    assert (again.cells, again.computed) == (6, 0)  # a rerun recomputes nothing
    assert again.cell_cpu_s == pytest.approx(first.cell_cpu_s)  # the journaled cost counts
    manifest = studies.read_manifests(tmp_path)["toy"]
    assert manifest["computed"] == 0 and manifest["command"] == "toy command"


def test_cli_workers_and_failure_exit_code(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from schedlab.experiments.cli import cli

    res = CliRunner().invoke(cli, ["figure", "--list", "--workers", "0"])
    assert res.exit_code == 2  # click's own usage error for a worker count below 1
    pytest.importorskip("distributed")
    monkeypatch.setenv(sweep.SCHEDULER_ENV, "tcp://127.0.0.1:1")
    monkeypatch.setattr(sweep, "CONNECT_TIMEOUT_S", 1.0)
    res = CliRunner().invoke(cli, ["verify", "5", "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert "cannot reach a Dask scheduler" in res.output


def _blas_threads(cell: dict) -> dict:
    from threadpoolctl import threadpool_info

    return {"threads": [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]}


def test_cells_run_with_one_blas_thread_whatever_the_engine() -> None:
    # a multithreaded BLAS sums in another order than Dask's one-thread workers: rows must not
    # depend on the engine, so every cell runs with one BLAS thread
    from schedlab.experiments.sweep import call_cell

    out = call_cell(_blas_threads, {})
    assert out.ok and out.value["threads"] and set(out.value["threads"]) == {1}
