"""The one reader of Philly job files (Jeon et al., ATC 2019) and the one shipped sample.

A Philly file is a CSV with a header naming at least `timestamp, duration, num_gpus`; an
optional `cluster` column (virtual-cluster id) and any other columns (e.g. `gpu_time`) may
follow in any order. Accepted values:

- `timestamp`: an ISO date-time (`2017-10-09 07:01:55`, `2017-10-09T07:01:55`, optional
  fraction and UTC offset; a time without an offset is UTC) or a plain number of seconds;
- `duration`: a positive, finite number of seconds;
- `num_gpus`: a positive integer (`2` or `2.0`);
- `cluster`: a non-empty id; a file without the column is one cluster, `ONE_CLUSTER`
  (`has_cluster_column` is then False, and sojourn's workload says so in its warnings: its
  checkpoint model takes duration quantiles per virtual cluster, so one cluster means
  quantiles over the whole file; Synergy does not read the column).

Blank lines and lines starting with `#` (also before the header) are skipped; a UTF-8 BOM is
dropped; other encodings are refused naming the file. Durations and numeric timestamps are at
most 1e12 s, GPU counts at most 10^6. Every bad row is reported at once (up to
`MAX_REPORTED`) in one
`InvalidInput` naming the file, the row (its line in the file) and the field. Subjects adapt
the parsed `PhillyTrace` to their workloads (`experiments/sojourn/workload_philly.py`,
`experiments/synergy/traces.py`). The shipped 2,000-job sample and its attribution are in
`experiments/traces/data/`.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.validate import MAX_MAGNITUDE, read_text_file

REQUIRED_COLUMNS = ("timestamp", "duration", "num_gpus")
CLUSTER_COLUMN = "cluster"
ONE_CLUSTER = "all"
SAMPLE_NAME = "philly_sample.csv"
MAX_REPORTED = 20
MAX_GPUS = 1_000_000  # num_gpus of one job


@dataclass(frozen=True)
class PhillyTrace:
    """Parsed rows sorted by arrival (stable); `line` is each job's line in the file."""

    arrival_s: np.ndarray  # seconds since the first arrival
    duration_s: np.ndarray
    gpus: np.ndarray
    cluster: np.ndarray  # int codes into cluster_names
    cluster_names: tuple[str, ...]
    line: np.ndarray
    source: str
    has_cluster_column: bool = True

    @property
    def n(self) -> int:
        return len(self.arrival_s)


@contextmanager
def sample_path() -> Iterator[Path]:
    """Filesystem path of the shipped 2,000-job sample (works from an installed package)."""
    ref = resources.files("schedlab.experiments.traces.data").joinpath(SAMPLE_NAME)
    with resources.as_file(ref) as p:
        yield Path(p)


def parse_timestamp(text: str) -> float | None:
    """Seconds since the epoch for an ISO date-time (naive = UTC) or a number; else None."""
    try:
        value = float(text)
    except ValueError:
        pass
    else:
        return value if math.isfinite(value) and abs(value) <= MAX_MAGNITUDE else None
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def positive_int(text: str) -> int | None:
    """An integer GPU count in 1..MAX_GPUS written as `2` or `2.0`; None otherwise."""
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value) or value != int(value) or not 1 <= value <= MAX_GPUS:
        return None
    return int(value)


def _parse_row(
    cells: dict[str, str], line: int, problems: list[str]
) -> tuple[float, float, int, str] | None:
    """One row -> (seconds, duration, gpus, cluster), or None with its problems noted."""
    bad = len(problems)
    where = f"row {line}, field"
    ts = cells["timestamp"]
    t = parse_timestamp(ts)
    if t is None:
        problems.append(
            f"{where} 'timestamp': not a date-time like 2017-10-09 07:01:55 "
            f"or a number of seconds up to {MAX_MAGNITUDE:g} (got {ts[:40]!r})"
        )
    raw = cells["duration"]
    try:
        d = float(raw)
    except ValueError:
        d = math.nan
    if not (math.isfinite(d) and 0 < d <= MAX_MAGNITUDE):
        problems.append(
            f"{where} 'duration': must be a number of seconds in (0, {MAX_MAGNITUDE:g}] "
            f"(got {raw[:40]!r})"
        )
    raw = cells["num_gpus"]
    g = positive_int(raw)
    if g is None:
        problems.append(
            f"{where} 'num_gpus': must be an integer in 1..{MAX_GPUS} (got {raw[:40]!r})"
        )
    c = cells.get(CLUSTER_COLUMN, ONE_CLUSTER)
    if not c:
        problems.append(f"{where} 'cluster': empty; give the virtual-cluster id")
    if len(problems) > bad or t is None or g is None:
        return None
    return t, d, g, c


def _read_rows(
    p: Path, fh: Iterator[str]
) -> tuple[list[tuple[float, float, int, str]], list[int], bool]:
    """Validated rows, their line numbers and whether the header names the cluster column;
    InvalidInput listing every problem."""
    reader = csv.reader(fh)
    try:
        header = [h.strip() for h in next(reader, [])]
        while not header or not any(header) or header[0].startswith("#"):  # comments, blanks
            nxt = next(reader, None)
            if nxt is None:
                break
            header = [h.strip() for h in nxt]
    except (csv.Error, UnicodeDecodeError) as exc:
        raise InvalidInput(f"header: unreadable CSV ({exc})", source=str(p)) from None
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InvalidInput(
            f"header: missing column(s) {missing}; need {', '.join(REQUIRED_COLUMNS)} "
            f"(and optionally {CLUSTER_COLUMN}) (got {header})",
            source=str(p),
        )
    wanted = [c for c in (*REQUIRED_COLUMNS, CLUSTER_COLUMN) if c in header]
    col = {c: header.index(c) for c in wanted}
    problems: list[str] = []
    rows: list[tuple[float, float, int, str]] = []
    lines: list[int] = []
    try:
        for cells in reader:
            line = reader.line_num
            if all(not c.strip() for c in cells) or cells[0].lstrip().startswith("#"):
                continue
            if len(cells) != len(header):
                problems.append(
                    f"row {line}: wrong number of fields (expected {len(header)}, "
                    f"found {len(cells)})"
                )
            else:
                parsed = _parse_row({c: cells[i].strip() for c, i in col.items()}, line, problems)
                if parsed is not None:
                    rows.append(parsed)
                    lines.append(line)
            if len(problems) >= MAX_REPORTED:
                problems.append(f"stopped after {MAX_REPORTED} problems")
                break
    except (csv.Error, UnicodeDecodeError) as exc:
        problems.append(f"after row {reader.line_num}: unreadable CSV ({exc})")
    if problems:
        raise InvalidInput(problems, source=str(p))
    return rows, lines, CLUSTER_COLUMN in col


def read_philly(path: str | Path) -> PhillyTrace:
    """Read and validate a Philly CSV; InvalidInput names the file, row and field."""
    p = Path(path)
    text = read_text_file(p, "the trace file")  # UTF-8 (BOM dropped), size cap, regular file
    rows, lines, has_cluster = _read_rows(p, iter(io.StringIO(text, newline="")))
    if not rows:
        raise InvalidInput("no job rows after the header", source=str(p))
    t = np.array([r[0] for r in rows])
    order = np.argsort(t, kind="stable")
    names = sorted({r[3] for r in rows})
    code = {c: i for i, c in enumerate(names)}
    return PhillyTrace(
        arrival_s=t[order] - t[order[0]],
        duration_s=np.array([r[1] for r in rows])[order],
        gpus=np.array([r[2] for r in rows], dtype=np.int64)[order],
        cluster=np.array([code[r[3]] for r in rows], dtype=np.int64)[order],
        cluster_names=tuple(names),
        line=np.array(lines, dtype=np.int64)[order],
        source=str(p),
        has_cluster_column=has_cluster,
    )


def read_sample() -> PhillyTrace:
    """The shipped sample, its `source` naming it as such."""
    with sample_path() as p:
        trace = read_philly(p)
    return replace(trace, source=f"{SAMPLE_NAME} (shipped sample)")
