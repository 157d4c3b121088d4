"""The CLI contract every hostile input must meet: exit 0 with one finite JSON object, or
exit 2 with a message naming the file, item or flag; never 1, never a traceback."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from click.testing import CliRunner, Result

from schedlab.experiments.cli import cli
from tests.door.conftest import CASES


def run(args: Sequence[str], stdin: str | None = None) -> Result:
    """Run `schedlab ARGS` in-process (CliRunner: fast, no subprocess)."""
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=True)


def _finite(x: Any, path: str = "") -> list[str]:
    if isinstance(x, float) and not math.isfinite(x):
        return [path]
    if isinstance(x, dict):
        return [p for k, v in x.items() for p in _finite(v, f"{path}.{k}")]
    if isinstance(x, list):
        return [p for i, v in enumerate(x) for p in _finite(v, f"{path}[{i}]")]
    return []


def check(kind: str, args: Sequence[str], names: Sequence[str], stdin: str | None = None) -> int:
    """Run and assert the contract; `names`: strings of which the exit-2 message names one.

    Returns the exit code (0 or 2); counts the case under `kind`.
    """
    CASES[kind] += 1
    res = run(args, stdin)
    where = f"schedlab {' '.join(map(str, args))}"
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"{where}: raised {type(res.exception).__name__}: {res.exception}"
    )
    assert res.exit_code in (0, 2), f"{where}: exit {res.exit_code}\n{res.stderr}\n{res.stdout}"
    assert "Traceback" not in res.stderr, f"{where}: traceback\n{res.stderr}"
    if res.exit_code == 2:
        msg = res.stderr
        assert msg.strip(), f"{where}: exit 2 without a message"
        assert any(n in msg for n in names), f"{where}: message names none of {names}: {msg}"
        return 2
    if "--json" in args:
        obj = json.loads(res.stdout)
        assert isinstance(obj, dict)
        assert not _finite(obj), f"{where}: non-finite numbers in JSON"
        if obj.get("status") in ("optimal", "feasible"):
            value = obj.get("value", obj.get("cost", 0.0))
            assert value is not None, f"{where}: status {obj['status']} with value null"
    return 0
