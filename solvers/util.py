"""Small shared helpers: safe atomic file writes and a wall-clock timer."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

from schedlab.solvers.errors import InvalidInput


def check_output_path(path: str | Path, what: str = "output file") -> Path:
    """The path, after checking that writing a regular file there destroys nothing else.

    Refused (InvalidInput, before anything is opened for writing): an existing target that is
    not a regular file (a directory, device, FIFO or socket, or a symlink to one), a parent
    that is not a directory, a parent that cannot be created. Missing parents are created.
    """
    p = Path(path)
    src = str(p)
    if src in ("", ".", "-") or src.endswith(os.sep):
        raise InvalidInput(f"{what}: give a file name, not {src!r}", source=src or None)
    try:
        st = os.stat(p)  # follows symlinks: a link to a device is a device
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise InvalidInput(
            f"{what}: a parent of the path is a file, not a folder", source=src
        ) from None
    except OSError as exc:
        raise InvalidInput(f"{what}: cannot check the path ({exc.strerror})", source=src) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise InvalidInput(f"{what}: the path is a directory; give a file name", source=src)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInput(
                f"{what}: the path exists and is not a regular file (a device, pipe or "
                "socket); refusing to replace it",
                source=src,
            )
    elif p.is_symlink():
        raise InvalidInput(f"{what}: the path is a dangling symbolic link", source=src)
    parent = p.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InvalidInput(
            f"{what}: a parent of the path is a file, not a folder", source=src
        ) from None
    except OSError as exc:
        raise InvalidInput(
            f"{what}: cannot create the folder {str(parent)!r} ({exc.strerror})", source=src
        ) from None
    return p


def ensure_output_dir(path: str | Path, what: str = "results folder") -> Path:
    """The folder, created if missing; InvalidInput if it (or a parent) is not a folder."""
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise InvalidInput(f"{what}: the path exists and is not a folder", source=str(d))
    try:
        d.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InvalidInput(
            f"{what}: a parent of the path is a file, not a folder", source=str(d)
        ) from None
    except OSError as exc:
        raise InvalidInput(f"{what}: cannot create it ({exc.strerror})", source=str(d)) from None
    return d


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see either the old file or the new one.

    The target is checked first (`check_output_path`): an existing non-regular file is never
    replaced.
    """
    path = check_output_path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise InvalidInput(f"cannot write here ({exc.strerror})", source=str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


class Timer:
    """Context manager measuring wall-clock seconds in `.elapsed`."""

    def __enter__(self) -> Timer:
        self._t0 = time.perf_counter()
        self.elapsed = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed = time.perf_counter() - self._t0
