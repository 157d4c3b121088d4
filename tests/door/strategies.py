"""Hypothesis strategies of hostile input: raw bytes, JSON text, extreme values, flag text,
hostile strings (lone surrogates and friends) for ids, names and keys, and arrival traces
with equal, nearly equal or zero gaps."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

BIG_INT_TEXT = "9" * 5000  # past Python's 4,300-digit int() limit
EXTREME_NUMBERS: list[Any] = [
    0,
    -1,
    1,
    0.5,
    -0.0,
    1e-308,
    5e-324,
    1e12,
    1e13,
    1e308,
    -1e308,
    1.7976931348623157e308,
    2**31,
    2**63,
    2**64,
    10**40,
    123456789.123,
]
EXTREME_VALUES: list[Any] = [
    *EXTREME_NUMBERS,
    None,
    True,
    "",
    " x",
    "a,b",
    "\u0000",
    "é",
    [],
    {},
    [1, 2],
    {"a": 1},
]

#: Whole files that no loader should turn into exit 1.
FIXED_PAYLOADS: list[bytes] = [
    b"",
    b"\xef\xbb\xbf",
    b"\xff\xfe{\x00}\x00",  # UTF-16 LE BOM
    '{"jobs": []}'.encode("utf-16"),
    "caf\u00e9,\u00e9t\u00e9\n".encode("latin-1"),
    b"\x00\x01\x02\x03\xff\xfe\xfd",
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 5000 + b"1" + b"}" * 5000,
    BIG_INT_TEXT.encode(),
    b'{"jobs": [' + BIG_INT_TEXT.encode() + b"]}",
    b"NaN",
    b'{"x": Infinity}',
    b"1e999",
    b"-1e999",
    b"# comment\n",
    b"\n\n\n",
    b",,,,\n,,,,\n",
]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(EXTREME_NUMBERS),
)
json_values = st.recursive(
    json_scalars,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4)
    ),
    max_leaves=12,
)
extreme = st.one_of(st.sampled_from(EXTREME_VALUES), json_scalars)


def dumps(obj: Any) -> bytes:
    """JSON text of `obj` (Python's json writes inf as Infinity: also hostile input)."""
    return json.dumps(obj).encode()


def mutate(doc: Any, path: list[Any], value: Any) -> Any:
    """A deep copy of `doc` with the item at `path` replaced by `value`."""
    doc = json.loads(json.dumps(doc))
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


def paths(doc: Any, prefix: list[Any] | None = None) -> list[list[Any]]:
    """Every path to a value in `doc` (dict keys and list indices)."""
    prefix = prefix or []
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, [*prefix, k])
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, [*prefix, i])
    return out


#: Strings for ids, names and keys: lone UTF-16 surrogates (valid JSON as "\\ud800" escapes, but
#: no character: no UTF-8 output can write them), a surrogate pair written as two escapes (one
#: valid character once parsed), control and bidi characters, combining marks, long text.
HOSTILE_TEXT: list[str] = [
    "\ud800",
    "\udfff",
    "a\udc80b",
    "\ud83d",
    "\ude00x",
    "\ud83d\ude00",  # a pair: json.dumps writes two escapes, json.loads makes one character
    "\U0001f600",
    "\u202e",
    "e\u0301",
    "\u0085",
    "\x7f",
    "\t",
    "\n",
    " ",
    "",
    "a,b",
    "x" * 10_000,
    "\ufeff",
    "\\ud800",  # a backslash and text, not an escape
]
hostile_text = st.one_of(
    st.sampled_from(HOSTILE_TEXT),
    st.text(alphabet=st.characters(categories=["Cs", "Cc", "Lu", "Nd", "Zs", "Mn"]), max_size=6),
)

#: Azure LLM trace timestamps that collide: the same instant, fractions of 7 digits that
#: round to the same microsecond, one microsecond apart, a second apart.
STAMPS = [
    "2023-11-16 18:15:46",
    "2023-11-16 18:15:46.0000000",
    "2023-11-16 18:15:46.6805900",
    "2023-11-16 18:15:46.6805901",
    "2023-11-16 18:15:46.6805904",
    "2023-11-16 18:15:46.6805910",
    "2023-11-16 18:15:47",
]
close_stamps = st.lists(st.sampled_from(STAMPS), min_size=1, max_size=8)

#: Text a user might type for a numeric flag.
FLAG_TEXTS = [
    "-1",
    "0",
    "1",
    "2",
    "inf",
    "-inf",
    "nan",
    "1e308",
    "1e-9",
    "-1e-9",
    "5e-324",
    "1e-300",
    BIG_INT_TEXT,
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "2147483648",
    "0x10",
    "",
    " ",
    "1,2",
    "abc",
    "1e999",
    "١٢",  # Arabic-Indic digits
]
flag_text = st.one_of(
    st.sampled_from(FLAG_TEXTS),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats().map(repr),
    st.text(max_size=6),
)
