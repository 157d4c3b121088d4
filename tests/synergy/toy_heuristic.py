"""A toy Synergy allocator in one file (a plugin: `SCHEDLAB_PLUGINS=tests.synergy.toy_heuristic`):
every job at the GPU-proportional share, in policy order, while it fits. One decorator;
`schedlab gap synergy` then compares it."""

from schedlab.solvers.solve import register_method


@register_method("synergy", "toy", exact=False, tags=("fast",), summary="proportional share")
def toy(p, options):
    def run(models, gpus, *, deadline=None):
        st = p.state(len(models))
        for j, (k, g) in enumerate(zip(models, gpus, strict=True)):
            if g <= st.total_free:
                p.place(st, j, g, p.pc, p.pm, p.prop_t[k])
        return p.result(st, gpus, {})

    return run
