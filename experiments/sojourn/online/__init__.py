"""Online multi-server simulation of successful-job sojourn (arrivals, checkpoints, traces).

Modules: `workload` (jobs with arrival, GPU count, size distribution), `synthetic` and
`philly` (workload sources), `workloads` (the named workloads of `WORKLOADS`), `policies`
(one `policy_*` module per policy, registered in `POLICIES`), `simulator` (event loop in
steps), `runner` (replications with spawned seeds), `metrics` (means, percentiles, t-intervals).
"""
