"""The one registry: registration, scopes, tags, discovery, unknown names, plugins."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from schedlab.solvers.errors import InvalidInput
from schedlab.solvers.registry import Registry


def test_register_get_and_filter():
    reg: Registry[int] = Registry("widget")
    reg.add("a", 1, scope="s1", tags=("x",), exact=True)
    reg.add("b", 2, scope="s1", tags=("y",), exact=False)
    reg.add("a", 3, scope="s2")
    assert reg.get("a", scope="s1").obj == 1
    assert reg.get("a", scope="s2").obj == 3
    assert reg.names(scope="s1") == ["a", "b"]
    assert reg.names(tag="x") == ["a"]
    assert reg.names(scope="s1", exact=False) == ["b"]
    assert reg.scopes() == ["s1", "s2"]
    assert reg.get("b", scope="s1").key == "s1/b"


def test_unknown_name_lists_choices():
    reg: Registry[int] = Registry("widget")
    reg.add("alpha", 1, scope="s")
    with pytest.raises(InvalidInput, match=r"unknown s widget 'beta'; choose one of: alpha"):
        reg.get("beta", scope="s")


def test_double_registration_is_an_error():
    reg: Registry[int] = Registry("widget")
    reg.add("a", 1)
    with pytest.raises(ValueError, match="registered twice"):
        reg.add("a", 2)


def test_summary_defaults_to_first_doc_line():
    reg: Registry[object] = Registry("widget")

    def f() -> None:
        """Does a thing.

        More text."""

    reg.add("f", f)
    assert reg.get("f").summary == "Does a thing."


def test_discovery_imports_matching_modules_only(tmp_path, monkeypatch):
    pkg = tmp_path / "discopkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    reg_mod = "from schedlab.solvers.registry import Registry\nREG = Registry('thing', "
    reg_mod += "packages=('discopkg',), modules=('fig_*',))\n"
    (pkg / "reg.py").write_text(reg_mod)
    (pkg / "sub" / "fig_one.py").write_text("from discopkg.reg import REG\nREG.add('one', 1)\n")
    (pkg / "sub" / "other.py").write_text("raise RuntimeError('must not be imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from discopkg.reg import REG  # type: ignore[import-not-found]

    assert REG.names() == ["one"]


def test_plugins_env_registers_a_method_seen_by_a_fresh_process(tmp_path):
    (tmp_path / "myplugin.py").write_text(
        textwrap.dedent(
            """
            from schedlab.experiments.registry import register_figure

            @register_figure("plugin-fig", summary="a figure from a plugin")
            def fig(size, seed, outdir):
                return []
            """
        )
    )
    code = "from schedlab.experiments.registry import FIGURES; print(FIGURES.names())"
    env = {"SCHEDLAB_PLUGINS": "myplugin", "PYTHONPATH": str(tmp_path)}
    import os

    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "plugin-fig" in proc.stdout


def test_bad_plugin_name_is_invalid_input(monkeypatch):
    import schedlab.solvers.registry as r

    monkeypatch.setattr(r, "_plugins_loaded", False)
    monkeypatch.setenv("SCHEDLAB_PLUGINS", "no_such_plugin_module_xyz")
    with pytest.raises(InvalidInput, match="SCHEDLAB_PLUGINS: cannot import plugin module"):
        r.load_plugins()
    monkeypatch.setattr(r, "_plugins_loaded", True)


def test_a_forked_child_does_not_inherit_a_held_discovery_lock():
    """Studies run in threads while workers fork: a worker must not wait forever for the
    discovery lock that another thread of its parent held at the instant of the fork."""
    import os
    import threading

    import schedlab.solvers.registry as reg

    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with reg._LOAD_LOCK:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    try:
        pid = os.fork()
        if pid == 0:  # the child: the lock must be free
            os._exit(0 if reg._LOAD_LOCK.acquire(timeout=5) else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        t.join()
    assert os.waitstatus_to_exitcode(status) == 0
