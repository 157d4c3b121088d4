"""docs/api.md runs as written: every ```python block is executed, and the ```text block
right after it is the output it must print (running times, "<number> s", aside).

Each block runs on its own (it imports what it uses) in a temporary working directory, so
files an example writes land there. The extraction is tested too, so a page whose blocks
stopped being found would fail instead of passing empty.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
#: A running time in a result's line ("0.0117 s", "2.5e-05 s"): machine-dependent.
SECONDS = re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)? s\b")


@dataclass(frozen=True)
class Example:
    """A python block of the page, the heading it sits under, and its expected output."""

    heading: str
    line: int
    code: str
    expected: str | None


def examples(text: str) -> list[Example]:
    """The python blocks of `text`, each with the text block that directly follows it."""
    out: list[Example] = []
    fences = list(FENCE.finditer(text))
    for i, m in enumerate(fences):
        if m.group(1) != "python":
            continue
        expected = None
        if i + 1 < len(fences):
            nxt = fences[i + 1]
            if nxt.group(1) == "text" and not text[m.end() : nxt.start()].strip():
                expected = nxt.group(2)
        headings = re.findall(r"^#+ (.*)$", text[: m.start()], re.M)
        line = text.count("\n", 0, m.start()) + 2
        out.append(Example(headings[-1] if headings else "", line, m.group(2), expected))
    return out


def normalized(output: str) -> str:
    return SECONDS.sub("<t> s", output).strip()


def run(example: Example) -> str:
    """Execute the block as a script of its own; what it printed."""
    buf = io.StringIO()
    code = compile(example.code, f"{PAGE}:{example.line}", "exec")
    with contextlib.redirect_stdout(buf):
        exec(code, {"__name__": "__main__"})
    return buf.getvalue()


EXAMPLES = examples(PAGE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.heading}:{e.line}" for e in EXAMPLES])
def test_the_example_prints_what_the_page_shows(example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    printed = run(example)
    assert example.expected is not None, f"line {example.line}: no ```text block after it"
    assert normalized(printed) == normalized(example.expected)


#: The blocks that print or loop over `sl.methods`: the registry lists methods in registration
#: order, which is the order their modules were imported in this process.
LISTINGS = [e for e in EXAMPLES if "sl.methods(" in e.code]


@pytest.mark.parametrize("example", LISTINGS, ids=[f"{e.heading}:{e.line}" for e in LISTINGS])
def test_the_example_prints_the_same_in_any_registration_order(example, tmp_path, monkeypatch):
    """What the page prints does not depend on the registry's order: a test (or a user's
    script) that imports a back end's module first registers its method first (the LOP tests
    before this file listed 'milp' second). Here every listing comes in reverse."""
    from schedlab.solvers.solve import METHODS

    entries = type(METHODS).entries
    monkeypatch.setattr(type(METHODS), "entries", lambda self, **kw: entries(self, **kw)[::-1])
    monkeypatch.chdir(tmp_path)
    assert normalized(run(example)) == normalized(example.expected or "")


def test_every_subject_has_its_example_of_two_methods_compared():
    import schedlab as sl

    for subject in sl.subjects():
        blocks = [e for e in EXAMPLES if f"sl.{subject}.generate(" in e.code]
        assert blocks, f"docs/api.md has no example generating a {subject} problem"
        compared = [e for e in blocks if e.code.count("sl.solve(") >= 2 and ".gap_to(" in e.code]
        assert compared, f"no {subject} example solves twice and prints the gap"
        assert len(compared[0].code.strip().splitlines()) <= 12, "the example is not short"


def test_the_extraction_finds_blocks_and_their_outputs_and_the_check_can_fail():
    page = "# A\n\n```python\nprint(1.5, 'x 0.25 s')\n```\n\n```text\n1.5 x 9 s\n```\n"
    page += "## B\n\n```python\nprint(2)\n```\n\nprose\n\n```text\n2\n```\n"
    a, b = examples(page)
    assert (a.heading, a.expected, b.heading, b.expected) == ("A", "1.5 x 9 s\n", "B", None)
    assert normalized(run(a)) == normalized(a.expected)
    assert normalized("1.5 x 9 s") != normalized("1.6 x 9 s")
