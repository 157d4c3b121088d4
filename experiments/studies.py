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
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from schedlab.experiments import codeversion
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

    def count_cells(self, total: int, reused_cpu_s: float) -> None:
        with self._lock:
            self.cells += total
            self.cell_cpu_s += reused_cpu_s

    def count_computed(self, cost: dict[str, float] | None, ok: bool) -> None:
        with self._lock:
            if not ok:
                self.failed += 1
                return
            self.computed += 1
            cpu = float((cost or {}).get("cpu_s", 0.0))
            self.cell_cpu_s += cpu
            self.new_cell_cpu_s += cpu
            self.peak_mb = max(self.peak_mb, float((cost or {}).get("peak_mb", 0.0)))

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}
        out["files"] = list(self.files)
        out["cpu_s"] = self.cpu_s
        return out


_STUDY: ContextVar[StudyStats | None] = ContextVar("schedlab_study", default=None)


def current_study() -> StudyStats | None:
    """The study whose thread this is (None outside `run_study`)."""
    return _STUDY.get()


# ---- the one progress bar ------------------------------------------------------------------
class Progress:
    """One bar over the cells of every study of a run (it grows as studies hand in cells)."""

    def __init__(self, desc: str = "cells", every_s: float = LOG_EVERY_S) -> None:
        from tqdm import tqdm

        self._lock = threading.Lock()
        self._bar = tqdm(
            total=0,
            desc=desc,
            unit="cell",
            file=sys.stderr,
            disable=None,
            dynamic_ncols=True,
            smoothing=0.05,
        )
        self._total = self._done = 0
        self._t0 = self._last = time.perf_counter()
        self._every = every_s

    def add(self, total: int, done: int = 0) -> None:
        with self._lock:
            self._total += total
            self._done += done
            self._bar.total += total
            self._bar.update(done)
            self._bar.refresh()

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self._done += n
            self._bar.update(n)
            now = time.perf_counter()
            if self._bar.disable and now - self._last >= self._every:
                self._last = now
                print(self.status(now), file=sys.stderr, flush=True)

    def status(self, now: float) -> str:
        """`[progress] done/total cells, elapsed, time left` (printed where no bar is drawn:
        stderr is not a terminal, as in CI logs). The estimate assumes the cells left cost what
        the cells so far did on average."""
        elapsed = now - self._t0
        left = elapsed / self._done * (self._total - self._done) if self._done else float("nan")
        return (
            f"[progress] {self._done}/{self._total} cells, {elapsed:.0f} s elapsed, "
            f"about {left:.0f} s left"
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


_PROGRESS: ContextVar[Progress | None] = ContextVar("schedlab_progress", default=None)


def current_progress() -> Progress | None:
    return _PROGRESS.get()


@contextmanager
def progress(desc: str = "cells") -> Iterator[Progress]:
    """The run's one bar; sweeps inside the block report to it instead of drawing their own."""
    bar = current_progress()
    if bar is not None:  # nested: keep the outer bar
        yield bar
        return
    bar = Progress(desc)
    token = _PROGRESS.set(bar)
    try:
        yield bar
    finally:
        _PROGRESS.reset(token)
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
    token = _STUDY.set(stats)
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
        _STUDY.reset(token)
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


def run_studies(studies: Sequence[Study], outdir: Path, *, parallel: bool) -> list[StudyStats]:
    """Run the studies (at once, in threads, when `parallel`; else one after another), each
    printing its line as it finishes; returns their stats in the given order. A failing study
    does not stop the others."""
    from schedlab.experiments.sweep import current_engine

    start = getattr(current_engine(), "start", None)
    if start is not None:
        start()  # fork the workers before any study thread exists
    with progress() as bar:
        if not parallel or len(studies) <= 1:
            out = []
            for s in studies:
                out.append(run_study(s, outdir))
                bar.line(study_line(out[-1]))
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
                bar.line(study_line(done[futures[fut]]))
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM reaches this (main) thread only: end the workers first, so the
            # study threads stop at their next outcome instead of waiting for every cell.
            from schedlab.experiments.sweep import interrupt

            interrupt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return [done[i] for i in range(len(studies))]


def raise_failures(stats: Sequence[StudyStats]) -> None:
    """InvalidInput listing every failed study (after all of them ran)."""
    failed = [s for s in stats if s.status != "ok"]
    if failed:
        lines = [f"{len(failed)} of {len(stats)} studies failed; every other finished:"]
        lines += [f"  {s.study}: {s.error}" for s in failed]
        raise InvalidInput("\n".join(lines))
