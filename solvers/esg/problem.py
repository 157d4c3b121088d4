"""An ESG application: a DAG of serverless functions, each with profiled configurations, an SLO.

A configuration of a function is (batch size, vCPUs, GPU share, batch latency); its per-request
cost is (vcpus * vcpu_s + gpu_share * gpu_s) * latency_ms / 1000 / batch. GPU share 0 is a
CPU-only configuration (it must have vcpus > 0: a configuration holds some resource). The stage
latency a plan pays for a function is latency_ms + wait_ms (batch-fill wait, 0 unless given) +
transfer_ms of the function (0 unless given). A plan picks one configuration per function; it
meets the budget when the longest path of stage latencies through the DAG fits it.
`output_mb` (optional, per function): the data (MB per request) the function passes on to each
successor; only the simulator reads it (a transfer time that depends on placement; None: the
simulator's default), plans do not.
File format (JSON): see `App.from_dict` (files: `App.load(path)`, texts: `App.loads(text)`);
a chain when `edges` is omitted (in list order).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from schedlab.solvers.errors import InvalidInput, Problems
from schedlab.solvers.esg.limits import MAX_BATCH, MAX_CONFIGS, MAX_FUNCTIONS
from schedlab.solvers.serialize import JsonFile
from schedlab.solvers.validate import MAX_MAGNITUDE, check_id, check_text, short

#: The one SLO tolerance of ESG (ms, absolute): a plan fits when its latency, the longest path
#: of float stage latencies summed along each path in order (`plan.longest_path`), satisfies
#: `latency <= budget + LAT_TOL` in IEEE doubles (`fits_budget`). Every method, the kernels
#: (through the limit their caller passes), the many-queue problems and the tests use it.
LAT_TOL = 1e-9
#: Relative slack of the pruning tests that sum latencies in another order than the plan does
#: (A*'s blades, the exact pre-filters): a prune only when even this much more does not fit, so
#: float rounding (< 2^-43 relative for up to 1,000 functions) never cuts a plan that fits.
PRUNE_REL = 1e-12
#: Input rules (docs/architecture.md): every number finite with magnitude <= MAX_MAGNITUDE
#: (1e12), batch sizes 1..MAX_BATCH, at most MAX_FUNCTIONS functions of MAX_CONFIGS configs
#: (declared in `limits`).

#: The problem kinds of one application (`App.kind`); methods for many queues take "queues".
AppKind = Literal["chain", "dag"]
APP_KINDS: tuple[str, ...] = get_args(AppKind)


def budget_limit(budget_ms: float) -> float:
    """The largest latency (ms) that fits `budget_ms`: budget_ms + LAT_TOL (in IEEE doubles)."""
    return budget_ms + LAT_TOL


def fits_budget(latency_ms: float, budget_ms: float) -> bool:
    """Whether a latency fits the budget: the one definition of "fits the SLO" in ESG."""
    return latency_ms <= budget_limit(budget_ms)


def prune_limit(limit_ms: float) -> float:
    """A limit loosened by PRUNE_REL, for tests that only prune (never accept) plans."""
    return limit_ms + PRUNE_REL * abs(limit_ms)


@dataclass(frozen=True)
class Prices:
    """Prices of one vCPU-second and one whole-GPU-second."""

    vcpu_s: float = 1.0e-5
    gpu_s: float = 1.0e-4


@dataclass(frozen=True)
class Config:
    """One profiled configuration of a function."""

    batch: int
    vcpus: float
    gpu_share: float
    latency_ms: float
    wait_ms: float = 0.0

    @property
    def cpu_only(self) -> bool:
        """A CPU-only configuration (GPU share 0), e.g. a Lambda-like function without a GPU."""
        return self.gpu_share == 0

    def cost(self, prices: Prices) -> float:
        """Per-request cost of this configuration."""
        rate = self.vcpus * prices.vcpu_s + self.gpu_share * prices.gpu_s
        return rate * self.latency_ms / 1000.0 / self.batch

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "batch": self.batch,
            "vcpus": self.vcpus,
            "gpu_share": self.gpu_share,
            "latency_ms": self.latency_ms,
        }
        if self.wait_ms:
            d["wait_ms"] = self.wait_ms
        return d


@dataclass(frozen=True)
class Function:
    """A function of the application: its id, configurations, transfer and cold-start times,
    and the data it passes on (MB per request; None: the simulator's default)."""

    id: str
    configs: tuple[Config, ...]
    transfer_ms: float = 0.0
    cold_start_ms: float = 0.0
    output_mb: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "configs": [c.to_dict() for c in self.configs]}
        if self.transfer_ms:
            d["transfer_ms"] = self.transfer_ms
        if self.cold_start_ms:
            d["cold_start_ms"] = self.cold_start_ms
        if self.output_mb is not None:
            d["output_mb"] = self.output_mb
        return d


@dataclass(frozen=True)
class App(JsonFile):
    """One application. `budget_ms` (None: the SLO) is the latency a plan must fit."""

    subject: ClassVar[str] = "esg"
    FILE_WHAT: ClassVar[str] = "the application file"

    name: str
    slo_ms: float
    functions: tuple[Function, ...]
    edges: tuple[tuple[str, str], ...]
    prices: Prices = field(default_factory=Prices)
    budget_ms: float | None = None

    def __post_init__(self) -> None:
        """The door's rules for an App built in Python (files go through `from_dict`)."""
        p = Problems()
        bad_name = check_text(self.name, "name")
        if bad_name:
            p.add(bad_name)
        _num(p, "slo_ms", self.slo_ms)
        for f in self.functions:
            bad = check_id(f.id, "function id")
            if bad:
                p.add(bad)
            for name in ("transfer_ms", "cold_start_ms", "output_mb"):
                v = getattr(f, name)
                if v is not None:
                    _num(p, f"function {f.id!r}.{name}", v, zero_ok=True)
            for k, c in enumerate(f.configs):
                where = f"function {f.id!r}.configs[{k}]"
                for name in ("vcpus", "gpu_share", "latency_ms", "wait_ms"):
                    _num(p, f"{where}.{name}", getattr(c, name), zero_ok=True)
                _check_resources(p, where, c.vcpus, c.gpu_share)
        p.raise_if_any()

    # --- derived ------------------------------------------------------------------------
    @property
    def budget(self) -> float:
        return self.slo_ms if self.budget_ms is None else self.budget_ms

    @property
    def ids(self) -> list[str]:
        return [f.id for f in self.functions]

    @property
    def is_chain(self) -> bool:
        """True when the edges link the functions in list order, one after the other."""
        ids = self.ids
        return list(self.edges) == [(ids[i], ids[i + 1]) for i in range(len(ids) - 1)]

    @property
    def kind(self) -> str:
        return "chain" if self.is_chain else "dag"

    def with_budget(self, budget_ms: float | None) -> App:
        """The same application with another latency budget (None: the SLO)."""
        if budget_ms is not None and not (0 < budget_ms <= MAX_MAGNITUDE):
            raise InvalidInput(
                f"budget_ms: must lie in (0, {MAX_MAGNITUDE:g}] (got {short(budget_ms)})"
            )
        return replace(self, budget_ms=budget_ms)

    def stage_latency(self) -> list[np.ndarray]:
        """Per function, the stage latency (ms) of each configuration (latency+wait+transfer)."""
        return [
            np.array([c.latency_ms + c.wait_ms + f.transfer_ms for c in f.configs], dtype=float)
            for f in self.functions
        ]

    def stage_cost(self) -> list[np.ndarray]:
        """Per function, the per-request cost of each configuration."""
        return [np.array([c.cost(self.prices) for c in f.configs]) for f in self.functions]

    def index(self) -> dict[str, int]:
        return {fid: i for i, fid in enumerate(self.ids)}

    def preds(self) -> list[list[int]]:
        """Predecessor function indices of each function."""
        idx = self.index()
        out: list[list[int]] = [[] for _ in self.functions]
        for u, v in self.edges:
            out[idx[v]].append(idx[u])
        return out

    def topo_order(self) -> list[int]:
        """Function indices in a topological order (the file order for a valid file)."""
        preds = self.preds()
        done: set[int] = set()
        order: list[int] = []
        while len(order) < len(self.functions):
            ready = [i for i in range(len(self.functions)) if i not in done]
            ready = [i for i in ready if all(p in done for p in preds[i])]
            if not ready:
                raise InvalidInput("edges: the functions' edges form a cycle")
            order.append(ready[0])
            done.add(ready[0])
        return order

    # --- files --------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> App:
        """Parse and validate; every problem is reported in one InvalidInput."""
        return _parse(data, source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "slo_ms": self.slo_ms,
            "prices": {"vcpu_s": self.prices.vcpu_s, "gpu_s": self.prices.gpu_s},
            "functions": [f.to_dict() for f in self.functions],
            "edges": [list(e) for e in self.edges],
        }


def _num(p: Problems, where: str, v: Any, *, positive: bool = True, zero_ok: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not abs(v) <= MAX_MAGNITUDE:
        p.add(
            f"{where}: must be a finite number of magnitude <= {MAX_MAGNITUDE:g} (got {short(v)})"
        )
        return math.nan
    if positive and (v < 0 or (v == 0 and not zero_ok)):
        p.add(f"{where}: must be {'>= 0' if zero_ok else '> 0'} (got {v!r})")
    return float(v)


def _check_resources(p: Problems, where: str, vcpus: float, share: float) -> None:
    """GPU share in [0, 1]; share 0 is CPU-only and then needs vcpus > 0 (named with the fix)."""
    if not (isinstance(share, int | float) and math.isfinite(share)):
        return  # reported by _num
    if not 0 <= share <= 1:
        p.add(f"{where}.gpu_share: must be in [0, 1] (0: CPU-only) (got {share!r})")
    elif share == 0 and isinstance(vcpus, int | float) and vcpus == 0:
        p.add(
            f"{where}: gpu_share 0 (CPU-only) with vcpus 0 holds no resource; give vcpus > 0 "
            "or a GPU share in (0, 1]"
        )


def _config(p: Problems, where: str, c: Any) -> Config | None:
    if not isinstance(c, dict):
        p.add(f"{where}: must be an object with batch, vcpus, gpu_share, latency_ms")
        return None
    known = {"batch", "vcpus", "gpu_share", "latency_ms", "wait_ms"}
    for k in sorted(set(c) - known):
        p.add(f"{where}.{k}: unknown field; fields: {', '.join(sorted(known))}")
    for k in ("batch", "vcpus", "gpu_share", "latency_ms"):
        if k not in c:
            p.add(f"{where}.{k}: missing")
    b = c.get("batch", 1)
    if isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= MAX_BATCH:
        p.add(f"{where}.batch: must be an integer in 1..{MAX_BATCH} (got {short(b)})")
        b = 1
    g = _num(p, f"{where}.gpu_share", c.get("gpu_share", 1.0), positive=False)
    v = _num(p, f"{where}.vcpus", c.get("vcpus", 1), zero_ok=True)
    _check_resources(p, where, v, g)
    return Config(
        batch=b,
        vcpus=v,
        gpu_share=g,
        latency_ms=_num(p, f"{where}.latency_ms", c.get("latency_ms", 1.0)),
        wait_ms=_num(p, f"{where}.wait_ms", c.get("wait_ms", 0.0), zero_ok=True),
    )


def _function(p: Problems, i: int, f: Any) -> Function | None:
    if not isinstance(f, dict):
        p.add(f"functions[{i}]: must be an object with id and configs")
        return None
    fid = f.get("id")
    where = f"function {short(fid)}" if isinstance(fid, str) and fid else f"functions[{i}]"
    bad_id = check_id(fid, f"{where}.id:")
    if bad_id:
        p.add(bad_id)
    known = {"id", "configs", "transfer_ms", "cold_start_ms", "output_mb"}
    for k in sorted(set(f) - known):
        p.add(f"{where}.{k}: unknown field; fields: {', '.join(sorted(known))}")
    raw = f.get("configs")
    if not isinstance(raw, list) or not raw:
        p.add(f"{where}.configs: must be a non-empty list of configurations")
        raw = []
    elif len(raw) > MAX_CONFIGS:
        p.add(f"{where}.configs: {len(raw)} configurations (at most {MAX_CONFIGS})")
        raw = []
    cs = [_config(p, f"{where}.configs[{k}]", c) for k, c in enumerate(raw)]
    return Function(
        id=str(fid),
        configs=tuple(c for c in cs if c is not None),
        transfer_ms=_num(p, f"{where}.transfer_ms", f.get("transfer_ms", 0.0), zero_ok=True),
        cold_start_ms=_num(p, f"{where}.cold_start_ms", f.get("cold_start_ms", 0.0), zero_ok=True),
        output_mb=None
        if f.get("output_mb") is None
        else _num(p, f"{where}.output_mb", f["output_mb"], zero_ok=True),
    )


def _edges(p: Problems, data: dict[str, Any], ids: list[str]) -> tuple[tuple[str, str], ...]:
    if "edges" not in data or data["edges"] is None:
        return tuple((ids[i], ids[i + 1]) for i in range(len(ids) - 1))
    raw, out = data["edges"], []
    if not isinstance(raw, list):
        p.add("edges: must be a list of [from, to] pairs of function ids")
        return ()
    if len(raw) > MAX_FUNCTIONS * 10:
        p.add(f"edges: {len(raw)} edges (at most {MAX_FUNCTIONS * 10})")
        return ()
    known, seen = set(ids), set()
    for k, e in enumerate(raw):
        if not (isinstance(e, list | tuple) and len(e) == 2 and all(isinstance(x, str) for x in e)):
            p.add(f"edges[{k}]: must be a pair [from, to] of function ids (got {e!r})")
            continue
        bad = [x for x in e if x not in known]
        if bad:
            p.add(f"edges[{k}]: unknown function id(s) {', '.join(map(repr, bad))}")
        elif e[0] == e[1]:
            p.add(f"edges[{k}]: a self-loop on {e[0]!r}")
        elif (e[0], e[1]) in seen:
            p.add(f"edges[{k}]: duplicate edge {e[0]!r} -> {e[1]!r}")
        else:
            out.append((e[0], e[1]))
            seen.add((e[0], e[1]))
    return tuple(out)


def _parse(data: Any, source: str | None) -> App:
    p = Problems()
    if not isinstance(data, dict):
        raise InvalidInput(
            "top level: must be a JSON object with name, slo_ms, functions", source=source
        )
    known = {"name", "slo_ms", "prices", "functions", "edges"}
    for k in sorted(set(data) - known):
        p.add(f"{k}: unknown field; fields: {', '.join(sorted(known))}")
    slo = _num(p, "slo_ms", data.get("slo_ms"))
    pr = data.get("prices", {})
    if not isinstance(pr, dict):
        p.add("prices: must be an object with vcpu_s and gpu_s")
        pr = {}
    for k in sorted(set(pr) - {"vcpu_s", "gpu_s"}):
        p.add(f"prices.{k}: unknown field; fields: gpu_s, vcpu_s")
    prices = Prices(
        vcpu_s=_num(p, "prices.vcpu_s", pr.get("vcpu_s", Prices.vcpu_s), zero_ok=True),
        gpu_s=_num(p, "prices.gpu_s", pr.get("gpu_s", Prices.gpu_s), zero_ok=True),
    )
    raw = data.get("functions")
    if not isinstance(raw, list) or not raw:
        p.add("functions: must be a non-empty list")
        raw = []
    elif len(raw) > MAX_FUNCTIONS:
        p.add(f"functions: {len(raw)} functions (at most {MAX_FUNCTIONS})")
        raw = []
    fs = [_function(p, i, f) for i, f in enumerate(raw)]
    funcs = tuple(f for f in fs if f is not None)
    ids = [f.id for f in funcs]
    for d in sorted(x for x, k in Counter(ids).items() if k > 1):
        p.add(f"function {d!r}: duplicate id")
    edges = _edges(p, data, ids)
    name = data.get("name", "app")
    bad_name = check_text(name, "name:")
    if bad_name:
        p.add(bad_name)
    p.raise_if_any(source)
    app = App(str(name), slo, funcs, edges, prices)
    try:
        app.topo_order()
    except InvalidInput as exc:
        raise exc.with_source(source) if source else exc from None
    return app
