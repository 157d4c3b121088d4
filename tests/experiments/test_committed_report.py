"""The committed full-size report (`docs/reproduction/`) is the current code's.

`schedlab report --check docs/reproduction` lists each row whose study's code version (the
modules that study imports, `experiments.codeversion`) differs from the code in this checkout;
any such row fails here, so a change to a study's code regenerates the committed report
(`make reproduce SIZE=full WORKERS=2`, then `schedlab report --out docs/reproduction`). The
report must also stay small (figures at screen resolution) so that regenerating it does not
bloat the history.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from schedlab.experiments.cli import cli

REPORT = Path(__file__).resolve().parents[2] / "docs" / "reproduction"
MAX_BYTES = 3_000_000


def test_committed_report_has_no_stale_row():
    res = CliRunner().invoke(cli, ["report", "--check", str(REPORT), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["rows"] > 0
    stale = [f"{s['row']} ({s['study']}: regenerate with {s['command']})" for s in out["stale"]]
    assert not stale, "stale rows in docs/reproduction:\n" + "\n".join(stale)


def test_committed_report_is_full_size_and_small_on_disk():
    data = json.loads((REPORT / "report.json").read_text())
    assert data["size"] == "full"
    total = sum(p.stat().st_size for p in REPORT.rglob("*") if p.is_file())
    assert total < MAX_BYTES, f"docs/reproduction holds {total} bytes (limit {MAX_BYTES})"
