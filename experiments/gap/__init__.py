"""The gap study: every registered heuristic of a subject against the proven optimum.

Subject-free. A subject registers its instance families with `spec.register_gap` in its
`experiments/<subject>/gapspec.py` (generator, size ladder, problem kinds, exact methods);
`study.run_study` turns a family and a size into cells of (instance, method) run on the one
sweep runner, with exact optima cached apart from the other methods (`cache`), and
`summary` / `plot` give the one table and the one figure every subject shares.
`schedlab gap SUBJECT` is the command (`commands`).
"""
