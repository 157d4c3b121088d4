"""ESG (Hui et al., HPDC 2024): configuring serverless DNN inference pipelines under SLOs.

Reconstructed from the paper's description (its code is not public): the application model
(`app`), profile families (`profiles`), A* with dual-blade pruning (`astar`), the dominator-based
SLO split (`slo_split`), baselines (`greedy`) and exact optima (`exact_brute`, `exact_milp`,
`exact_cpsat`). Every method is registered with `register_method("esg", ...)` and solved
through `schedlab.solvers.solve.solve(app, method)`.
"""
