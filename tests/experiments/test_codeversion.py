"""The code version: a digest of the package's source and data files."""

from __future__ import annotations

from schedlab.experiments.codeversion import code_version, source_files, tree_digest


def make_tree(root):
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "sub" / "mod.py").write_text("X = 1\n")
    (root / "pkg" / "sub" / "data.csv").write_text("a,b\n1,2\n")
    return root / "pkg"


def test_digest_changes_with_source_and_data_only(tmp_path):
    pkg = make_tree(tmp_path)
    base = tree_digest(pkg)
    assert tree_digest(pkg) == base
    (pkg / "sub" / "__pycache__").mkdir()
    (pkg / "sub" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (pkg / "README.md").write_text("prose")
    assert tree_digest(pkg) == base  # byte code and prose are not code
    (pkg / "sub" / "mod.py").write_text("X = 2\n")
    edited = tree_digest(pkg)
    assert edited != base
    (pkg / "sub" / "data.csv").write_text("a,b\n1,3\n")
    assert tree_digest(pkg) not in (base, edited)


def test_renaming_a_file_changes_the_digest(tmp_path):
    pkg = make_tree(tmp_path)
    base = tree_digest(pkg)
    (pkg / "sub" / "mod.py").rename(pkg / "sub" / "other.py")
    assert tree_digest(pkg) != base


def test_linked_folders_are_followed(tmp_path):
    """A development checkout links src/schedlab/<part> to the top-level folders."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "m.py").write_text("Y = 1\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "part").symlink_to(tmp_path / "real", target_is_directory=True)
    assert [p.relative_to(pkg).as_posix() for p in source_files(pkg)] == ["part/m.py"]
    base = tree_digest(pkg)
    (tmp_path / "real" / "m.py").write_text("Y = 2\n")
    assert tree_digest(pkg) != base


def test_code_version_covers_all_three_packages():
    from pathlib import Path

    import schedlab

    root = Path(schedlab.__file__).parent
    parts = {p.relative_to(root).parts[0] for p in source_files(root)}
    assert {"solvers", "theory", "experiments"} <= parts
    v = code_version()
    assert len(v) == 16 and int(v, 16) >= 0
    assert code_version() == v


def _pkg(root, files):
    """A fake `schedlab` package tree under root/schedlab with the given module texts."""
    pkg = root / "schedlab"
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pkg


def test_import_closure_follows_static_and_lazy_imports(tmp_path):
    from schedlab.experiments.codeversion import import_closure

    pkg = _pkg(
        tmp_path,
        {
            "__init__.py": "",
            "solvers/__init__.py": "",
            "solvers/base.py": "X = 1\n",
            "solvers/a/__init__.py": "",
            "solvers/a/m.py": "from schedlab.solvers import base\n"
            "def f():\n    from . import lazy\n",
            "solvers/a/lazy.py": "from ..base import X\n",
            "solvers/b/__init__.py": "",
            "solvers/b/m.py": "import numpy\n",
        },
    )
    got = import_closure(["schedlab.solvers.a.m"], pkg)
    assert got == {
        "schedlab",
        "schedlab.solvers",
        "schedlab.solvers.base",
        "schedlab.solvers.a",
        "schedlab.solvers.a.m",
        "schedlab.solvers.a.lazy",
    }


def codeversion_caches_clear():
    from schedlab.experiments import codeversion

    for f in (codeversion.module_path, codeversion.imported_modules, codeversion._closure):
        f.cache_clear()


def test_modules_version_sees_only_the_closure_and_its_data(tmp_path):
    from schedlab.experiments.codeversion import modules_version

    pkg = _pkg(
        tmp_path,
        {
            "__init__.py": "",
            "solvers/__init__.py": "",
            "solvers/a/__init__.py": "",
            "solvers/a/m.py": "X = 1\n",
            "solvers/a/data/t.csv": "1\n",
            "solvers/b/__init__.py": "",
            "solvers/b/m.py": "Y = 1\n",
        },
    )
    mods = ("schedlab.solvers.a.m",)
    base = modules_version(mods, pkg)
    modules_version.cache_clear()
    codeversion_caches_clear()
    (pkg / "solvers/b/m.py").write_text("Y = 2\n")  # another subject: no change
    assert modules_version(mods, pkg) == base
    modules_version.cache_clear()
    codeversion_caches_clear()
    (pkg / "solvers/a/data/t.csv").write_text("2\n")  # its data: a change
    assert modules_version(mods, pkg) != base
    modules_version.cache_clear()
    codeversion_caches_clear()


def test_scope_versions_separate_subjects():
    from schedlab.experiments.codeversion import import_closure, subject_modules

    soj = import_closure(subject_modules("sojourn"))
    assert "schedlab.solvers.sojourn.heuristics" in soj
    assert not any(".synergy" in m or ".esg" in m or ".slaq" in m for m in soj)


def test_pinned_version_is_what_journals_use():
    from schedlab.experiments import codeversion

    assert codeversion.current() == codeversion.code_version()
    with codeversion.pinned("abc"):
        assert codeversion.current() == "abc"
    assert codeversion.current() == codeversion.code_version()


def _ast_imports(name, root):
    """The same scan done with the ast module (slower): the reference for the text scan."""
    import ast

    from schedlab.experiments.codeversion import module_path

    path = module_path(name, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = package.split(".")
                base = ".".join(pkg[: len(pkg) - node.level + 1] + ([base] if base else []))
            found |= {base} | {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if module_path(m, root) is not None}


def test_text_scan_finds_every_import_the_ast_finds():
    """Over the whole package: the import scan misses nothing a full parse sees."""
    from schedlab.experiments.codeversion import imported_modules, package_root

    root = package_root()
    for path in source_files(root):
        if path.suffix != ".py":
            continue
        parts = path.relative_to(root).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        name = ".".join(("schedlab", *parts))
        assert _ast_imports(name, root) <= imported_modules(name, root), name
