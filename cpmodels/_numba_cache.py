"""Where numba keeps the compiled search kernels, so that a read-only install works.

numba caches a compiled function beside its module (``__pycache__``) or, when that folder
cannot be written (a system-wide or read-only install), in the user's cache folder
(``~/.cache/numba``). When neither can be written (a read-only install run by a user with
no writable home), numba would refuse to load the kernels at all; then the cache goes to a
folder of the temporary directory instead. Whatever ``NUMBA_CACHE_DIR`` says is kept.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _writable(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (made if absent). Only ``os`` is used: the
    package loads this first, so it must load fast."""
    probe = folder / f".cpmodels-probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.unlink(probe)
        return True
    except OSError:
        return False


def _user_cache() -> Path | None:
    """numba's own user-wide cache folder (as its ``appdirs`` finds it on Linux and macOS)."""
    try:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    except RuntimeError:  # no home directory at all
        return None
    return Path(base) / "numba"


def choose_cache_dir() -> None:
    """Point numba at a writable cache folder when its defaults cannot be written."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    if _writable(Path(__file__).resolve().parent / "__pycache__"):
        return
    user = _user_cache()
    if user is not None and _writable(user):
        return
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else "user"
    fallback = str(Path(tempfile.gettempdir()) / f"cpmodels-numba-{uid}")
    os.environ["NUMBA_CACHE_DIR"] = fallback  # read when numba is first imported
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba is imported already: tell its live settings
        config.CACHE_DIR = fallback  # type: ignore[attr-defined]
