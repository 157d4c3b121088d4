"""The `schedlab` command line: `schedlab <subject> <verb>` plus cross-cutting commands.

Each subject's click group (in `experiments/<subject>/cli.py`) and every cross-cutting command
registers itself in `COMMANDS`; the group below finds them on first use.
Errors: bad input exits 2 with a message on stderr; an internal failure exits 1 with a
readable message (the traceback only with --debug). Text output of every verb goes through
`safe_text_output` (a character UTF-8 cannot hold is written as an escape, never an error).
"""

from __future__ import annotations

import io
import os
import re
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from schedlab.experiments.registry import COMMANDS
from schedlab.solvers.errors import InvalidInput


class SchedlabGroup(click.Group):
    """Click group of the registered commands; InvalidInput exits 2, other failures exit 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS.names())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command `cmd_name`, importing only the module that registers it when it can
        (click's lazy-group pattern, found by `Registry.find`): a subject's verb imports no
        other subject's commands; an unknown name still looks at every command."""
        entry = COMMANDS.find(cmd_name, hint=f'register_command("{cmd_name}")')
        if entry is None:
            return None
        cmd: click.Command = entry.obj
        return cmd

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InvalidInput as exc:
            click.echo(f"schedlab: error: {excerpted(str(exc))}", err=True)
            ctx.exit(2)
        except click.ClickException as exc:  # click's own refusals (a bad path, an unknown choice)
            exc.message = excerpted(exc.message)  # type: ignore[misc]  # shown by click after this
            raise
        except (click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # the reader went away (`| head`): nothing left to say to it
            _silence_stdout()
            ctx.exit(BROKEN_PIPE_EXIT)
        except KeyboardInterrupt as exc:
            _exit_interrupted(ctx, exc)
        except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
            signal_exc = interrupt_behind(exc)
            if signal_exc is not None:
                _exit_interrupted(ctx, signal_exc)
            if ctx.find_root().params.get("debug"):
                traceback.print_exc()
            else:
                click.echo(
                    f"schedlab: internal error: {type(exc).__name__}: {exc}\n"
                    "(rerun with --debug for the traceback)",
                    err=True,
                )
            ctx.exit(1)


INTERRUPT_EXIT_CODES = (130, 143)
BROKEN_PIPE_EXIT = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that `exc` was raised while handling, if any: ending the workers
    after an interrupt can fail in its own way (a Dask client already closed), and that error
    must not turn the interrupt's exit 130/143 into an internal error's exit 1."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            return cur
        seen.add(id(cur))
        cur = cur.__context__ or cur.__cause__
    return None


def _exit_interrupted(ctx: click.Context, exc: KeyboardInterrupt) -> None:
    """In-process use (the console command exits from its signal handler, `_stop_now`): end
    the workers, say so, and exit 130."""
    _end_workers()
    click.echo("schedlab: interrupted; finished results were kept", err=True)
    ctx.exit(130)


def _end_workers() -> None:
    """On an interrupt, end the sweep workers (local processes or Dask cells) of this process."""
    sweep = sys.modules.get("schedlab.experiments.sweep")
    if sweep is not None:
        try:
            sweep.interrupt()
        except Exception:  # noqa: BLE001 - a worker that cannot be ended must not hide the exit code
            pass


def _stop_now(signum: int, frame: Any) -> None:
    """The console command's Ctrl-C / SIGTERM: end the process at once, from the handler.

    Every finished row is already journaled (written and synced one by one, a torn last line
    cut on reading), so nothing is lost by not unwinding; unwinding instead leaves the study
    threads a window to see their pool ended and record the cut-short sweep as a failed study
    (a "failed" manifest over the previous one). So: mark the sweeps stopped (a study thread that
    still sees an outcome raises `sweep.Interrupted` and writes nothing), kill every child
    (`_end_children`: local workers, a solver's subprocess), and exit 130 or 143. A Dask
    cluster releases this client's pending cells when its connection closes."""
    code = 143 if signum == signal.SIGTERM else 130
    sweep = sys.modules.get("schedlab.experiments.sweep")
    if sweep is not None:
        # The flag alone (the kill below ends the workers): from here a sweep starts nothing,
        # and one that meets the killed pool raises `sweep.Interrupted`, not a failure.
        sweep._STOP.set()
    what = "terminated (SIGTERM)" if code == 143 else "interrupted"
    try:
        sys.stderr.write(f"schedlab: {what}; finished results were kept\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    _kill_children()
    os._exit(code)


def install_interrupt_handlers() -> None:
    """`_stop_now` on SIGINT and SIGTERM, unless the signal is ignored (a command started in the
    background by a shell without job control, or under nohup, keeps ignoring it)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _stop_now)


def _end_children() -> None:
    """Just before the interrupted command exits: end every process it started that is still
    alive (a sweep started after the interrupt forks no pool, but a solver's subprocess may be
    running; a pool worker ignores Ctrl-C and would run on as an orphan after `os._exit`).
    Holding the import lock first stops any further fork (CPython takes that lock around
    fork); every child forked before is then in /proc and is killed."""
    _end_workers()
    _kill_children()


def _kill_children() -> None:
    """SIGKILL every child process, with no fork possible after the list is taken."""
    import _imp

    _imp.acquire_lock()  # never released: the process exits next
    for pid in _child_pids():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _child_pids() -> list[int]:
    """The processes whose parent is this one (from /proc; the multiprocessing children where
    there is no /proc)."""
    me = os.getpid()
    proc = Path("/proc")
    if not proc.is_dir():
        import multiprocessing

        return [c.pid for c in multiprocessing.active_children() if c.pid is not None]
    out = []
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == me:
            out.append(int(stat.parent.name))
    return out


LONG_TOKEN = re.compile(r"\S{201,}")
EXCERPT_CHARS = 60


def excerpted(message: str) -> str:
    """The refusal with every run of over 200 non-blank characters (a pasted number, a name, a
    path) cut to its first 60 and its length: a refusal quotes the offending token, and a
    megabyte token must not come back whole."""

    def cut(m: re.Match[str]) -> str:
        token = m.group(0)
        return f"{token[:EXCERPT_CHARS]}... ({len(token):,} characters)"

    return LONG_TOKEN.sub(cut, message)


def safe_text_output() -> None:
    """Let stdout write any str: a lone surrogate (a file name of undecodable bytes given on the
    command line, which Python decodes to surrogates) becomes a backslash escape instead of a
    UnicodeEncodeError after half a table. JSON output is ASCII and unaffected; the door
    refuses such characters in input files (`validate.parse_json`)."""
    out = sys.stdout
    if isinstance(out, io.TextIOWrapper) and out.errors in ("strict", "surrogateescape"):
        out.reconfigure(errors="backslashreplace")


@click.group(cls=SchedlabGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(package_name="schedlab")
def cli(debug: bool) -> None:
    """schedlab: exact optima and heuristics for scheduling ML jobs on GPU clusters.

    \b
    Examples:
      schedlab sojourn generate --n 6 --seed 1 > inst.json
      schedlab sojourn solve inst.json --objective B --method dp
      schedlab reproduce --size small
    """
    safe_text_output()


def _python_owns_stdout() -> None:
    """Keep the process's stdout for schedlab's own output (one JSON object, or a table).

    Solver libraries print from C straight to file descriptor 1 (HiGHS's MIP solver prints
    "HighsMipSolverData::transformNewIntegerFeasibleSolution ..." there, whatever its
    output flag), which would break `--json`. Point descriptor 1 at stderr and give Python's
    `sys.stdout` a private copy of the real stdout.

    The copy is buffered, as Python's own stdout is: a bare `FileIO` under the text layer
    takes a short write (a pipe whose reader went away mid-write) as success, so the rest of
    the output was dropped silently and the command exited 0 instead of 141; `BufferedWriter`
    writes the rest, and a reader gone raises BrokenPipeError."""
    try:
        sys.stdout.flush()
        real = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):  # no real descriptors (embedded, tests)
        return
    old = sys.stdout
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(real, "w")),
        encoding=old.encoding,
        errors=old.errors,
        line_buffering=bool(old.line_buffering),
    )


def _flush_stdout() -> int | None:
    """Flush what a command left in stdout's buffer (a `print` without flush); the exit code
    `BROKEN_PIPE_EXIT` if the reader went away, silenced, else None."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE_EXIT
    except (OSError, ValueError):  # closed or not a real stream: nothing to flush
        pass
    return None


def _silence_stdout() -> None:
    """After a broken pipe: later flushes (at exit too) go nowhere instead of failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
    finally:
        os.close(devnull)


BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def default_one_blas_thread() -> None:
    """Run OpenBLAS on one thread in this process unless the user chose (any of
    BLAS_THREAD_VARS set) or numpy is already loaded (too late: OpenBLAS reads the variable
    when it loads). schedlab's parallelism is across processes (`--workers`, each sweep cell
    on one BLAS thread already), and the solvers run on one thread (`threads`); an idle
    OpenBLAS worker still spins after each call and after loading (numpy's copy, and scipy's,
    which numba loads): `schedlab lop solve` on PACE #51 took 3.11 CPU s with two BLAS
    threads against 2.66 with one, 8 runs each, interleaved (docs/sojourn.md)."""
    if "numpy" in sys.modules or any(v in os.environ for v in BLAS_THREAD_VARS):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main(argv: list[str] | None = None) -> None:
    """Console entry point.

    Ctrl-C (SIGINT) and SIGTERM end the run: the workers are ended, every finished row is
    already journaled (written and synced one by one), and the process exits 130 or 143 at once
    rather than waiting for threads that were mid-cell (a rerun computes only what is missing).

    A reader of stdout that goes away (`schedlab ... | head`) ends the command with exit 141
    and no message, whether the write that found it gone was in the command (`SchedlabGroup`)
    or the last flush here."""
    default_one_blas_thread()
    _python_owns_stdout()
    install_interrupt_handlers()
    try:
        cli.main(args=argv, prog_name="schedlab", standalone_mode=True)
    except SystemExit as exc:
        if exc.code in INTERRUPT_EXIT_CODES:
            _end_children()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(int(exc.code))
        if _flush_stdout() == BROKEN_PIPE_EXIT:
            raise SystemExit(BROKEN_PIPE_EXIT) from None
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
