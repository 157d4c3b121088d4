"""Benchmarks (`make bench`): every `bench_*` module registers a `run(quick: bool) -> None` in
`schedlab.experiments.registry.BENCHMARKS` that prints a table. Speed targets live here, never
in unit tests."""
