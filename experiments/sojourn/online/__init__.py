"""Online multi-server simulation of successful-job sojourn (arrivals, checkpoints, traces).

Modules: `workload` (jobs with arrival, GPU count, size distribution), `synthetic` and
`philly` (workload sources), `policies` (one module per policy), `simulator` (event loop),
`runner` (replications with spawned seeds), `metrics` (means, percentiles, t-intervals).
"""
