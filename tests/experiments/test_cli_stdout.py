"""The console command's stdout carries only schedlab's own output, and a closed pipe is quiet.

Solver libraries print from C to file descriptor 1 (HiGHS's MIP solver does, whatever its output
flag); `main` points that descriptor at stderr, so `--json` stays one JSON object."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
import json, os
import click
from schedlab.experiments.registry import register_command

@register_command("noisy")
@click.command("noisy")
@click.option("--lines", type=int, default=1)
def noisy(lines):
    """Writes to descriptor 1 from below Python, as a C library would, then prints JSON."""
    os.write(1, b"HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();\\n")
    for _ in range(lines):
        click.echo(json.dumps({"status": "optimal", "value": 1.5}))
'''


def _run(tmp_path: Path, args: list[str], shell_tail: str = "") -> subprocess.CompletedProcess:
    (tmp_path / "noisyplugin.py").write_text(PLUGIN)
    env = {
        **os.environ,
        "SCHEDLAB_PLUGINS": "noisyplugin",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src")]),
    }
    code = "import sys; from schedlab.experiments.cli import main; main(sys.argv[1:])"
    cmd = " ".join([sys.executable, "-c", repr(code), *args]) + shell_tail
    return subprocess.run(["bash", "-c", cmd], env=env, capture_output=True, text=True, timeout=120)


def test_c_level_prints_go_to_stderr_and_stdout_stays_json(tmp_path):
    proc = _run(tmp_path, ["noisy"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"status": "optimal", "value": 1.5}
    assert "transformNewIntegerFeasibleSolution" in proc.stderr


def test_a_reader_that_goes_away_is_no_internal_error(tmp_path):
    tail = " | head -c 1 > /dev/null; echo rc=${PIPESTATUS[0]} >&2"
    proc = _run(tmp_path, ["noisy", "--lines", "200000"], tail)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "rc=141" in proc.stderr
