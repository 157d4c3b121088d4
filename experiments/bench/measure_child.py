"""Run one command and print its resource use as JSON: a launcher kept small on purpose.

`python -I -S measure_child.py '{"cmd": [...], "stdin": PATH|null, "stdout": PATH,
"kill_after_s": S}'` prints `{"rc", "cpu_s", "wall_s", "max_mb"}` of the command (its
waited-for children included), from `os.wait4`.

Why a launcher: a forked child starts with its parent's resident set as its peak (Linux copies
the parent's high-water mark into the child, and exec keeps it), so a command started from a
benchmark process that holds numpy and lpcut would report that process's 100+ MB as its own
peak. Started from this interpreter (standard library only, no site), it reports its own peak,
or about 10 MB, whichever is more. Imports nothing of schedlab.
"""

import json
import os
import signal
import subprocess
import sys
import time


def start(spec: dict) -> subprocess.Popen:
    """Start the command with its standard input and output redirected as `spec` says."""
    with open(spec["stdout"], "wb") as out:
        if not spec["stdin"]:
            return subprocess.Popen(spec["cmd"], stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.DEVNULL)  # fmt: skip
        with open(spec["stdin"], "rb") as inp:
            return subprocess.Popen(spec["cmd"], stdin=inp, stdout=out, stderr=subprocess.DEVNULL)


def main() -> None:
    spec = json.loads(sys.argv[1])
    t0 = time.perf_counter()
    try:
        proc = start(spec)
    except OSError as exc:
        print(json.dumps({"error": f"cannot run {spec['cmd'][0]!r}: {exc.strerror} "
                                   f"({exc.filename})"}))  # fmt: skip
        return
    signal.signal(signal.SIGALRM, lambda *_: proc.kill())
    signal.setitimer(signal.ITIMER_REAL, float(spec["kill_after_s"]))
    _, status, ru = os.wait4(proc.pid, 0)  # a signal's interruption is retried (PEP 475)
    signal.setitimer(signal.ITIMER_REAL, 0.0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    print(
        json.dumps(
            {
                "rc": proc.returncode,
                "cpu_s": ru.ru_utime + ru.ru_stime,
                "wall_s": time.perf_counter() - t0,
                "max_mb": ru.ru_maxrss / 1024.0,
            }
        )
    )


if __name__ == "__main__":
    main()
