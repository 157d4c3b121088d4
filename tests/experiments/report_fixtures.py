"""One builder of the small results folders the report tests read.

The report tests (test_report*.py) each need a results folder holding slaq-prediction's table
and its manifest, differing only in the table's rows, the code version the manifest names,
whether the manifest lists the table and whether a run record sits beside it. They build it
here, so that a change to the manifest's fields is made once.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PREDICTION_FIELDS = ["curve", "authors_fit_pct", "authors_naive_pct"]
LOGREG = {"curve": "logreg", "authors_fit_pct": 4.269, "authors_naive_pct": 6.147}
SVM_NO_NAIVE = {"curve": "svm-poly-mnist", "authors_fit_pct": 9.46, "authors_naive_pct": ""}
SMALL_RUN = {"size": "small", "seed": 0, "command": "schedlab reproduce --size small --seed 0"}


def prediction_version() -> str:
    """The code version of slaq-prediction now: a manifest naming it is fresh."""
    from schedlab.experiments.report.collect import current_versions

    return current_versions({"slaq-prediction"})["slaq-prediction"]


def manifest(study: str = "slaq-prediction", files: Any = None, **change: Any) -> dict[str, Any]:
    """A study manifest of size small, seed 0, status ok, listing `files` (default none), with
    `change` applied to its fields. `files` is written as given: a hostile test passes a string."""
    m = {"study": study, "kind": "figure", "subject": "slaq", "size": "small", "seed": 0,
         "code_version": prediction_version(), "status": "ok", "command": "cmd", "cells": 3,
         "computed": 3, "wall_s": 1.0, "cpu_s": 2.0, "peak_mb": 100.0,
         "files": [] if files is None else files, "finished_at": "now"}  # fmt: skip
    m.update(change)
    return m


def write_table(path: Path, rows: Sequence[dict[str, Any]]) -> str:
    """`rows` as a CSV file at `path` (columns from the first row); its path as a string."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return str(path)


def results_folder(
    tmp_path: Path,
    *,
    rows: Sequence[dict[str, Any]] = (LOGREG,),
    version: str | None = None,
    listed: bool = True,
    run: dict[str, Any] | None = None,
) -> Path:
    """`tmp_path/results` with slaq-prediction's table of `rows` and its manifest.

    The manifest names `version` (default: the current code's, so the rows are fresh) and lists
    the table when `listed`; `run`, when given, is written as the run record manifests/run.json.
    """
    res = tmp_path / "results"
    table = write_table(res / "slaq" / "slaq-prediction.csv", rows)
    (res / "manifests").mkdir()
    m = manifest(files=[table] if listed else [], code_version=version or prediction_version())
    (res / "manifests" / "slaq-prediction.json").write_text(json.dumps(m))
    if run is not None:
        (res / "manifests" / "run.json").write_text(json.dumps(run))
    return res
