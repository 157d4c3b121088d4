"""Studies: a figure, a table or a claim check as the unit that a reproduction runs, times and
records.

A study runs in a thread of the main process (`run_studies`): several run at once, and each
hands its cells to the one sweep engine (`sweep.run_cells`), so cells of every study share the
worker processes. What a study does besides its cells (building instances, plotting) is
counted as its main-process CPU time. Each study runs with its code version pinned
(`codeversion.pinned`), so its journals are keyed on the code it depends on, and records a
manifest `results/manifests/<study>.json`: cells (journaled, computed now, failed), wall time
of this run, CPU time of every cell (as journaled when computed, plus this run's main-process
share), the largest peak resident memory of a cell, the files written, the code version and the
command that regenerates it. `schedlab report` reads the manifests for freshness and resources.

One progress bar (stderr) covers the cells of every running study, with an estimate of the
time left; a line per study is printed when it finishes.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from contextvars import copy_context
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from schedlab.experiments import codeversion, runstate
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.util import atomic_write_text, ensure_output_dir

MANIFEST_DIR = "manifests"
MANIFEST_FORMAT = 1
LOG_EVERY_S = 30.0  # a progress line this often where no bar is drawn


@dataclass
class StudyStats:
    """What one study did in one run: its cells, time, memory and files (its manifest)."""

    study: str
    kind: str  # figure | claim | report
    subject: str  # a subject name, or "" for a subject-free study
    size: str
    seed: int
    code_version: str
    tree_version: str
    command: str
    cells: int = 0
    computed: int = 0
    failed: int = 0
    cell_cpu_s: float = 0.0  # every cell of the study, as journaled when it was computed
    new_cell_cpu_s: float = 0.0  # the cells computed in this run
    longest_cell_cpu_s: float = 0.0  # the study's critical path: no worker count beats it
    main_cpu_s: float = 0.0  # this run's main-process share (instances, tables, plots)
    wall_s: float = 0.0
    peak_mb: float = 0.0  # the largest peak resident memory of one cell
    files: list[str] = field(default_factory=list)
    status: str = "running"  # ok | failed
    error: str = ""
    finished_at: str = ""
    format: int = MANIFEST_FORMAT
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def cpu_s(self) -> float:
        """CPU time the study's results cost: all its cells plus this run's main-process share."""
        return self.cell_cpu_s + self.main_cpu_s

    def count_cells(self, total: int, reused_cpu_s: list[float]) -> None:
        """Count a sweep's `total` cells; `reused_cpu_s`: the journaled CPU of those reused."""
        with self._lock:
            self.cells += total
            self.cell_cpu_s += sum(reused_cpu_s)
            self.longest_cell_cpu_s = max([self.longest_cell_cpu_s, *reused_cpu_s])

    def count_computed(self, cost: dict[str, float] | None, ok: bool) -> None:
        with self._lock:
            if not ok:
                self.failed += 1
                return
            self.computed += 1
            cpu = float((cost or {}).get("cpu_s", 0.0))
            self.cell_cpu_s += cpu
            self.new_cell_cpu_s += cpu
            self.longest_cell_cpu_s = max(self.longest_cell_cpu_s, cpu)
            self.peak_mb = max(self.peak_mb, float((cost or {}).get("peak_mb", 0.0)))

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}
        out["files"] = list(self.files)
        out["cpu_s"] = self.cpu_s
        return out


def current_study() -> StudyStats | None:
    """The study whose thread this is (None outside `run_study`; `runstate.STUDY`)."""
    stats = runstate.STUDY.get()
    return stats if isinstance(stats, StudyStats) else None


# ---- the one progress bar ------------------------------------------------------------------
#: Seconds of run time that the prior rate (the workers' CPU) counts as, against the measured.
PRIOR_S = 60.0


@dataclass(frozen=True)
class Planned:
    """What a study is expected to hand the bar: its cells and the CPU they cost when it last
    ran (`cpu_s` 0: not known). From the study's last manifest at the same size and seed."""

    cells: int
    cpu_s: float = 0.0


@dataclass
class _Count:
    """One study's cells on the bar: planned (None: not known), handed in, done, reused."""

    planned: int | None = None
    handed: int = 0
    done: int = 0
    reused: int = 0  # done when handed in (journaled by an earlier run)
    finished: bool = False
    weight: float = 1.0  # CPU-seconds a cell of it is expected to cost

    @property
    def cells(self) -> int:
        if self.finished or self.planned is None:
            return self.handed
        return max(self.planned, self.handed)


class Progress:
    """One bar over the cells of every study of a run.

    With a `plan` (each study's expected cells) the total is fixed before the first cell; it
    only changes when a study hands in more cells than planned (then it grows) or finishes
    with fewer (then it shrinks). A study missing from the plan adds its cells when it starts.
    The time left weighs each cell by its study's CPU per cell in the plan (cells differ in
    cost by orders of magnitude across studies), divides the work left by the rate measured so
    far (blended with `workers` CPU-seconds per second over the first `PRIOR_S` seconds), and
    never increases: when the estimate gets later, the predicted finish waits until the clock
    reaches it. `clock` is injectable for tests."""

    def __init__(
        self,
        desc: str = "cells",
        every_s: float = LOG_EVERY_S,
        *,
        plan: Mapping[str, Planned] | None = None,
        workers: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        draw: bool | None = None,
    ) -> None:
        from tqdm import tqdm

        self._lock = threading.Lock()
        self._clock = clock
        self._counts = _plan_counts(plan or {})
        self._prior = float(workers) if workers and _cpu_known(plan or {}) else 0.0
        self._bar = tqdm(
            total=self.total,
            desc=desc,
            unit="cell",
            file=sys.stderr,
            disable=None if draw is None else not draw,
            dynamic_ncols=True,
            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]",  # ", " + postfix
        )
        self._t0 = self._last = clock()
        self._finish: float | None = None  # the predicted end (clock time)
        self._t_eta = self._t0
        self._every = every_s
        self._bar.set_postfix_str(self._left_text(self._t0))

    # -- counting ---------------------------------------------------------------------------
    @property
    def total(self) -> int:
        """Cells of the run as known now (fixed from the start when every study is planned)."""
        return sum(c.cells for c in self._counts.values())

    @property
    def done(self) -> int:
        return sum(c.done for c in self._counts.values())

    @property
    def fixed(self) -> bool:
        """Whether every study that handed in cells was planned (the total is not a floor)."""
        return all(c.planned is not None for c in self._counts.values())

    def _count(self, study: str | None) -> _Count:
        name = study if study is not None else _study_name()
        if name not in self._counts:
            self._counts[name] = _Count(weight=_mean_weight(self._counts))
        return self._counts[name]

    def add(self, total: int, done: int = 0, *, study: str | None = None) -> None:
        """A sweep of `study` (default: the calling thread's) hands in `total` cells, `done`
        of them journaled already."""
        with self._lock:
            c = self._count(study)
            c.handed += total
            c.done += done
            c.reused += done
            self._sync(done)

    def advance(self, n: int = 1, *, study: str | None = None) -> None:
        """`n` cells of `study` (default: the calling thread's) finished."""
        with self._lock:
            self._count(study).done += n
            self._sync(n, redraw=False)  # tqdm redraws at its own pace
            now = self._clock()
            if self._bar.disable and now - self._last >= self._every:
                self._last = now
                print(self.status(now), file=sys.stderr, flush=True)

    def finish(self, study: str) -> None:
        """`study` ended: its cells are what it handed in (a plan that was too high shrinks)."""
        with self._lock:
            self._count(study).finished = True
            self._sync(0)

    def _sync(self, n: int, redraw: bool = True) -> None:
        """The bar's total, time left and position as counted; `redraw` at once (a study
        starting or ending), else when tqdm next redraws."""
        self._bar.total = self.total
        self._bar.set_postfix_str(self._left_text(self._clock()), refresh=False)
        self._bar.update(n)
        if redraw:
            self._bar.refresh()

    # -- the estimate -----------------------------------------------------------------------
    def left_s(self, now: float) -> float:
        """Seconds left (nan before anything can be estimated); never more than the previous
        estimate minus the time since it."""
        raw = self._raw_left(now)
        if math.isnan(raw):
            return raw
        end = now + raw
        if self._finish is not None and end > self._finish:
            end = min(end, self._finish + max(0.0, now - self._t_eta))
        self._finish, self._t_eta = end, now
        return max(0.0, end - now)

    def _raw_left(self, now: float) -> float:
        counts = self._counts.values()
        work_left = sum(c.weight * max(0, c.cells - c.done) for c in counts)
        work_now = sum(c.weight * (c.done - c.reused) for c in counts)
        elapsed = max(0.0, now - self._t0)
        if self._prior:
            rate = (work_now + self._prior * PRIOR_S) / (elapsed + PRIOR_S)
        else:
            rate = work_now / elapsed if work_now > 0 and elapsed > 0 else math.nan
        if work_left <= 0:
            return 0.0
        return work_left / rate if rate > 0 else math.nan

    def _left_text(self, now: float) -> str:
        left = self.left_s(now)
        return "time left unknown" if math.isnan(left) else f"about {_duration(left)} left"

    def status(self, now: float) -> str:
        """`[progress] done/total cells, elapsed, time left` (printed where no bar is drawn:
        stderr is not a terminal, as in CI logs); "at least" when some study was not planned."""
        floor = "" if self.fixed else "at least "
        return (
            f"[progress] {self.done}/{floor}{self.total} cells, {now - self._t0:.0f} s elapsed, "
            f"{self._left_text(now)}"
        )

    def line(self, text: str) -> None:
        """A line on stderr above the bar (printed even when the bar is off: not a terminal)."""
        with self._lock:
            if self._bar.disable:
                print(text, file=sys.stderr, flush=True)
            else:
                self._bar.write(text, file=sys.stderr)

    def close(self) -> None:
        with self._lock:
            self._bar.close()


def _study_name() -> str:
    stats = current_study()
    return stats.study if stats is not None else ""


def _cpu_known(plan: Mapping[str, Planned]) -> bool:
    return any(p.cells > 0 and p.cpu_s > 0 for p in plan.values())


def _plan_counts(plan: Mapping[str, Planned]) -> dict[str, _Count]:
    """Each planned study's count, weighted by its CPU per cell (a study without a measured
    CPU: the mean of those with one; none measured: every cell weighs 1)."""
    counts = {
        name: _Count(planned=p.cells, weight=p.cpu_s / p.cells if p.cells and p.cpu_s > 0 else 0)
        for name, p in plan.items()
    }
    mean = _mean_weight(counts)
    for c in counts.values():
        c.weight = c.weight or mean
    return counts


def _mean_weight(counts: Mapping[str, _Count]) -> float:
    """CPU per cell over the studies whose CPU is known (1.0 when none is)."""
    known = [(c.weight * c.cells, c.cells) for c in counts.values() if c.weight > 0 and c.cells]
    cells = sum(n for _, n in known)
    return sum(w for w, _ in known) / cells if cells else 1.0


def _duration(s: float) -> str:
    """12 s, 4 min, 1 h 05 min: a time left as a person reads it."""
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


def current_progress() -> Progress | None:
    """The run's one bar (None outside `progress`; `runstate.PROGRESS`)."""
    bar = runstate.PROGRESS.get()
    return bar if isinstance(bar, Progress) else None


@contextmanager
def progress(
    desc: str = "cells",
    *,
    plan: Mapping[str, Planned] | None = None,
    workers: int | None = None,
) -> Iterator[Progress]:
    """The run's one bar; sweeps inside the block report to it instead of drawing their own.
    `plan` and `workers`: see `Progress` (ignored when nested in another run's bar)."""
    bar = current_progress()
    if bar is not None:  # nested: keep the outer bar
        yield bar
        return
    bar = Progress(desc, plan=plan, workers=workers)
    token = runstate.PROGRESS.set(bar)
    try:
        yield bar
    finally:
        runstate.PROGRESS.reset(token)
        bar.close()


# ---- running studies -----------------------------------------------------------------------
@dataclass(frozen=True)
class Study:
    """A unit of a run: `run()` computes and writes its files and returns their paths."""

    name: str
    kind: str
    subject: str
    size: str
    seed: int
    command: str
    run: Callable[[], Sequence[Path]]
    extra_modules: tuple[str, ...] = ()


def study_version(subject: str, extra_modules: Sequence[str] = ()) -> str:
    """The code version a study's journals are keyed on (see `codeversion.scope_version`)."""
    if subject:
        return codeversion.scope_version(subject, *extra_modules)
    return codeversion.modules_version(tuple(sorted(extra_modules)))


def manifest_path(outdir: Path, name: str) -> Path:
    return Path(outdir) / MANIFEST_DIR / f"{name}.json"


def write_manifest(outdir: Path, stats: StudyStats) -> Path:
    path = manifest_path(outdir, stats.study)
    ensure_output_dir(path.parent)
    atomic_write_text(path, json.dumps(stats.to_dict(), indent=1) + "\n")
    return path


def read_manifests(outdir: Path) -> dict[str, dict[str, Any]]:
    """Every study manifest under OUTDIR/manifests, by study name (unreadable ones skipped)."""
    folder = Path(outdir) / MANIFEST_DIR
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and "study" in data:
            out[str(data["study"])] = data
    return out


def run_study(study: Study, outdir: Path) -> StudyStats:
    """Run one study with its version pinned; record its manifest whether it succeeds or not."""
    stats = StudyStats(
        study=study.name,
        kind=study.kind,
        subject=study.subject,
        size=study.size,
        seed=study.seed,
        code_version=study_version(study.subject, study.extra_modules),
        tree_version=codeversion.code_version(),
        command=study.command,
    )
    token = runstate.STUDY.set(stats)
    t0, c0 = time.perf_counter(), time.thread_time()
    try:
        with codeversion.pinned(stats.code_version):
            files = study.run()
        stats.files = [str(p) for p in files]
        stats.status = "ok"
    except Exception as exc:  # noqa: BLE001 - reported with the study's name by run_studies
        stats.status = "failed"
        stats.error = f"{type(exc).__name__}: {exc}"
        if not isinstance(exc, InvalidInput):
            stats.error += "\n" + traceback.format_exc(limit=-4)
    finally:
        runstate.STUDY.reset(token)
    stats.wall_s = time.perf_counter() - t0
    stats.main_cpu_s = time.thread_time() - c0
    stats.finished_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    write_manifest(outdir, stats)
    return stats


def study_line(s: StudyStats) -> str:
    """`[study] done/total cells (computed now) wall, CPU, peak`: the per-study stderr line."""
    mark = "" if s.status == "ok" else f"  FAILED: {s.error.splitlines()[0]}"
    return (
        f"[{s.study}] {s.cells - s.failed}/{s.cells} cells ({s.computed} computed now), "
        f"{s.wall_s:.1f} s wall, CPU {s.cell_cpu_s:.1f} s in cells + {s.main_cpu_s:.1f} s here, "
        f"peak {s.peak_mb:.0f} MB{mark}"
    )


def run_studies(
    studies: Sequence[Study],
    outdir: Path,
    *,
    parallel: bool,
    plan: Mapping[str, Planned] | None = None,
    workers: int | None = None,
) -> list[StudyStats]:
    """Run the studies (at once, in threads, when `parallel`; else one after another), each
    printing its line as it finishes; returns their stats in the given order. A failing study
    does not stop the others. `plan`: each study's expected cells, so that the run's bar has
    its total before the first cell (`Progress`); `workers`: the CPUs that run cells."""
    from schedlab.experiments.sweep import current_engine

    start = getattr(current_engine(), "start", None)
    if start is not None:
        start()  # fork the workers before any study thread exists
    with progress(plan=plan, workers=workers) as bar:
        if not parallel or len(studies) <= 1:
            out = []
            for s in studies:
                out.append(run_study(s, outdir))
                _finished(bar, out[-1])
            return out
        done: dict[int, StudyStats] = {}
        pool = ThreadPoolExecutor(max_workers=len(studies), thread_name_prefix="study")
        try:
            futures = {
                pool.submit(copy_context().run, run_study, s, outdir): i
                for i, s in enumerate(studies)
            }
            for fut in as_completed(futures):
                done[futures[fut]] = fut.result()
                _finished(bar, done[futures[fut]])
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM reaches this (main) thread only: end the workers first, so the
            # study threads stop at their next outcome instead of waiting for every cell.
            from schedlab.experiments.sweep import interrupt

            interrupt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return [done[i] for i in range(len(studies))]


def _finished(bar: Progress, stats: StudyStats) -> None:
    """A study ended: settle its cells on the bar and print its line."""
    bar.finish(stats.study)
    bar.line(study_line(stats))


def raise_failures(stats: Sequence[StudyStats]) -> None:
    """InvalidInput listing every failed study (after all of them ran)."""
    failed = [s for s in stats if s.status != "ok"]
    if failed:
        lines = [f"{len(failed)} of {len(stats)} studies failed; every other finished:"]
        lines += [f"  {s.study}: {s.error}" for s in failed]
        raise InvalidInput("\n".join(lines))
