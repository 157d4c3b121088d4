"""The `esg` figure's exact comparison: brute force where it fits, CP-SAT everywhere."""

from __future__ import annotations

import json

from schedlab.experiments.esg import fig_esg


def test_chain_beyond_brute_cap_is_checked_by_cpsat_only(tmp_path) -> None:
    # chain 1: 4 stages x 400 configurations = 2.6e10 paths, above brute force's 1e9 cap
    rows = fig_esg.exact_rows({"chains": 2, "dags": 0, "configs": 400}, 0, tmp_path)
    row = next(r for r in rows if r["i"] == 1)
    assert row["raw_space"] > 1e9
    assert row["agree_brute"] is None
    assert row["agree_cpsat"] is True


def test_small_chain_is_checked_by_brute_force_too(tmp_path) -> None:
    rows = fig_esg.exact_rows({"chains": 1, "dags": 0, "configs": 15}, 0, tmp_path)
    (row,) = rows
    assert row["i"] == 0 and row["raw_space"] <= 1e9
    assert row["agree_brute"] is True and row["agree_cpsat"] is True


def test_tiny_figure_counts_brute_checked_chains(tmp_path) -> None:
    fig_esg.make("tiny", 0, tmp_path)
    summary = json.loads((tmp_path / "esg" / "esg-summary.json").read_text())
    assert summary["chains_brute"] == summary["chains"] == 4
    assert summary["astar_agrees_brute"] == summary["astar_agrees_cpsat"] == 4


def test_t_interval_by_hand() -> None:
    # 1, 2, 3, 4: mean 2.5, sd 1.2909944, t(0.975, 3) = 3.1824463 -> half 2.0542603
    mean, half = fig_esg.t_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half is not None and abs(half - 2.0542603) < 1e-6
    assert fig_esg.t_interval([3.0]) == (3.0, None)
    _, wide = fig_esg.t_interval([1.0, 2.0, 3.0, 4.0], confidence=0.99)
    assert wide is not None and wide > half


def test_aggregate_pairs_each_seed_with_the_reference() -> None:
    def run(policy: str, seed: int, hit: float, cost: float) -> dict[str, object]:
        return {"grid": "mig", "app": "a", "policy": policy, "load": 0.1, "seed": seed,
                "ablation": "none", "slo_hit_rate": hit, "cost": cost}  # fmt: skip

    runs = [run("esg", 0, 0.9, 1.0), run("esg", 1, 0.7, 2.0)]
    runs += [run("batch", 0, 0.5, 2.0), run("batch", 1, 0.6, 6.0)]
    rows = {r["policy"]: r for r in fig_esg.aggregate(runs)}
    b = rows["batch"]
    # cost ratios per seed 2 and 3: mean 2.5, half t(0.975, 1) x 0.7071 / sqrt(2) = 6.3531
    assert abs(b["cost_rel"] - 2.5) < 1e-12 and abs(b["cost_rel_ci"] - 6.3531) < 1e-3
    assert abs(b["hit_gain_pts"] - 25.0) < 1e-9  # (40 + 10) / 2 points
    assert rows["esg"]["cost_rel"] == 1.0 and rows["esg"]["seeds"] == 2


def test_keys_cover_every_policy_seed_and_ablation() -> None:
    cfg = fig_esg.CONFIGS["full"]
    keys = fig_esg.sim_keys(cfg)
    assert cfg["seeds"] >= 10 and set(cfg["grids"]) == {"mig", "mps"}
    main = [k for k in keys if k["ablation"] == "none"]
    assert len(main) == (
        len(cfg["grids"]) * len(cfg["apps"]) * len(cfg["loads"]) * len(fig_esg.policy_names())
        * cfg["seeds"]
    )  # fmt: skip
    assert {k["ablation"] for k in keys} == {"none", *fig_esg.ABLATIONS}
    assert len({tuple(sorted(k.items())) for k in keys}) == len(keys)
