"""The input door: one set of rules for every file, number and request, CLI and Python API alike.

Every loader reads files with `read_text_file` (UTF-8 with or without BOM, a size cap) and
parses JSON with `parse_json` (nesting depth and integer-literal guards), so a hostile file is
an `InvalidInput` naming it, never a `UnicodeDecodeError`, `RecursionError`, `OverflowError`
or `MemoryError`. Numbers go through `check_number` / `check_int` (finite, in a documented
range); seeds through `check_seed`; requests that would allocate large arrays through
`check_alloc` (refused above `memory_budget_bytes()` before anything is allocated); long
runs through `check_work` (a work cap with the flag that raises it).

Limits (documented in docs/architecture.md, shown in `--help`):

- files: at most `MAX_FILE_BYTES` (256 MiB; env `SCHEDLAB_MAX_FILE_MB`);
- JSON: nesting depth `MAX_JSON_DEPTH` (64), integer literals of at most `MAX_INT_DIGITS` (30)
  digits (no count, size or id in this library needs more); no string (key or value) holding
  a lone UTF-16 surrogate (`"\\ud800"` is valid JSON but no character: no UTF-8 output, text or
  CSV, could write it back);
- seeds: 0..`MAX_SEED` (2^63 - 1); a negative seed is refused;
- memory: `memory_budget_bytes()`, 2 GiB unless env `SCHEDLAB_MEMORY_BUDGET_GB` says otherwise;
- magnitudes: `MAX_MAGNITUDE` (1e12) for sizes, times, capacities and throughputs, so sums and
  products of thousands of them stay far below float overflow.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.solvers.errors import InvalidInput

MAX_FILE_BYTES_DEFAULT = 256 * 2**20
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 30
MAX_SEED = 2**63 - 1
MAX_MAGNITUDE = 1e12
MEMORY_BUDGET_GB_DEFAULT = 2.0
MAX_TIME_LIMIT_S = 7 * 24 * 3600.0  # a week; longer is surely a typo
MAX_WORKERS = 256
BOM = "\ufeff"


def max_file_bytes() -> int:
    """The size cap of any input file (env SCHEDLAB_MAX_FILE_MB overrides 256 MiB)."""
    raw = os.environ.get("SCHEDLAB_MAX_FILE_MB")
    try:
        return int(float(raw) * 2**20) if raw else MAX_FILE_BYTES_DEFAULT
    except ValueError:
        return MAX_FILE_BYTES_DEFAULT


def memory_budget_bytes() -> int:
    """Bytes a single request may allocate (env SCHEDLAB_MEMORY_BUDGET_GB overrides 2 GiB)."""
    raw = os.environ.get("SCHEDLAB_MEMORY_BUDGET_GB")
    try:
        gb = float(raw) if raw else MEMORY_BUDGET_GB_DEFAULT
    except ValueError:
        gb = MEMORY_BUDGET_GB_DEFAULT
    return (
        int(gb * 2**30) if math.isfinite(gb) and gb > 0 else int(MEMORY_BUDGET_GB_DEFAULT * 2**30)
    )


# ---- files ---------------------------------------------------------------------------------
def read_text_file(path: str | Path, what: str = "the file") -> str:
    """The text of a UTF-8 file (a leading BOM dropped); InvalidInput naming the file otherwise.

    Refuses what is not a regular file (a directory, a FIFO, a device: reading one could
    block forever), files above `max_file_bytes()`, and bytes that are not UTF-8 (UTF-16,
    Latin-1, binary), naming the byte offset.
    """
    p = Path(path)
    src = str(p)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InvalidInput(f"cannot read {what}: file not found", source=src) from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {what}: {exc.strerror or exc}", source=src) from None
    if stat.S_ISDIR(st.st_mode):
        raise InvalidInput(f"cannot read {what}: it is a directory; give a file", source=src)
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(
            f"cannot read {what}: not a regular file (a device, pipe or socket)", source=src
        )
    cap = max_file_bytes()
    if st.st_size > cap:
        raise InvalidInput(
            f"{what} is {st.st_size} bytes, above the {cap} byte limit "
            "(raise it with SCHEDLAB_MAX_FILE_MB)",
            source=src,
        )
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {what}: {exc.strerror or exc}", source=src) from None
    return decode_text(data, src, what)


def decode_text(data: bytes, source: str, what: str = "the file") -> str:
    """UTF-8 (optional BOM) bytes to text; InvalidInput naming the source and offset if not."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InvalidInput(
            f"{what} is UTF-16; save it as UTF-8 (with or without BOM)", source=source
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{what} is not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r});"
            " save it as UTF-8",
            source=source,
        ) from None
    if "\x00" in text:
        raise InvalidInput(f"{what} holds NUL bytes: not a text file", source=source)
    return text.removeprefix(BOM)


def read_stdin_text(stream: Any, what: str = "input") -> str:
    """Standard input as text, with the same rules as files."""
    buf = getattr(stream, "buffer", None)
    if buf is not None:
        data = buf.read(max_file_bytes() + 1)
        if len(data) > max_file_bytes():
            raise InvalidInput(
                f"{what} is above the {max_file_bytes()} byte limit", source="<stdin>"
            )
        return decode_text(data, "<stdin>", what)
    return str(stream.read()).removeprefix(BOM)


# ---- JSON ----------------------------------------------------------------------------------
def _depth(text: str) -> int:
    """Deepest bracket nesting outside strings (a linear scan; no recursion)."""
    depth = best = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def _bad_constant(name: str) -> Any:
    raise InvalidInput(f"{name} is not a JSON number; give a finite number")


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InvalidInput(
            f"integer literal of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})"
        )
    return int(text)


def _parse_float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise InvalidInput(f"number {text[:40]!r} overflows to infinity; give a finite number")
    return v


def parse_json(text: str, source: str | None = None) -> Any:
    """json.loads with the door's guards: depth, huge integers, NaN/Infinity, overflow, lone
    surrogates.

    Every failure is an InvalidInput naming `source`.
    """
    text = text.removeprefix(BOM)
    if _depth(text) > MAX_JSON_DEPTH:
        raise InvalidInput(
            f"not accepted JSON: nested deeper than {MAX_JSON_DEPTH} levels", source=source
        )
    try:
        obj = json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_bad_constant,
        )
    except InvalidInput as exc:
        raise exc.with_source(source) if source else exc from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not valid JSON: {exc}", source=source) from None
    except (RecursionError, ValueError, OverflowError, MemoryError) as exc:
        raise InvalidInput(f"not accepted JSON: {type(exc).__name__}", source=source) from None
    refuse_lone_surrogates(obj, text, source)
    return obj


#: A JSON escape of a UTF-16 surrogate; only text holding one can decode to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: At most this many lone surrogates are named in one message.
MAX_NAMED_SURROGATES = 10


def is_utf8_text(s: str) -> bool:
    """Whether UTF-8 can encode `s` (False for a lone surrogate such as JSON's "\\ud800")."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate_paths(x: Any, path: str, out: list[str]) -> None:
    """Append the path of every string (key or value) in `x` that UTF-8 cannot encode."""
    if len(out) >= MAX_NAMED_SURROGATES:
        return
    if isinstance(x, str):
        if not is_utf8_text(x):
            out.append(f"{path or 'top level'}: {short(x)} holds a lone UTF-16 surrogate")
    elif isinstance(x, dict):
        for k, v in x.items():
            name = k if is_utf8_text(k) else short(k)
            if name != k:
                out.append(f"{path or 'top level'}: the key {name} holds a lone UTF-16 surrogate")
            _surrogate_paths(v, f"{path}.{name}" if path else name, out)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _surrogate_paths(v, f"{path}[{i}]", out)


def refuse_lone_surrogates(obj: Any, text: str, source: str | None = None) -> None:
    """InvalidInput naming each string of `obj` (parsed from `text`) holding a lone surrogate.

    A lone surrogate is valid JSON but not a character: ids and names holding one could not
    be written back by any UTF-8 output (the text tables, CSV files), so the door refuses it.
    The walk runs only when `text` holds a surrogate escape (or a raw surrogate).
    """
    if not _SURROGATE_ESCAPE.search(text) and is_utf8_text(text):
        return
    found: list[str] = []
    _surrogate_paths(obj, "", found)
    if found:
        fix = "write the character itself, or a valid pair such as \\ud83d\\ude00"
        raise InvalidInput([f"{p} (not a character; {fix})" for p in found], source=source)


def load_json_file(path: str | Path, what: str = "the file") -> Any:
    """Read and parse a JSON file with every rule of the door."""
    return parse_json(read_text_file(path, what), str(path))


# ---- numbers -------------------------------------------------------------------------------
def is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def check_number(
    x: Any,
    where: str,
    *,
    lo: float = -MAX_MAGNITUDE,
    hi: float = MAX_MAGNITUDE,
    lo_open: bool = False,
    problems: list[str] | None = None,
) -> float | None:
    """A finite number in [lo, hi] (or (lo, hi] with lo_open), else a problem naming `where`."""
    msg = None
    if not is_number(x):
        msg = f"{where}: must be a number (got {short(x)})"
    else:
        try:
            v = float(x)
        except OverflowError:
            v = math.inf
        if not math.isfinite(v):
            msg = f"{where}: must be finite (got {short(x)})"
        elif v < lo or (lo_open and v == lo) or v > hi:
            left = "(" if lo_open else "["
            msg = f"{where}: must lie in {left}{lo:g}, {hi:g}] (got {short(x)})"
        else:
            return v
    if problems is None:
        raise InvalidInput(msg)
    problems.append(msg)
    return None


def check_int(x: Any, where: str, *, lo: int, hi: int) -> int:
    """An integer (or an integral float) in lo..hi, else InvalidInput naming `where`."""
    if isinstance(x, float) and math.isfinite(x) and x.is_integer():
        x = int(x)
    if not isinstance(x, int) or isinstance(x, bool):
        raise InvalidInput(f"{where}: must be an integer (got {short(x)})")
    if not lo <= x <= hi:
        raise InvalidInput(f"{where}: must lie in {lo}..{hi} (got {short(x)})")
    return x


def check_seed(seed: Any, where: str = "seed", *, allow_none: bool = True) -> int | None:
    """A seed in 0..MAX_SEED (None allowed where a method takes no seed)."""
    if seed is None and allow_none:
        return None
    return check_int(seed, where, lo=0, hi=MAX_SEED)


def solver_seed(seed: int | None) -> int:
    """The seed a C++ solver takes (CP-SAT and HiGHS: int32): `seed mod 2^31` (None: 0)."""
    return 0 if seed is None else int(seed) % 2**31


def check_time_limit(t: Any, where: str = "time_limit") -> float | None:
    """None or seconds in (0, MAX_TIME_LIMIT_S]."""
    if t is None:
        return None
    return check_number(t, where, lo=0.0, hi=MAX_TIME_LIMIT_S, lo_open=True)


def short(x: Any, n: int = 60) -> str:
    """repr of a value cut to n characters (never str() of a huge int: it may raise)."""
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 200:
        return f"an integer of about {int(x.bit_length() * 0.30103)} digits"
    try:
        r = repr(x)
    except (ValueError, RecursionError):
        return f"<{type(x).__name__}>"
    return r if len(r) <= n else r[: n - 3] + "..."


def check_id(x: Any, where: str) -> str | None:
    """An id that a comma-separated flag can name and UTF-8 output can write: non-empty, no
    comma, no control character, no outer spaces, no lone surrogate."""
    if not isinstance(x, str) or not x:
        return f"{where} must be a non-empty string (got {short(x)})"
    bad_text = check_text(x, where)
    if bad_text:
        return bad_text
    if "," in x or x != x.strip() or any(ord(c) < 32 for c in x):
        return (
            f"{where} {short(x)} holds a comma, a control character or surrounding spaces; "
            "ids are named in comma-separated lists such as --order"
        )
    return None


def check_text(x: Any, where: str) -> str | None:
    """A string (a name) that UTF-8 output can write: no lone surrogate. None when fine."""
    if not isinstance(x, str):
        return f"{where} must be a string (got {short(x)})"
    if not is_utf8_text(x):
        return (
            f"{where} {short(x)} holds a lone UTF-16 surrogate, not a character; "
            "write the character itself"
        )
    return None


# ---- work and memory -----------------------------------------------------------------------
def check_alloc(nbytes: float, what: str, *, fix: str = "") -> None:
    """Refuse a request whose arrays would need more than the memory budget, before allocating."""
    budget = memory_budget_bytes()
    if not math.isfinite(nbytes) or nbytes > budget:
        gb = nbytes / 2**30 if math.isfinite(nbytes) else math.inf
        raise InvalidInput(
            f"{what} would need about {gb:.3g} GiB, above the memory budget of "
            f"{budget / 2**30:.3g} GiB (SCHEDLAB_MEMORY_BUDGET_GB){'; ' + fix if fix else ''}"
        )


def check_work(amount: float, cap: float, what: str, flag: str) -> None:
    """Refuse a run whose input implies more than `cap` units of work (rounds, events)."""
    if not math.isfinite(amount) or amount > cap:
        shown = f"{amount:.3g}" if math.isfinite(amount) else "unbounded"
        raise InvalidInput(
            f"{what}: the input implies {shown} simulated steps, above the work cap of "
            f"{cap:.3g}; check the times and rates, or raise the cap with {flag}"
        )


class WorkCap:
    """Counts simulated steps in a main loop; past the cap, one InvalidInput naming the flag."""

    def __init__(self, cap: float, what: str, flag: str) -> None:
        self.cap, self.what, self.flag, self.done = cap, what, flag, 0

    def step(self, k: int = 1) -> None:
        self.done += k
        if self.done > self.cap:
            raise InvalidInput(
                f"{self.what}: stopped after {self.done} simulated steps, the work cap "
                f"({self.cap:.3g}); the input implies absurd work, or raise the cap with "
                f"{self.flag}"
            )


# ---- deadlines -----------------------------------------------------------------------------
class DeadlineExceeded(Exception):  # noqa: N818 - a signal, not an error the user sees
    """Raised by `Deadline.check` inside model building; the method returns what it has."""


@dataclass(frozen=True)
class Deadline:
    """A time limit in its one form: an instant `at` on the `time.perf_counter()` clock (None:
    no limit). A door (`solve()`, a simulator's per-round limit) makes it once from the user's
    seconds with `Deadline.after`; it travels unchanged as the `deadline` parameter, so work
    done before a back end starts counts against the same limit; each back end converts it once
    to the seconds its solver takes (`remaining`), model builders call `check`."""

    at: float | None = None

    @classmethod
    def after(cls, seconds: float | None) -> Deadline:
        """The deadline `seconds` from now (None: no limit); only doors call it."""
        return cls(None if seconds is None else time.perf_counter() + seconds)

    def remaining(self, floor: float = 0.0) -> float | None:
        """Seconds left, at least `floor` (None without a limit): a solver's own time limit."""
        return None if self.at is None else max(floor, self.at - time.perf_counter())

    def passed(self, within: float = 0.0) -> bool:
        """Whether fewer than `within` seconds are left (0: the deadline has passed)."""
        return self.at is not None and time.perf_counter() + within >= self.at

    def check(self) -> None:
        """Raise DeadlineExceeded once the deadline has passed (model-building loops)."""
        if self.passed():
            raise DeadlineExceeded

    def share(self, fraction: float) -> Deadline:
        """An earlier deadline: `fraction` of the time left from now (one phase's budget)."""
        if self.at is None:
            return self
        now = time.perf_counter()
        return Deadline(now + fraction * max(self.at - now, 0.0))

    def minus(self, seconds: float) -> Deadline:
        """This deadline `seconds` earlier (time kept for work after the solver returns)."""
        return self if self.at is None else Deadline(self.at - seconds)


#: No time limit (the default of every `deadline` parameter).
NO_DEADLINE = Deadline()
