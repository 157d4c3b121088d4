"""The linear-ordering engine: min over orders of sum_{a before b} W[a, b], exact, with a bound.

A shared library of `schedlab.solvers` (beside `kernels` and `kit`; it imports no subject):
- `core`: the preference blocks, the block loop and the block model protocol that every exact
  back end implements (`solve_lop_matrix`, `solve_block`);
- `lpcut`: the HiGHS back end (LP model, separation, LP rounds, primal side, MIP hand-off),
  its options and its tuning (`lpcut.options`), and `cyclepack`, its cycle-packing certificate;
- the problems of the "lop" subject of `solve`: `matrix.LopMatrix` (a dense LOLIB matrix, kind
  "matrix") and `graph.OcrGraph` (a PACE 2024 crossing graph, kind "crossings"), with their
  readers (`matrix`, `graph`, both on `text`), the crossing graph's pairs and blocks
  (`crossings`) and its route (`graph_route`); `methods` registers "lpcut" for both.
Sojourn's objectives A and B reach the engine through `solvers.sojourn.lop` (the adapter that
builds W from an instance) and their own back ends. docs/lop.md tells the engine's story.
"""
