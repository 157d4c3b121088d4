"""Benchmarks (`make bench`): each module in experiments.registry.BENCH_MODULES has a
`run(quick: bool) -> None` that prints a table. Speed targets live here, never in unit tests."""
