"""`schedlab lop`: the exact linear-ordering core as a command (LOLIB matrices, PACE graphs)."""
