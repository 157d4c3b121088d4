"""The one reader of lines, tokens and numbers in the linear-ordering files (PACE 2024 `.gr`
graphs, `lop_graph`; LOLIB matrices, `lop_matrix`).

Strict on purpose: numbers are ASCII digits only (a superscript or full-width digit, an
underscore, 'nan' or 'inf' is refused, though Python's `int` or `float` would take some of
them), counts are integers in a stated range, real entries finite and within a stated range,
and an error quotes at most `EXCERPT_CHARS` characters of the offending token. Lines end at
'\\n' ('\\r\\n' too); tokens are separated by ASCII whitespace. Lines and tokens are produced
one at a time and numbers a piece of text at a time (`pieces`, `reals_of`), so reading never
holds a list as long as the file; a `Deadline` is looked at every `DEADLINE_STRIDE` lines and
before every piece, so a time limit covers reading too.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.validate import Deadline

EXCERPT_CHARS = 20  # an error quotes at most this many characters of a token or line
MAX_NUMBER_CHARS = 100  # a number token longer than this is refused before converting it
DEADLINE_STRIDE = 4096  # lines between two looks at the deadline (`iter_lines`)
_COUNT = re.compile(r"[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
TOKEN = re.compile(r"[^ \t\n\r\x0b\x0c]+")
_SPACE = re.compile(r"[ \t\n\r\x0b\x0c]")
_NUMBER_CHARS = re.compile(r"[0-9+\-.eE \t\n\r\x0b\x0c]*")  # all a decimal may hold
CHUNK_CHARS = 1 << 20  # numbers are converted a piece of about this many characters at a time


def excerpt(tok: str) -> str:
    """`tok` quoted, cut to its first EXCERPT_CHARS characters and '…' when longer."""
    return repr(tok) if len(tok) <= EXCERPT_CHARS else repr(tok[:EXCERPT_CHARS]) + "…"


def time_out(name: str, where: str) -> InvalidInput:
    """The refusal when the time limit runs out before the input is even read."""
    return InvalidInput(
        f"{name}: the time limit ran out while reading {where}, before any order existed; "
        "raise --time-limit (reading counts against it)"
    )


def iter_lines(text: str, deadline: Deadline, name: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without its '\\n' or '\\r\\n'), one at a time."""
    pos, ln, end = 0, 0, len(text)
    while pos < end:
        ln += 1
        if ln % DEADLINE_STRIDE == 0 and deadline.passed():
            raise time_out(name, f"line {ln}")
        nl = text.find("\n", pos)
        stop = end if nl < 0 else nl
        yield ln, text[pos : stop - 1 if stop > pos and text[stop - 1] == "\r" else stop]
        pos = stop + 1


def split_line(line: str) -> list[str]:
    """The tokens of one line, split at ASCII whitespace only."""
    return TOKEN.findall(line)


def line_at(text: str, pos: int) -> int:
    """The line number (from 1) of position `pos` of `text`."""
    return text.count("\n", 0, pos) + 1


def token_at(text: str, start: int, k: int) -> tuple[int, str]:
    """(line, token) of the k-th token (from 0) of `text` from `start` on (error messages)."""
    mt = next(itertools.islice(TOKEN.finditer(text, start), k, None))
    return line_at(text, mt.start()), mt.group()


def pieces(text: str, start: int, deadline: Deadline, name: str) -> Iterator[tuple[int, str]]:
    """(position, piece) of `text` from `start` on, about CHUNK_CHARS characters each, cut at
    whitespace only (a token is never split); `deadline` looked at before each piece."""
    end = len(text)
    while start < end:
        if deadline.passed():
            raise time_out(name, f"line {line_at(text, start)}")
        stop = min(start + CHUNK_CHARS, end)
        gap = _SPACE.search(text, stop) if stop < end else None
        stop = gap.start() if gap else end
        yield start, text[start:stop]
        start = stop


def reals_of(piece: str, limit: float) -> np.ndarray | None:
    """The numbers of `piece` when every token is one that `real_or_none` takes, else None
    (then `real_or_none`, token by token, finds the first that is not): the characters are
    checked at once, the conversion is numpy's (its syntax errors are Python's `float`'s)."""
    if not _NUMBER_CHARS.fullmatch(piece):
        return None
    toks = TOKEN.findall(piece)
    if toks and max(map(len, toks)) > MAX_NUMBER_CHARS:
        return None
    try:
        x = np.array(toks, dtype=np.float64)
    except ValueError:
        return None
    return x if bool(np.all(np.abs(x) <= limit)) else None


def read_count(tok: str, where: str, lo: int, hi: int) -> int:
    """An integer count in lo..hi written in ASCII digits; InvalidInput naming `where`."""
    if len(tok) > len(str(hi)) + 1 or not _COUNT.fullmatch(tok) or not lo <= int(tok) <= hi:
        raise InvalidInput(f"{where} = {excerpt(tok)} must be an integer in {lo}..{hi}")
    return int(tok)


def real_or_none(tok: str, limit: float) -> float | None:
    """The number `tok` if it is a finite decimal with |x| <= limit written in ASCII (sign,
    digits, point, exponent; no 'nan', 'inf', '_' or other digits), else None: the caller
    names the place (`real_rule` says what was expected)."""
    if len(tok) > MAX_NUMBER_CHARS or not _REAL.fullmatch(tok):
        return None
    x = float(tok)
    return x if abs(x) <= limit else None


def real_rule(limit: float) -> str:
    """What `real_or_none` takes, in words for an error message."""
    return (
        f"a decimal number in ASCII (digits, optional sign, point and exponent) from "
        f"{-limit:.17g} to {limit:.17g}"
    )
