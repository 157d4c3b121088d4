"""The shapes the report reads, checked field by field: a study manifest, the run record, a
`schedlab verify` verdict file, and a written `report.json` (for `report --check`).

Each check returns a well-typed copy (known fields checked; unknown fields kept only when they
are short scalars) or raises one `InvalidInput` listing every problem as `field: what is
wrong`, quoting at most a short excerpt of the offending value. The templates and the
collector therefore only ever see data of the types they expect.
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedlab.experiments.report.row import ClaimRow
from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.validate import MAX_SEED, is_utf8_text, load_json_file, short
from schedlab.theory.verdict import SIZES, VERDICTS

#: A check of one value: None when fine, else what is wrong (without the field's name).
Check = Callable[[Any], str | None]

MAX_PROBLEMS = 10  # a tampered file is named by its first problems, not all of them
MAX_EXTRA_TEXT = 200  # an unknown text field is kept cut to this many characters
STUDY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # it names files under figures/


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def text(x: Any) -> str | None:
    if not isinstance(x, str):
        return f"must be a string (got {short(x)})"
    return None if is_utf8_text(x) else f"holds a lone UTF-16 surrogate (got {short(x)})"


def study_name(x: Any) -> str | None:
    if not isinstance(x, str) or not STUDY_NAME.fullmatch(x):
        return f"must be a study name (letters, digits, '.', '_', '-'; got {short(x)})"
    return None


def count(x: Any) -> str | None:
    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x <= 10**15:
        return f"must be a whole number from 0 (got {short(x)})"
    return None


def seed(x: Any) -> str | None:
    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x <= MAX_SEED:
        return f"must be an integer in 0..{MAX_SEED} (got {short(x)})"
    return None


def amount(x: Any) -> str | None:
    """A finite number from 0 (seconds, megabytes)."""
    if not _number(x) or not math.isfinite(float(x)) or x < 0:
        return f"must be a finite number from 0 (got {short(x)})"
    return None


def texts(x: Any) -> str | None:
    if not isinstance(x, list) or not all(isinstance(v, str) and is_utf8_text(v) for v in x):
        return f"must be a list of strings (got {short(x)})"
    return None


def optional(check: Check) -> Check:
    return lambda x: None if x is None else check(x)


def one_of(words: tuple[str, ...]) -> Check:
    return lambda x: None if x in words else f"must be one of {', '.join(words)} (got {short(x)})"


#: Every field a study writes (`studies.StudyStats.to_dict`): (check, required). Required are
#: those the report shows or decides with.
MANIFEST_FIELDS: dict[str, tuple[Check, bool]] = {
    "study": (study_name, True),
    "kind": (text, True),
    "subject": (text, True),
    "size": (text, True),
    "seed": (seed, False),
    "code_version": (text, True),
    "tree_version": (text, False),
    "command": (text, False),
    "cells": (count, True),
    "computed": (count, True),
    "failed": (count, False),
    "cell_cpu_s": (amount, False),
    "new_cell_cpu_s": (amount, False),
    "longest_cell_cpu_s": (amount, False),
    "main_cpu_s": (amount, False),
    "wall_s": (amount, True),
    "cpu_s": (amount, True),
    "peak_mb": (amount, True),
    "files": (texts, True),
    "status": (text, True),
    "error": (text, False),
    "finished_at": (text, False),
    "format": (count, False),
}

#: What `schedlab reproduce` records in manifests/run.json (`commands.record_run`).
RUN_FIELDS: dict[str, tuple[Check, bool]] = {
    "command": (text, False),
    "size": (one_of(SIZES), True),  # it names the verify file the report reads
    "seed": (seed, True),
    "engine": (text, False),
    "workers": (optional(count), False),
    "studies": (count, False),
    "failed": (count, False),
    "wall_s": (amount, False),
    "cpu_s": (amount, False),
    "finished_at": (text, False),
    "commit": (text, False),
    "cells": (count, False),
    "study_names": (texts, False),  # the studies of the run: the report shows no other's
}

#: What the report reads of one claim of a `schedlab verify` file (`theory.verdict.Verdict`).
VERDICT_FIELDS: dict[str, tuple[Check, bool]] = {
    "verdict": (one_of(VERDICTS), True),
    "instances": (count, False),
    "summary": (text, False),
    "files": (texts, False),
}


def _extra(x: Any) -> tuple[bool, Any]:
    """(keep?, value) of a field the report does not know: short scalars only."""
    if isinstance(x, str):
        return is_utf8_text(x), x[:MAX_EXTRA_TEXT]
    if x is None or isinstance(x, bool) or (_number(x) and math.isfinite(float(x))):
        return True, x
    return False, None


def check_fields(
    data: Any, fields: dict[str, tuple[Check, bool]], where: str = ""
) -> dict[str, Any]:
    """A copy of the JSON object `data` whose fields passed their checks; InvalidInput listing
    each field that is missing or of the wrong type (`where` prefixes their names)."""
    if not isinstance(data, dict):
        raise InvalidInput(f"{where or 'top level'}: not a JSON object (got {short(data)})")
    problems, out = [], {}
    for name, (check, required) in fields.items():
        if name not in data:
            if required:
                problems.append(f"{where}{name}: missing")
            continue
        bad = check(data[name])
        if bad:
            problems.append(f"{where}{name}: {bad}")
        else:
            out[name] = data[name]
    if problems:
        raise InvalidInput(problems[:MAX_PROBLEMS])
    for name, value in data.items():
        keep, value = _extra(value)
        if name not in fields and keep and isinstance(name, str):
            out[name] = value
    return out


def check_manifest(data: Any) -> dict[str, Any]:
    """A study manifest with every field of the right type (command, finished_at: "" if
    absent)."""
    return {"command": "", "finished_at": "", **check_fields(data, MANIFEST_FIELDS)}


def check_run(data: Any) -> dict[str, Any]:
    """The run record of `schedlab reproduce` (size and seed required)."""
    return check_fields(data, RUN_FIELDS)


def check_verdicts(data: Any) -> dict[str, dict[str, Any]]:
    """The claims of a `schedlab verify` file by id, each with the fields the report reads."""
    if not isinstance(data, dict):
        raise InvalidInput(f"top level: not a JSON object (got {short(data)})")
    claims = data.get("claims", [])
    if not isinstance(claims, list):
        raise InvalidInput(f"claims: must be a list (got {short(claims)})")
    out = {}
    for i, c in enumerate(claims):
        if not isinstance(c, dict):
            raise InvalidInput(f"claims[{i}]: not a JSON object (got {short(c)})")
        cid = c.get("id")
        if not ((isinstance(cid, str) and is_utf8_text(cid)) or count(cid) is None):
            raise InvalidInput(f"claims[{i}].id: must be a string (got {short(cid)})")
        checked = check_fields(c, VERDICT_FIELDS, f"claims[{i}].")
        out[str(cid)] = {k: checked[k] for k in ("id", *VERDICT_FIELDS) if k in checked}
    return out


# ---- report.json (report --check) ----------------------------------------------------------
#: The row fields `report --check` reads; every other known field is checked where present.
CHECK_ROW_FIELDS = ("subject", "claim_id", "study", "code_version", "command")


def _fits(x: Any, tp: Any) -> bool:
    """Whether the JSON value `x` is of the annotated type `tp` (ints pass for floats)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return True
    if tp is type(None):
        return x is None
    if origin in (typing.Union, types.UnionType):
        return any(_fits(x, a) for a in args)
    if origin is list:
        return isinstance(x, list) and all(_fits(v, args[0]) for v in x) if args else True
    if origin is dict:
        return isinstance(x, dict) and all(_fits(v, args[1]) for v in x.values())
    if tp is float:
        return _number(x)
    if tp is int:
        return isinstance(x, int) and not isinstance(x, bool)
    return isinstance(x, tp) if isinstance(tp, type) else True


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _row_problems(r: Any, where: str, hints: dict[str, Any]) -> list[str]:
    if not isinstance(r, dict):
        return [f"{where}: must be an object (got {short(r)})"]
    out = [f"{where}.{k}: missing" for k in CHECK_ROW_FIELDS if k not in r]
    for k, v in r.items():
        if k in CHECK_ROW_FIELDS and not isinstance(v, str):
            out.append(f"{where}.{k}: must be a string (got {short(v)})")
        elif k in hints and k not in CHECK_ROW_FIELDS and not _fits(v, hints[k]):
            out.append(f"{where}.{k}: must be {_type_name(hints[k])} (got {short(v)})")
    return out


def check_report(data: Any) -> list[dict[str, Any]]:
    """The rows of a written report.json, after checking its shape: an object whose `rows` is a
    list of objects, each with the fields `--check` reads as strings and every other known
    row field of its type. InvalidInput names the first problems (`rows[3].subject: missing`)."""
    if not isinstance(data, dict):
        raise InvalidInput(f"must be a JSON object (got {short(data)})")
    if "rows" not in data:
        raise InvalidInput("rows: missing; give a report.json that `schedlab report` wrote")
    rows = data["rows"]
    if not isinstance(rows, list):
        raise InvalidInput(f"rows: must be a list (got {short(rows)})")
    hints = typing.get_type_hints(ClaimRow)
    problems: list[str] = []
    for i, r in enumerate(rows):
        problems += _row_problems(r, f"rows[{i}]", hints)
        if len(problems) >= MAX_PROBLEMS:
            break
    skipped = data.get("skipped", [])
    if not _fits(skipped, list[dict[str, str]]):
        problems.append(f"skipped: must be a list of objects of strings (got {short(skipped)})")
    if problems:
        raise InvalidInput(problems[:MAX_PROBLEMS])
    return rows


def read_report(path: Path) -> list[dict[str, Any]]:
    """The rows of the report.json at `path` after checking its shape (`report --check`). A
    special file is refused before it is opened; InvalidInput names the file and the field."""
    fix = "give a report folder that `schedlab report` wrote"
    try:
        data = load_json_file(path, "report.json")
    except InvalidInput as exc:
        raise InvalidInput([f"{p}; {fix}" for p in exc.problems], source=str(path)) from None
    try:
        return check_report(data)
    except InvalidInput as exc:
        raise exc.with_source(str(path)) from None
