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


@register_command("unflushed")
@click.command("unflushed")
def unflushed():
    """Leaves its output in stdout's buffer (print, no flush) for the exit to write."""
    print("left in the buffer")
'''


MAIN = "import sys; from schedlab.experiments.cli import main; main(sys.argv[1:])"


def _env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "noisyplugin.py").write_text(PLUGIN)
    return {
        **os.environ,
        "SCHEDLAB_PLUGINS": "noisyplugin",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src")]),
    }


def _run(tmp_path: Path, args: list[str], shell_tail: str = "") -> subprocess.CompletedProcess:
    cmd = " ".join([sys.executable, "-c", repr(MAIN), *args]) + shell_tail
    return subprocess.run(
        ["bash", "-c", cmd], env=_env(tmp_path), capture_output=True, text=True, timeout=120
    )


def _reader_leaves(tmp_path: Path, args: list[str], read: int) -> tuple[int, bytes]:
    """Run the command with stdout a pipe whose reader reads `read` bytes and goes away (as
    `| head -c N` does); its exit code and stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-c", MAIN, *args],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    if read:
        os.read(proc.stdout.fileno(), read)
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=120), err


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


def test_a_reader_gone_in_the_middle_of_one_large_write_is_exit_141(tmp_path):
    """`schedlab sojourn generate --n 20000 --seed 1 | head -c 50` (issue #62): the instance is
    one write of about 3.6 MB, far over a pipe's capacity, so the reader leaves while it is being
    written. That write comes back short; it was taken as done and the command exited 0."""
    args = ["sojourn", "generate", "--n", "20000", "--seed", "1"]
    code, err = _reader_leaves(tmp_path, args, 50)
    assert (code, err) == (141, b"")


def test_output_flushed_at_exit_to_a_reader_gone_is_exit_141(tmp_path):
    """A command's last output left in the buffer meets the closed pipe at the exit's flush:
    exit 141 and nothing on stderr (was Python's 'Exception ignored ... BrokenPipeError' and
    exit 120)."""
    code, err = _reader_leaves(tmp_path, ["unflushed"], 0)
    assert (code, err) == (141, b"")
