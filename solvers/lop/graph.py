"""PACE 2024 one-sided crossing graphs (`.gr`): the problem, its reader, writer and generator.

A PACE 2024 graph (`p ocr n0 n1 m`, then m lines `a b`, a fixed vertex 1..n0 and a free vertex
n0+1..n0+n1; lines starting with `c` are comments) is drawn with the fixed layer in its order;
the problem is an order of the free layer with the fewest edge crossings. Placing u before v
costs c(u, v) = #{(a, b): a in N(u), b in N(v), a > b} crossings, so an order's crossing number
is the linear-ordering cost sum_{u before v} c(u, v): the LOP core's problem, sparse. The pair
counts and blocks are `lop.crossings`'; the solver is `lop.graph_route.solve_graph`, reached
through `solve(graph, "lpcut")` (`lop.methods`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import ClassVar

import numpy as np

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.kernels.crossings import crossing_number, spans
from schedlab.solvers.lop.text import excerpt, iter_lines, read_count, split_line
from schedlab.solvers.validate import NO_DEADLINE, Deadline, check_alloc, read_text_file

MAX_VERTICES = 10_000_000  # n0 and m above this are refused
MAX_FREE_VERTICES = 1_000_000  # n1 above this is refused: `lop solve` prints the whole order
READ_BYTES_PER_EDGE = 64  # memory per edge of reading, sorting and recounting (checked)
READ_BYTES_PER_FREE_VERTEX = 256  # ... per free vertex: CSR, spans, the order as a list


@dataclass(frozen=True)
class OcrGraph:
    """A two-layer graph: free vertex v (0-based; file id n0 + 1 + v) has the sorted fixed
    neighbours nbr[ptr[v]:ptr[v + 1]] (file ids 1..n0; repeated for a repeated edge). A
    problem of `solve` (subject "lop", kind "crossings")."""

    subject: ClassVar[str] = "lop"

    name: str
    n0: int
    n1: int
    ptr: np.ndarray
    nbr: np.ndarray

    @property
    def kind(self) -> str:
        """The problem kind methods declare (`solve`): a crossing graph."""
        return "crossings"

    @property
    def m(self) -> int:
        return int(self.ptr[-1])

    @cached_property
    def ends(self) -> tuple[np.ndarray, np.ndarray]:
        """(left, right): each free vertex's smallest and largest neighbour (`spans`), computed
        once: the per-block helpers look them up instead of rescanning every edge."""
        return spans(self.ptr, self.nbr)

    @cached_property
    def edge_keys(self) -> np.ndarray:
        """Per edge, free vertex * (n0 + 2) + fixed neighbour: ascending (`end_multiplicities`
        bisects it), computed once."""
        return (
            np.repeat(np.arange(self.n1, dtype=np.int64), np.diff(self.ptr)) * (self.n0 + 2)
            + self.nbr
        )

    def ids_of(self, order: list[int]) -> list[int]:
        """The file's ids (n0 + 1 + v) of free vertices listed 0-based."""
        return [self.n0 + 1 + int(v) for v in order]

    def crossings(self, order: list[int] | np.ndarray) -> int:
        """The crossing number of the drawing with the free vertices in `order` (0-based),
        counted from the edges (`kernels.crossings.crossing_number`)."""
        o = np.asarray(order, dtype=np.int64)
        if sorted(o.tolist()) != list(range(self.n1)):
            raise InvalidInput(f"order: not a permutation of the {self.n1} free vertices")
        return crossing_number(o, self.ptr, self.nbr)


def _header(tokens: list[str], ln: int, name: str) -> tuple[int, int, int]:
    if len(tokens) not in (5, 6) or tokens[1] != "ocr":
        raise InvalidInput(
            f"{name}: line {ln}: the problem line must read 'p ocr n0 n1 m' (PACE 2024), "
            f"got {excerpt(' '.join(tokens))}"
        )
    limits = (("n0", MAX_VERTICES), ("n1", MAX_FREE_VERTICES), ("m", MAX_VERTICES))
    n0, n1, m = (
        read_count(tok, f"{name}: line {ln}: {field}", 0, hi)
        for (field, hi), tok in zip(limits, tokens[2:5], strict=True)
    )
    if len(tokens) == 6:  # the parameterized track's cutwidth: read, not used
        read_count(tokens[5], f"{name}: line {ln}: cutwidth", 0, MAX_VERTICES)
    check_alloc(
        READ_BYTES_PER_EDGE * m + READ_BYTES_PER_FREE_VERTEX * n1,
        f"the graph {name} ({n1} free vertices, {m} edges, by its problem line {ln})",
    )
    return n0, n1, m


def parse_ocr_text(text: str, name: str = "<text>", deadline: Deadline = NO_DEADLINE) -> OcrGraph:
    """The graph of a PACE 2024 `.gr` text; InvalidInput names the line and what is wrong.

    The memory the graph needs is checked from the problem line's counts before anything is
    allocated, edges are counted as they are read (one too many is refused at its line), and
    `deadline` is looked at while reading (InvalidInput once it has passed: no order exists)."""
    lines = iter_lines(text, deadline, name)
    head = None
    for ln, line in lines:
        t = split_line(line)
        if t and t[0] != "c":
            if t[0] != "p":
                raise InvalidInput(f"{name}: line {ln}: expected the problem line 'p ocr n0 n1 m'")
            head = ln, *_header(t, ln, name)
            break
    if head is None:
        raise InvalidInput(f"{name}: no problem line 'p ocr n0 n1 m' (is it a PACE .gr file?)")
    hl, n0, n1, m = head
    a = np.empty(m, dtype=np.int64)
    b = np.empty(m, dtype=np.int64)
    k = 0
    for ln, line in lines:
        t = split_line(line)
        if not t or t[0] == "c":
            continue
        if k == m:
            raise InvalidInput(
                f"{name}: line {ln}: the problem line (line {hl}) says m = {m} edges, this is "
                f"one more ({excerpt(line)})"
            )
        a[k], b[k] = _edge(t, ln, hl, n0, n1, name)
        k += 1
    if k != m:
        raise InvalidInput(f"{name}: the problem line says m = {m} edges, the file has {k}")
    order = np.lexsort((a, b))
    ptr = np.zeros(n1 + 1, dtype=np.int64)
    np.cumsum(np.bincount(b, minlength=n1), out=ptr[1:])
    return OcrGraph(name, n0, n1, ptr, a[order])


def _edge(t: list[str], ln: int, hl: int, n0: int, n1: int, name: str) -> tuple[int, int]:
    """(fixed vertex, free vertex 0-based) of an edge line's tokens (ASCII digits only)."""
    if t[0] == "p":
        raise InvalidInput(f"{name}: line {ln}: a second problem line (the first is line {hl})")
    try:
        x = read_count(t[0], "a", 1, n0)
        y = read_count(t[1], "b", n0 + 1, n0 + n1) if len(t) == 2 else -1
    except InvalidInput:
        y = -1
    if y < 0:
        raise InvalidInput(
            f"{name}: line {ln}: an edge is 'a b' with a fixed vertex a in 1..{n0} and a "
            f"free vertex b in {n0 + 1}..{n0 + n1}, got {excerpt(' '.join(t))}"
        )
    return x, y - n0 - 1


def read_ocr_file(path: str | Path) -> OcrGraph:
    """Read one PACE 2024 `.gr` file."""
    p = Path(path)
    return parse_ocr_text(read_text_file(p, "a PACE .gr graph"), str(p))


def write_ocr_text(g: OcrGraph) -> str:
    """The `.gr` text of `g` (edges by free vertex, then fixed vertex)."""
    deg = np.diff(g.ptr)
    free = np.repeat(np.arange(g.n1), deg) + g.n0 + 1
    lines = [f"p ocr {g.n0} {g.n1} {g.m}"] + [f"{a} {b}" for a, b in zip(g.nbr, free, strict=True)]
    return "\n".join(lines) + "\n"


def random_ocr_graph(n0: int, n1: int, seed: int, *, mean_degree: float = 2.0,
                     span: int = 6, isolated_share: float = 0.05) -> OcrGraph:  # fmt: skip
    """A random two-layer graph shaped like the PACE instances: free vertex v gets
    1 + Poisson(mean_degree - 1) distinct neighbours drawn within `span` positions of a
    centre that drifts along the fixed layer (so most pairs are forced and blocks form), a
    share of free vertices none. Same seed, same graph."""
    if n0 < 1 or n1 < 1:
        raise InvalidInput(f"n0, n1: need at least one vertex per layer (got {n0}, {n1})")
    rng = np.random.default_rng(seed)
    centre = np.sort(rng.uniform(0, n0, n1))[rng.permutation(n1)]
    ptr, nbr = [0], []
    for v in range(n1):
        k = 0 if rng.random() < isolated_share else 1 + int(rng.poisson(max(mean_degree - 1, 0)))
        lo = int(np.clip(centre[v] - span, 0, n0 - 1))
        hi = int(np.clip(centre[v] + span, lo + 1, n0))
        pick = rng.choice(np.arange(lo, hi), size=min(k, hi - lo), replace=False) + 1
        nbr.extend(sorted(int(a) for a in pick))
        ptr.append(len(nbr))
    return OcrGraph(f"random-{n0}-{n1}-{seed}", n0, n1, np.array(ptr, dtype=np.int64),
                    np.array(nbr, dtype=np.int64))  # fmt: skip


def is_ocr_text(text: str) -> bool:
    """Whether the first line that is not a comment is a problem line ('p ...'), or there is
    none but a comment (a graph without its problem line: its reader says so)."""
    comments = False
    for _, line in iter_lines(text, NO_DEADLINE, ""):  # one line at a time, never a list
        t = split_line(line)
        if t and t[0] != "c":
            return t[0] == "p"
        comments |= bool(t)
    return comments
