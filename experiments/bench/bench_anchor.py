"""Benchmark: `schedlab lop solve` side by side with an external exact solver of PACE 2024
one-sided crossing minimization, on the same graphs, one process at a time.

Issue #41's anchor is the branch-and-cut of Jünger, Jünger, Mutzel and Reinelt
(pauljngr/PACE2024, GPL-3.0), built by the user outside the project tree and named here by
its path; nothing of it ships with schedlab. Any solver that reads a PACE `.gr` graph on
standard input and writes the free vertices' ids, one per line, takes its place.

For every graph and repeat, the anchor runs (`ANCHOR -timelimitS < FILE`), then lpcut
(`schedlab lop solve FILE --json --time-limit S`, the console command beside this Python).
Each process's CPU seconds (user + system, its waited-for children included: lpcut's forked
MIP) and peak memory come from `os.wait4`, as `/usr/bin/time` reports them. Both orders are
recounted from the edges (`OcrGraph.crossings`), so a value in the table is never a solver's
word. The table gives medians over the repeats and the ratio lpcut / anchor of the median CPU
seconds; the anchor's run counts as a proof when it ended before ANCHOR_PROVEN_SHARE of its
time limit (the anchor stops early only when its tree is done).

Run: `python -m schedlab.experiments.bench bench_anchor --lop-dir DIR --anchor PATH
[--time-limit S] [--repeats K] [--out FILE]`. With `--out`, every finished run is appended to
FILE (JSON lines) at once, and a rerun with the same FILE skips the runs it holds (keyed by
the file's name, solver, repeat, time limit and the anchor's path: one FILE per folder): an
interrupted sweep loses no finished run; the table is also written as Markdown to FILE with
the suffix `.md`. Without `--anchor` (`make bench`), only lpcut's
side runs; without `--lop-dir`, on seeded random graphs.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedlab.experiments.output import format_table
from schedlab.experiments.registry import register_benchmark
from schedlab.solvers.errors import InvalidInput

if TYPE_CHECKING:
    from schedlab.solvers.lop.graph import OcrGraph

TIME_LIMIT_S = 120.0
QUICK_LIMIT_S = 30.0
REPEATS = 1
ANCHOR_PROVEN_SHARE = 0.95  # an anchor run that ended before this share of its limit proved
TARGET_RATIO = 1.5  # issue #41: lpcut within 1.5x of the anchor's CPU seconds
KILL_GRACE_S = 60.0  # a process still running this long after its own limit is killed
RANDOM = ((40, 40, 3), (60, 60, 7))  # (n0, n1, seed) of `lop_graph.random_ocr_graph`
QUICK_RANDOM = ((40, 40, 3),)
SOLVERS = ("anchor", "lpcut")


@dataclass(frozen=True)
class Measured:
    """One finished process: exit status, CPU and wall seconds, peak resident MB, stdout."""

    rc: int
    cpu_s: float
    wall_s: float
    max_mb: float
    stdout: str


def run_measured(cmd: list[str], stdin_path: Path | None, kill_after_s: float) -> Measured:
    """Run `cmd` (stdin from `stdin_path`) to its end through the small launcher
    `measure_child.py` (so that its peak memory is its own, not this process's), killed if it
    runs `kill_after_s` seconds; what `os.wait4` says of it."""
    launcher = Path(__file__).with_name("measure_child.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stdout"
        spec = {"cmd": cmd, "stdin": str(stdin_path) if stdin_path else None,
                "stdout": str(out), "kill_after_s": kill_after_s}  # fmt: skip
        done = subprocess.run([sys.executable, "-I", "-S", str(launcher), json.dumps(spec)],
                              capture_output=True, text=True, check=False)  # fmt: skip
        try:
            m = json.loads(done.stdout)
        except ValueError as exc:
            raise InvalidInput(f"the launcher failed: {done.stderr.strip()[-300:]}") from exc
        if "error" in m:
            raise InvalidInput(m["error"])
        text = out.read_text("utf-8", "replace") if out.exists() else ""
    return Measured(int(m["rc"]), float(m["cpu_s"]), float(m["wall_s"]), float(m["max_mb"]), text)


def anchor_order(text: str, n0: int, n1: int) -> list[int] | str:
    """The anchor's output as 0-based free vertices, or why it is not an order of them."""
    ids: list[int] = []
    for ln, line in enumerate(text.splitlines(), 1):
        tok = line.split()
        if not tok or tok[0] == "c":
            continue
        if len(tok) != 1 or not tok[0].lstrip("-").isdigit():
            return f"line {ln}: {line[:40]!r} is not one vertex id"
        ids.append(int(tok[0]) - n0 - 1)
    if sorted(ids) != list(range(n1)):
        return f"{len(ids)} ids, not the {n1} free vertices {n0 + 1}..{n0 + n1} once each"
    return ids


def schedlab_command() -> list[str]:
    """The `schedlab` console command of this Python's environment (what a user runs)."""
    exe = shutil.which("schedlab", path=str(Path(sys.executable).parent))
    if exe is None:
        raise InvalidInput(
            f"no `schedlab` command beside {sys.executable}: install the project (make venv)"
        )
    return [exe]


def measure(
    solver: str, path: Path, g: OcrGraph, anchor: str | None, limit: float
) -> dict[str, Any]:
    """One run of `solver` on the graph g read from `path`: its record (recounted value
    included)."""
    kill = limit + KILL_GRACE_S
    rec: dict[str, Any] = {"instance": path.name, "solver": solver, "limit": limit}
    if solver == "anchor":
        assert anchor is not None
        m = run_measured([anchor, f"-timelimit{limit:g}"], path, kill)
        order = anchor_order(m.stdout, g.n0, g.n1)
        status = "proven" if m.cpu_s < ANCHOR_PROVEN_SHARE * limit else "limit"
    else:
        m = run_measured([*schedlab_command(), "lop", "solve", str(path), "--json",
                          "--time-limit", f"{limit:g}"], None, kill)  # fmt: skip
        order, status, bound = _lpcut_order(m.stdout, g.n0, g.n1)
        rec["bound"] = bound
    rec.update(rc=m.rc, cpu_s=round(m.cpu_s, 3), wall_s=round(m.wall_s, 3),
               max_mb=round(m.max_mb, 1))  # fmt: skip
    if isinstance(order, str) or m.rc != 0:
        rec.update(status="failed", value=None, error=f"rc {m.rc}; {order}"[:200])
    else:
        rec.update(status=status, value=g.crossings(order))
    return rec


def _lpcut_order(text: str, n0: int, n1: int) -> tuple[list[int] | str, str, float | None]:
    """lpcut's JSON: its order (0-based, or why not), status and bound."""
    try:
        d = json.loads(text)
        order = [int(i) - n0 - 1 for i in d["order"]]
    except (ValueError, KeyError, TypeError):
        return f"no JSON result: {text[:80]!r}", "failed", None
    if sorted(order) != list(range(n1)):
        return "its order is not a permutation of the free vertices", "failed", None
    return order, str(d["status"]), d.get("bound")


def graph_files(quick: bool, lop_dir: str | None, tmp: Path) -> list[Path]:
    """Every `.gr` in lop_dir (natural order), else seeded random graphs written to tmp."""
    from schedlab.solvers.lop.graph import random_ocr_graph, write_ocr_text

    if lop_dir is not None:
        files = sorted(Path(lop_dir).glob("*.gr"), key=lambda p: (len(p.stem), p.stem))
        if not files:
            raise InvalidInput(f"--lop-dir: no .gr file in {lop_dir}")
        return files
    out = []
    for n0, n1, seed in QUICK_RANDOM if quick else RANDOM:
        g = random_ocr_graph(n0, n1, seed, mean_degree=3.0, span=n1 // 2, isolated_share=0.0)
        p = tmp / f"random-{n0}x{n1}-seed{seed}.gr"
        p.write_text(write_ocr_text(g))
        out.append(p)
    return out


class RunLog:
    """The finished runs, in memory and (with a path) appended to a JSON-lines file at once,
    keyed by instance, solver, repeat, time limit and the anchor's path."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path is not None else None
        self.records: list[dict[str, Any]] = []
        self.keys: set[tuple[Any, ...]] = set()
        if self.path is not None and self.path.exists():
            for ln, line in enumerate(self.path.read_text().splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    self.keys.add(self._key(rec))
                except (ValueError, KeyError, TypeError) as exc:
                    raise InvalidInput(
                        f"--out {self.path}, line {ln}: not a run record of this benchmark "
                        f"({exc}); give another file"
                    ) from exc
                self.records.append(rec)

    @staticmethod
    def _key(rec: dict[str, Any]) -> tuple[Any, ...]:
        return (rec["instance"], rec["solver"], int(rec["rep"]), float(rec["limit"]),
                rec.get("anchor"))  # fmt: skip

    def has(self, rec: dict[str, Any]) -> bool:
        return self._key(rec) in self.keys

    def add(self, rec: dict[str, Any]) -> None:
        self.records.append(rec)
        self.keys.add(self._key(rec))
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps(rec) + "\n")

    def runs(self, instance: str, solver: str, limit: float, anchor: str | None) -> list[dict]:
        a = anchor if solver == "anchor" else None
        return [r for r in self.records if r["instance"] == instance and r["solver"] == solver
                and float(r["limit"]) == limit and r.get("anchor") == a]  # fmt: skip


def sweep(files: list[Path], anchor: str | None, limit: float, repeats: int,
          log: RunLog) -> Iterator[tuple[str, int]]:  # fmt: skip
    """Measure every file `repeats` times (the anchor, then lpcut), skipping the runs `log`
    holds; yields each file's name and free vertices once its runs are done (each graph is
    read once, for the recounts and the table)."""
    from tqdm import tqdm

    from schedlab.solvers.lop.graph import read_ocr_file

    solvers = SOLVERS if anchor is not None else SOLVERS[1:]
    for path in tqdm(files, desc="graphs", unit="graph", file=sys.stderr, disable=None):
        g = read_ocr_file(path)
        for rep in range(repeats):
            for solver in solvers:
                key = {"instance": path.name, "solver": solver, "rep": rep, "limit": limit,
                       "anchor": anchor if solver == "anchor" else None}  # fmt: skip
                if log.has(key):
                    continue
                rec = measure(solver, path, g, anchor, limit)
                log.add({**key, **rec})
        yield path.name, g.n1


def _num(x: Any) -> str:
    """A bound as the table prints it: integral values without a fraction."""
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def _cell(runs: list[dict[str, Any]], field: str) -> str:
    """The median of `field` over the runs, with the range where there are several."""
    xs = [float(r[field]) for r in runs]
    if not xs:
        return "-"
    med = statistics.median(xs)
    return f"{med:.2f}" if len(xs) == 1 else f"{med:.2f} ({min(xs):.2f}-{max(xs):.2f})"


@dataclass(frozen=True)
class Side:
    """One instance's runs of both solvers, and what the table says of them."""

    name: str
    n1: int
    theirs: list[dict[str, Any]]
    ours: list[dict[str, Any]]

    @property
    def proven(self) -> bool:
        """The anchor proved it in every run (ended before its limit, a valid order)."""
        return bool(self.theirs) and all(r["status"] == "proven" for r in self.theirs)

    @property
    def optimal(self) -> bool:
        """lpcut said `optimal` in every run."""
        return bool(self.ours) and all(r["status"] == "optimal" for r in self.ours)

    def cpu(self, runs: list[dict[str, Any]]) -> float | None:
        return statistics.median(float(r["cpu_s"]) for r in runs) if runs else None

    @property
    def ratio(self) -> float | None:
        t, u = self.cpu(self.theirs), self.cpu(self.ours)
        return u / t if t and u is not None else None

    @property
    def within(self) -> str:
        """yes / no against TARGET_RATIO where the anchor proved, else -."""
        if not self.proven:
            return "-"
        r = self.ratio
        return "yes" if self.optimal and r is not None and r <= TARGET_RATIO else "no"

    @property
    def values(self) -> str:
        """agree / DIFFER where both proved every run, else -."""
        if not (self.proven and self.optimal):
            return "-"
        vals = {r["value"] for r in self.theirs} | {r["value"] for r in self.ours}
        return "agree" if len(vals) == 1 else "DIFFER"

    def row(self) -> list[Any]:
        stem = Path(self.name).stem
        t_vals = sorted({str(r["value"]) for r in self.theirs})
        u_status = sorted({r["status"] for r in self.ours})
        u_vals = sorted({f"{r['value']} / {_num(r.get('bound'))}" for r in self.ours})
        r = self.ratio
        return [f"#{stem}" if stem.isdigit() else self.name, self.n1, "/".join(t_vals) or "-",
                _cell(self.theirs, "cpu_s"), _cell(self.theirs, "max_mb"),
                "/".join(f"`{s}`" for s in u_status) or "-", "; ".join(u_vals) or "-",
                _cell(self.ours, "cpu_s"), _cell(self.ours, "max_mb"),
                f"{r:.2f}x" if r is not None else "-", self.within, self.values]  # fmt: skip


HEADERS = ["instance", "free vertices", "theirs: crossings (recounted)", "theirs: CPU s",
           "theirs: MB", "lpcut: status", "lpcut: value / bound", "lpcut: CPU s", "lpcut: MB",
           "ratio", f"within {TARGET_RATIO}x", "values"]  # fmt: skip


def markdown(sides: list[Side]) -> str:
    """The table as Markdown (for docs/lop.md), one row per instance."""
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(str(c) for c in s.row()) + " |" for s in sides]
    return "\n".join(lines)


def summary(sides: list[Side], limit: float) -> str:
    """Counts over the table: proofs, the target met by anchor-time class, values agreeing."""
    proven = [s for s in sides if s.proven]
    long_ = [s for s in proven if (s.cpu(s.theirs) or 0.0) >= 1.0]
    short = [s for s in proven if s not in long_]
    differ = [s.row()[0] for s in sides if s.values == "DIFFER"]

    def met(ss: list[Side]) -> int:
        return sum(s.within == "yes" for s in ss)

    return (
        f"anchor proved {len(proven)} of {len(sides)} within {limit:g} s; lpcut within "
        f"{TARGET_RATIO}x on {met(proven)} of them: {met(long_)} of {len(long_)} where the "
        f"anchor takes 1 CPU s or more, {met(short)} of {len(short)} under 1 s; values "
        + (f"DIFFER on {', '.join(differ)}" if differ else "agree wherever both proved")
    )


@register_benchmark("bench_anchor")
def run(
    quick: bool = False,
    lop_dir: str | None = None,
    time_limit: float | None = None,
    anchor: str | None = None,
    repeats: int | None = None,
    out: str | None = None,
) -> None:
    """Measure and print the side-by-side table (see the module's docstring)."""
    from schedlab.solvers.validate import check_int, check_time_limit

    time_limit = check_time_limit(time_limit, "--time-limit")
    limit = time_limit if time_limit is not None else QUICK_LIMIT_S if quick else TIME_LIMIT_S
    reps = check_int(repeats if repeats is not None else REPEATS, "--repeats", lo=1, hi=100)
    if anchor is not None:
        anchor = shutil.which(anchor) or anchor
        if not (Path(anchor).is_file() and os.access(anchor, os.X_OK)):
            raise InvalidInput(f"--anchor: {anchor!r} is not an executable file; give the path "
                               "of the built solver (e.g. PACE2024's oscm)")  # fmt: skip
        anchor = str(Path(anchor).resolve())
    else:
        print("no --anchor given: lpcut's side only", flush=True)
    log = RunLog(out)
    with tempfile.TemporaryDirectory() as tmp:
        files = graph_files(quick, lop_dir, Path(tmp))
        sides = []
        for name, n1 in sweep(files, anchor, limit, reps, log):
            theirs, ours = (
                [r for r in log.runs(name, solver, limit, anchor) if int(r["rep"]) < reps]
                for solver in SOLVERS
            )  # the first `reps` repeats only, whatever else the log holds
            sides.append(Side(name, n1, theirs, ours))
            print(format_table(HEADERS, [sides[-1].row()]), flush=True)
    print("\n" + format_table(HEADERS, [s.row() for s in sides]), flush=True)
    print("\n" + summary(sides, limit), flush=True)
    if log.path is not None:
        md = log.path.with_suffix(".md")
        md.write_text(markdown(sides) + "\n\n" + summary(sides, limit) + "\n")
        print(f"\nMarkdown table: {md}", flush=True)
