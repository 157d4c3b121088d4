"""MkDocs hook: the repository files the manual links to (README, notebooks) become site files.

The pages are written to read well on a code host, where `docs/index.md` links `../README.md`
and the README links `docs/cli.md`. MkDocs only knows the files under `docs/`, so this hook adds
the README as a page (`readme.md` at the site's root) and every other repository file a page
links to (the notebooks, LICENSE, CITATION.cff) as a plain file at the same path from the root,
then rewrites those links to the site's layout. A link to a missing file is left as it is, so
`mkdocs build --strict` still reports it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.structure.files import File, Files

LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s#]+)([^)]*)\)")
README = "README.md"
# MkDocs would make a page named README.md the site's index.html, over docs/index.md.
README_PAGE = "readme.md"


def _root(config: Any) -> Path:
    return Path(config["docs_dir"]).resolve().parent


def _repo_path(page_uri: str, target: str, root: Path, docs: Path) -> str | None:
    """The repository-relative path of a link to a file outside docs/, else None."""
    base = root if page_uri == README_PAGE else (docs / page_uri).parent
    path = (base / target).resolve()
    if not path.is_file() or path.is_relative_to(docs) or not path.is_relative_to(root):
        return None
    return path.relative_to(root).as_posix()


def _targets(text: str) -> list[str]:
    return [m.group(1) for m in LINK.finditer(text)]


def on_files(files: Files, config: Any) -> Files:
    """Add the README as a page and the repository files the pages link to as plain files."""
    root, docs = _root(config), Path(config["docs_dir"]).resolve()
    readme = root / README
    files.append(File.generated(config, README_PAGE, abs_src_path=str(readme)))
    wanted: set[str] = set()
    pages = [(README_PAGE, readme)] + [
        (f.src_uri, Path(f.abs_src_path))
        for f in files
        if f.is_documentation_page() and f.abs_src_path
    ]
    for uri, path in pages:
        for target in _targets(path.read_text(encoding="utf-8")):
            repo = _repo_path(uri, target, root, docs)
            if repo and repo != README and files.get_file_from_path(repo) is None:
                wanted.add(repo)
    for repo in sorted(wanted):
        files.append(File.generated(config, repo, abs_src_path=str(root / repo)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point links to repository files (and the README's links into docs/) at the site's copies."""
    root, docs = _root(config), Path(config["docs_dir"]).resolve()
    uri = page.file.src_uri
    depth = uri.count("/")

    def rewrite(match: re.Match[str]) -> str:
        target, rest = match.group(1), match.group(2)
        if uri == README_PAGE and target.startswith("docs/"):
            return f"]({target.removeprefix('docs/')}{rest})"
        repo = _repo_path(uri, target, root, docs)
        if repo is None:
            return match.group(0)
        site = README_PAGE if repo == README else repo
        return f"]({'../' * depth}{site}{rest})"

    return _unescape_table_code(LINK.sub(rewrite, markdown))


CODE_SPAN = re.compile(r"`[^`]*`")


def _unescape_table_code(markdown: str) -> str:
    """A `\\|` inside a code span of a table row, which a code host needs to keep the cell whole,
    as a plain `|`: Python-Markdown's tables already keep code spans whole and would show the
    backslash."""
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("|") and "\\|" in line:
            lines[i] = CODE_SPAN.sub(lambda m: m.group(0).replace("\\|", "|"), line)
    return "\n".join(lines)


class _ExampleBlocks(Preprocessor):
    """Show the `Example:` lines of a command's help (two-space indented commands, kept apart by
    click's `\\b`) as a code block; Markdown would join them into one sentence."""

    LABEL = re.compile(r"^[A-Z][\w ()'-]*:$")
    COMMAND = re.compile(r"^  +(schedlab|python|make) ")

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(lines):
            out.append(lines[i])
            if (
                self.LABEL.match(lines[i])
                and i + 1 < len(lines)
                and self.COMMAND.match(lines[i + 1])
            ):
                j = i + 1
                while j < len(lines) and lines[j].startswith("  ") and lines[j].strip():
                    j += 1
                out += ["", "```sh", *(line.strip() for line in lines[i + 1 : j]), "```", ""]
                i = j
                continue
            i += 1
        return out


class _ExampleExtension(Extension):
    def extendMarkdown(self, md: Any) -> None:  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(_ExampleBlocks(md), "schedlab_examples", 140)


def on_config(config: Any) -> Any:
    """Add the Example-block preprocessor, at priority 140: after mkdocs-click (141), on the
    Markdown it writes."""
    config["markdown_extensions"].append(_ExampleExtension())
    return config
