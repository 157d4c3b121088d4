"""Figure `slaq-quality`: SLAQ vs fair share on two workloads, over a sweep of load, both readings
of the paper's metrics, mean and 95% t-interval over seeds.

Workloads: ours ("shipped-curves", `simulator.make_jobs`) and the authors' ("authors",
`workload_authors.py`: their driver's jobs, arrivals, predictor, base cores and token order;
"authors-fit" the same with our fitted predictor). Load: the mean gap between arrivals
(`arrival_mean_s`, the driver's `sleep`) takes three values per workload; `offered_load` =
sum_j iterations_j W_j / (C x jobs x sleep) says how busy each is. For every (workload, sleep,
seed) SLAQ and fair run on the same jobs, and `metrics.py` compares them: quality improvement
"up to" (maximum over time) and time-averaged; delay reduction to 90% and 95% of the loss
reduction as ratio of means and as mean of per-job ratios; for all jobs and per job family.
The paper's 73% / 44% (Zhang et al., SoCC 2017) stand beside them; its definitions are not in
the authors' code, so both readings are ours.

The authors' workload also runs as settings labelled "authors/<token model>/<iterations>": their
tokens as fluid shares or replayed as task offers (`token_offers.py`), and their driver's
iteration counts or the stand-in curves' (`workload_authors.py`); plain "authors" is fluid /
driver. Each row also reports the starved jobs (`simulator.starvation`: first core 30 s or more
after arrival). Only the plain workloads are plotted.

Left panels: the mean normalized loss of the running jobs over time (seed `seed`, the middle
load); right panels: mean time to 90% per family with 95% t-intervals over seeds.
One journaled row per (workload, sleep, policy, seed): a rerun resumes. Writes
results/slaq/slaq-quality.csv and .md (the side-by-side table), slaq-quality-runs.csv (per run)
and slaq-quality.{png,pdf}.
"""

from __future__ import annotations

import json
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.experiments.ladder import pick
from schedlab.experiments.plotting import new_figure, save_figure
from schedlab.experiments.registry import register_figure
from schedlab.experiments.slaq import metrics
from schedlab.experiments.slaq.simulator import SimConfig, simulate, summarize
from schedlab.experiments.store import RowStore, results_dir, write_csv
from schedlab.solvers.util import atomic_write_text

NAME = STEM = "slaq-quality"
PAPER = {"quality_improvement_pct": 73.0, "delay_reduction_pct": 44.0}
POLICIES = ("slaq", "fair")  # the paper's comparison
ALL = "all"

#: Per size: seeds, and per setting (a label) its workload, jobs, cores and the sleeps (mean
#: arrival gaps, s) swept. A label other than a registered workload names its `workload` and
#: the authors' `token_model` / `iterations` (defaults: fluid, driver) and may run fewer
#: `seeds`: the token model x iteration counts at the heavy cell (sleep 10 s) and the middle
#: one (sleep 20 s).
CONFIGS: dict[str, dict[str, Any]] = {
    "tiny": {
        "seeds": 2,
        "workloads": {
            "shipped-curves": {"jobs": 8, "cores": 24, "sleeps": [6.0]},
            "authors": {"jobs": 8, "cores": 16, "sleeps": [10.0]},
            "authors/offers/curves": {
                "workload": "authors", "token_model": "offers", "iterations": "curves",
                "jobs": 8, "cores": 16, "sleeps": [10.0], "seeds": 1,
            },
        },
    },
    "small": {
        "seeds": 10,
        "workloads": {
            "shipped-curves": {"jobs": 40, "cores": 64, "sleeps": [6.0, 12.0, 24.0]},
            "authors": {"jobs": 20, "cores": 32, "sleeps": [10.0, 20.0, 40.0]},
            "authors-fit": {"jobs": 20, "cores": 32, "sleeps": [20.0]},
            "authors/offers/driver": {
                "workload": "authors", "token_model": "offers",
                "jobs": 20, "cores": 32, "sleeps": [10.0], "seeds": 3,
            },
        },
    },
    "full": {
        "seeds": 20,
        "workloads": {
            "shipped-curves": {"jobs": 200, "cores": 128, "sleeps": [3.0, 6.0, 12.0]},
            "authors": {"jobs": 40, "cores": 32, "sleeps": [10.0, 20.0, 40.0]},
            "authors-fit": {"jobs": 40, "cores": 32, "sleeps": [10.0, 20.0, 40.0]},
            "authors/fluid/curves": {
                "workload": "authors", "iterations": "curves",
                "jobs": 40, "cores": 32, "sleeps": [10.0, 20.0], "seeds": 5,
            },
            "authors/offers/driver": {
                "workload": "authors", "token_model": "offers",
                "jobs": 40, "cores": 32, "sleeps": [10.0, 20.0], "seeds": 5,
            },
            "authors/offers/curves": {
                "workload": "authors", "token_model": "offers", "iterations": "curves",
                "jobs": 40, "cores": 32, "sleeps": [10.0, 20.0], "seeds": 5,
            },
        },
    },
}  # fmt: skip
METRICS = (
    "quality_up_to",
    "quality_time_avg",
    "delay90_ratio_of_means",
    "delay90_mean_of_ratios",
    "delay95_ratio_of_means",
    "delay95_mean_of_ratios",
)


def setting(label: str, w: dict[str, Any]) -> tuple[str, str, str]:
    """(registered workload, token model, iterations) of a setting of `CONFIGS`."""
    return w.get("workload", label), w.get("token_model", "fluid"), w.get("iterations", "driver")


def run_row(key: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """One simulation: its summary, loss series (all jobs and per family) and per-job delays."""
    w = config["workloads"][key["workload"]]
    workload, token_model, iterations = setting(key["workload"], w)
    cfg = SimConfig(
        jobs=w["jobs"], cores=w["cores"], arrival_mean_s=key["sleep"], seed=key["seed"],
        token_model=token_model, iterations=iterations,
    )  # fmt: skip
    run = simulate(cfg, key["policy"], workload)
    s = summarize(run)
    s.pop("config")
    s.pop("policy")
    fams = sorted({j.family for j in run["jobs"]})
    work = sum(j.last * j.w for j in run["jobs"])
    return {
        **s,
        "token_model": token_model,
        "iterations": iterations,
        "offered_load": work / (cfg.cores * cfg.jobs * cfg.arrival_mean_s),
        "times_s": run["times_s"],
        "loss": run["mean_norm_loss"],
        "family_loss": {f: [e.get(f, float("nan")) for e in run["family_loss"]] for f in fams},
        "job_delays": [[j.family, j.t90_s, j.t95_s] for j in run["jobs"]],
    }


def keys_of(config: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Every (workload, sleep, policy, seed) of a size, in run order."""
    return [
        {"workload": wl, "sleep": s, "policy": p, "seed": seed + i}
        for wl, w in config["workloads"].items()
        for s in w["sleeps"]
        for i in range(w.get("seeds", config["seeds"]))
        for p in POLICIES
    ]


def compute(config: dict[str, Any], seed: int, outdir: Path, size: str) -> list[dict[str, Any]]:
    fields = ["workload", "sleep", "policy", "seed"]
    header = json.loads(json.dumps({**config, "seed": seed, "row_format": 5}))
    store = RowStore(results_dir(outdir, "slaq") / f"{STEM}-{size}.jsonl", fields, config=header)
    keys = keys_of(config, seed)
    store.run(keys, partial(run_row, config=config), desc=NAME)
    index = {store.key(r): r for r in store.rows}
    return [index[tuple(k[f] for f in fields)] for k in keys]


def _delays(row: dict[str, Any], family: str, col: int) -> list[float | None]:
    """Per-job delays (col 1: to 90%, 2: to 95%) of one family (or all), in job order."""
    return [d[col] for d in row["job_delays"] if family in (ALL, d[0])]


def compare(slaq: dict[str, Any], fair: dict[str, Any], family: str) -> dict[str, float | None]:
    """The six metrics of one seed for all jobs or one family (fractions)."""
    if family == ALL:
        la, lb = slaq["loss"], fair["loss"]
    else:
        la, lb = slaq["family_loss"][family], fair["family_loss"][family]
    a, b = metrics.aligned(slaq["times_s"], la, fair["times_s"], lb)
    d90 = (_delays(slaq, family, 1), _delays(fair, family, 1))
    d95 = (_delays(slaq, family, 2), _delays(fair, family, 2))
    return {
        "quality_up_to": metrics.improvement_up_to(a, b),
        "quality_time_avg": metrics.improvement_time_avg(a, b),
        "delay90_ratio_of_means": metrics.delay_ratio_of_means(*d90),
        "delay90_mean_of_ratios": metrics.delay_mean_of_ratios(*d90),
        "delay95_ratio_of_means": metrics.delay_ratio_of_means(*d95),
        "delay95_mean_of_ratios": metrics.delay_mean_of_ratios(*d95),
    }


def _mean_t90(row: dict[str, Any], family: str) -> float | None:
    v = [t for t in _delays(row, family, 1) if t is not None]
    return float(np.mean(v)) if v else None


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100.0 * x, 2)


def fallback_totals(rs: list[dict[str, Any]]) -> dict[str, Any]:
    """The predictor's refits and fallbacks summed over runs (`simulator.summarize`'s keys);
    `fallbacks_to` as "family=count" pairs."""
    to: dict[str, int] = {}
    for r in rs:
        for fam, n in r["fallbacks_to"].items():
            to[fam] = to.get(fam, 0) + n
    return {
        "fits": sum(r["fits"] for r in rs),
        "fallbacks_too_few_points": sum(r["fallbacks_too_few_points"] for r in rs),
        "fallbacks_failed_fit": sum(r["fallbacks_failed_fit"] for r in rs),
        "fallbacks_to": " ".join(f"{k}={v}" for k, v in sorted(to.items())),
    }


def table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (workload, sleep, family): each metric's mean and 95% CI half-width over seeds (%),
    SLAQ's and fair's mean time to 90%, and the paper's numbers."""
    by = {(r["workload"], r["sleep"], r["policy"], r["seed"]): r for r in rows}
    groups: dict[tuple[str, float], list[int]] = {}
    for r in rows:
        groups.setdefault((r["workload"], r["sleep"]), [])
        if r["seed"] not in groups[(r["workload"], r["sleep"])]:
            groups[(r["workload"], r["sleep"])].append(r["seed"])
    out = []
    for (wl, sleep), seeds in groups.items():
        pairs = [(by[(wl, sleep, "slaq", s)], by[(wl, sleep, "fair", s)]) for s in seeds]
        fams = sorted({d[0] for a, _ in pairs for d in a["job_delays"]})
        for fam in [ALL, *fams]:
            per = [compare(a, b, fam) for a, b in pairs]
            row: dict[str, Any] = {
                "workload": wl,
                "sleep_s": sleep,
                "offered_load": round(float(np.mean([a["offered_load"] for a, _ in pairs])), 3),
                "family": fam,
                "seeds": len(pairs),
                "token_model": pairs[0][0]["token_model"],
                "iterations": pairs[0][0]["iterations"],
            }
            for m in METRICS:
                mean, half, _ = metrics.mean_ci([p[m] for p in per])
                row[f"{m}_pct"], row[f"{m}_ci95_pct"] = _pct(mean), _pct(half)
            for pol, idx in (("slaq", 0), ("fair", 1)):
                mean, half, _ = metrics.mean_ci([_mean_t90(p[idx], fam) for p in pairs])
                row[f"{pol}_time_to_90_s"] = None if mean is None else round(mean, 2)
                row[f"{pol}_time_to_90_ci95_s"] = None if half is None else round(half, 2)
            for pol, idx in (("slaq", 0), ("fair", 1)):  # admitted jobs left without a core
                share = float(np.mean([p[idx]["idle_share"] for p in pairs]))
                row[f"{pol}_idle_pct"] = round(100.0 * share, 2) if fam == ALL else None
                starved = float(np.mean([p[idx]["starved_share"] for p in pairs]))
                row[f"{pol}_starved_pct"] = round(100.0 * starved, 2) if fam == ALL else None
            for pol, idx in (("slaq", 0), ("fair", 1)):  # the runs' refits and fallbacks
                tot = fallback_totals([p[idx] for p in pairs])  # (on the "all" row only)
                row.update({f"{pol}_{k}": v if fam == ALL else None for k, v in tot.items()})
            row["paper_quality_up_to_pct"] = PAPER["quality_improvement_pct"]
            row["paper_delay_reduction_pct"] = PAPER["delay_reduction_pct"]
            out.append(row)
    return out


def _cell(row: dict[str, Any], m: str) -> str:
    mean, half = row[f"{m}_pct"], row[f"{m}_ci95_pct"]
    if mean is None:
        return "–"
    return f"{mean:.1f}" if half is None else f"{mean:.1f} ± {half:.1f}"


def markdown(tab: list[dict[str, Any]], caption: str) -> str:
    """The side-by-side table as markdown, all jobs first, then per family: % (mean ± 95%
    t-interval half-width over seeds), the paper's "up to 73%" quality and 44% delay beside."""
    head = (
        "| setting | token model / iterations | sleep (s) | load | family | quality up to | "
        "quality time-avg | delay 90% ratio of means | delay 90% mean of ratios | "
        "delay 95% ratio of means | delay 95% mean of ratios | "
        "job-epochs at 0 cores, SLAQ / fair (%) | starved jobs, SLAQ / fair (%) | "
        "paper (quality / delay) |\n|" + "---|" * 14 + "\n"
    )

    def pair(r: dict[str, Any], what: str) -> str:
        a = r[f"slaq_{what}_pct"]
        return "–" if a is None else f"{a:g} / {r[f'fair_{what}_pct']:g}"

    def line(r: dict[str, Any]) -> str:
        cells = " | ".join(_cell(r, m) for m in METRICS)
        return (
            f"| {r['workload']} | {r['token_model']} / {r['iterations']} | {r['sleep_s']:g} | "
            f"{r['offered_load']:.2f} | {r['family']} | {cells} | {pair(r, 'idle')} | "
            f"{pair(r, 'starved')} | "
            f"{r['paper_quality_up_to_pct']:g} / {r['paper_delay_reduction_pct']:g} |"
        )

    parts = [caption, ""]
    for title, rows in (
        ("All jobs", [r for r in tab if r["family"] == ALL]),
        ("Per job family", [r for r in tab if r["family"] != ALL]),
    ):
        parts += [f"{title}:", "", head + "\n".join(line(r) for r in rows), ""]
    return "\n".join(parts)


def plot(rows: list[dict[str, Any]], tab: list[dict[str, Any]], stem: Path, caption: str):  # type: ignore[no-untyped-def]
    """Per workload: loss over time (first seed, middle sleep) and mean time to 90% per family."""
    wls = [wl for wl in dict.fromkeys(r["workload"] for r in rows) if "/" not in wl]  # not variants
    fig, axes = new_figure(len(wls), 2, figsize=(12, 4 * len(wls)), squeeze=False)
    first = min(r["seed"] for r in rows)
    for (ax1, ax2), wl in zip(axes, wls, strict=True):
        sleeps = sorted({r["sleep"] for r in rows if r["workload"] == wl})
        mid = sleeps[len(sleeps) // 2]
        for i, p in enumerate(POLICIES):
            key = (wl, mid, p, first)
            r = next(r for r in rows if (r["workload"], r["sleep"], r["policy"], r["seed"]) == key)
            t, y = np.asarray(r["times_s"], float), np.asarray(r["loss"], float)
            gap = np.flatnonzero(np.diff(t) > 3.0 + 1e-6) + 1  # idle epochs: break the line
            ax1.plot(
                np.insert(t, gap, np.nan), np.insert(y, gap, np.nan), color=f"C{i}", lw=1, label=p
            )
        sub = [t for t in tab if t["workload"] == wl and t["sleep_s"] == mid and t["family"] != ALL]
        x = np.arange(len(sub))
        for i, p in enumerate(POLICIES):
            ys = [t[f"{p}_time_to_90_s"] or 0.0 for t in sub]
            es = [t[f"{p}_time_to_90_ci95_s"] or 0.0 for t in sub]
            ax2.bar(x + (i - 0.5) * 0.4, ys, 0.4, yerr=es, color=f"C{i}", label=p, capsize=2)
        ax2.set_xticks(x, [t["family"] for t in sub], rotation=30, ha="right", fontsize=8)
        ax1.set_xlabel("time since the first arrival (s)")
        ax1.set_ylabel("mean normalized loss of running jobs")
        ax1.set_title(f"{wl}: loss over time (sleep {mid:g} s, seed {first})", fontsize=10)
        ax2.set_ylabel("mean time to 90% of loss reduction (s)")
        ax2.set_xlabel("job family")
        ax2.set_title(f"{wl}: time to 90% by family (sleep {mid:g} s; 95% CI)", fontsize=10)
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)
            ax.legend()
    return save_figure(fig, stem, caption)


@register_figure(
    NAME,
    summary="SLAQ vs fair on ours and the authors' workload: quality and delay, both readings",
    in_reproduce=True,
)
def make(size: str, seed: int, outdir: Path) -> list[Path]:
    config = pick(size, CONFIGS)
    rows = compute(config, seed, outdir, size)
    tab = table(rows)
    d = results_dir(outdir, "slaq")
    drop = ("times_s", "loss", "family_loss", "job_delays")
    runs = [{k: v for k, v in r.items() if k not in drop} for r in rows]
    paths = [write_csv(d / f"{STEM}.csv", tab), write_csv(d / f"{STEM}-runs.csv", runs)]
    sizes = "; ".join(
        f"{wl}: {w['jobs']} jobs on {w['cores']} cores, sleep "
        + "/".join(f"{s:g}" for s in w["sleeps"])
        + " s"
        + (f" ({w['seeds']} seeds)" if "seeds" in w else "")
        for wl, w in config["workloads"].items()
    )
    caption = "\n".join(
        textwrap.wrap(
            f"{NAME}, size={size}, seeds {seed}..{seed + config['seeds'] - 1}: {sizes}; "
            f"perfect scaling, epochs of 3 s; SLAQ vs fair, % (mean ± 95% t-interval).",
            150,
            break_on_hyphens=False,
        )
    )
    atomic_write_text(d / f"{STEM}.md", markdown(tab, caption.replace("\n", " ")))
    paths.append(d / f"{STEM}.md")
    paths += plot(rows, tab, d / STEM, caption)
    return paths
