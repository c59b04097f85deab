"""Re-execute the notebooks and store them with their outputs, or check the stored ones.

    python notebooks/run.py                 # every notebook, executed and written back
    python notebooks/run.py 02_sweep        # only these (by name, with or without .ipynb)
    python notebooks/run.py --check         # execute, compare with what is stored, write nothing

A stored notebook is true when a fresh run prints the same text (counts, totals and
verdicts; times in seconds and object addresses aside) and draws the same kinds of pictures
(an SVG compared after its generated ids are set aside; a PNG by its presence). ``--check``
names the first cell that differs; running without it writes the fresh outputs back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbclient
import nbformat

HERE = Path(__file__).resolve().parent
TIME_LIMIT_S = 600  # a cell that runs longer fails (the longest take a few seconds)
# Text that differs from run to run: times, addresses, widget model ids.
VARYING = [
    (re.compile(r"\d+(?:\.\d+)?(?= s\b)"), "<seconds>"),
    (re.compile(r"\b0x[0-9a-f]+\b"), "<address>"),
    (re.compile(r'"model_id": "[0-9a-f]+"'), '"model_id": "<id>"'),
    (re.compile(r"\b[0-9a-f]{32}\b"), "<id>"),
]
SVG_IDS = re.compile(r'(id|href|clip-path|url)\(?="?#?[\w-]+\)?"?')


def notebooks(names: list[str] | None = None) -> list[Path]:
    """The notebooks by name (all of them by default)."""
    every = sorted(HERE.glob("*.ipynb"))
    if not names:
        return every
    wanted = {name.removesuffix(".ipynb") for name in names}
    unknown = wanted - {path.stem for path in every}
    if unknown:
        raise SystemExit(f"no notebook {', '.join(sorted(unknown))}; "
                         f"there are {', '.join(p.stem for p in every)}")
    return [path for path in every if path.stem in wanted]


AT_ONCE = 2  # notebooks run side by side by execute_all, each in a kernel of its own


def _client(path: Path) -> nbclient.NotebookClient:
    """A client to run the notebook at ``path`` top to bottom in a fresh kernel, in its
    own folder."""
    notebook = nbformat.read(path, as_version=4)
    return nbclient.NotebookClient(notebook, timeout=TIME_LIMIT_S, kernel_name="python3",
                                   record_timing=False, store_widget_state=False,
                                   resources={"metadata": {"path": str(path.parent)}})


def _ran(client: nbclient.NotebookClient) -> nbformat.NotebookNode:
    for cell in client.nb.cells:
        cell.metadata.pop("execution", None)
    return client.nb


def execute(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` run top to bottom in a fresh kernel, in its own folder."""
    client = _client(path)
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    return _ran(client)


def execute_all(paths: list[Path], at_once: int = AT_ONCE,
                ) -> list[nbformat.NotebookNode | Exception]:
    """The notebooks at ``paths`` each run as :func:`execute` runs it (a fresh kernel of its
    own), ``at_once`` side by side, so that one's kernel starts and waits while another
    computes; each one's run, or the error that stopped it, in the order given."""

    async def one(path: Path, turns: asyncio.Semaphore) -> nbformat.NotebookNode:
        async with turns:
            client = _client(path)
            await client.async_execute()
            return _ran(client)

    async def every() -> list[nbformat.NotebookNode | Exception]:
        turns = asyncio.Semaphore(at_once)
        done = await asyncio.gather(*(one(path, turns) for path in paths),
                                    return_exceptions=True)
        for outcome in done:  # an interrupt is no notebook's error: it stops the run
            if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                raise outcome
        return done  # type: ignore[return-value]

    try:
        asyncio.get_running_loop()
    except RuntimeError:  # none running here: the usual case
        return asyncio.run(every())
    # called where an event loop already runs (a notebook, a browser driven from a test):
    # the notebooks' own loop on a thread of its own
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, every()).result()


def _text(value: Any) -> str:
    if isinstance(value, dict):  # JSON data (a widget's view): its keys in any order
        value = json.dumps(value, sort_keys=True)
    text = "".join(value) if isinstance(value, list) else str(value)
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text


def summary(cell: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """What a code cell shows, as (kind, normalised content) pairs in order."""
    shown = []
    for out in cell.get("outputs", []):
        kind = out["output_type"]
        if kind == "stream":
            shown.append((out["name"], _text(out["text"])))
        elif kind == "error":
            shown.append(("error", f"{out['ename']}: {out['evalue']}"))
        else:
            for mime, value in sorted(out.get("data", {}).items()):
                if mime == "image/png":
                    shown.append((mime, "a picture"))
                elif mime == "image/svg+xml":
                    shown.append((mime, SVG_IDS.sub("", _text(value))))
                else:
                    shown.append((mime, _text(value)))
    # a stream may come in several pieces: join neighbours of the same stream
    joined: list[tuple[str, str]] = []
    for kind, text in shown:
        if joined and kind in ("stdout", "stderr") and joined[-1][0] == kind:
            joined[-1] = (kind, joined[-1][1] + text)
        else:
            joined.append((kind, text))
    return joined


def differences(stored: nbformat.NotebookNode, fresh: nbformat.NotebookNode) -> list[str]:
    """Where a fresh run shows something else than the stored notebook, cell by cell."""
    found = []
    olds = [c for c in stored.cells if c.cell_type == "code"]
    news = [c for c in fresh.cells if c.cell_type == "code"]
    if len(olds) != len(news):
        found.append(f"{len(olds)} code cells stored, {len(news)} in a fresh run")
    for n, (old, new) in enumerate(zip(olds, news), 1):
        before, after = summary(old), summary(new)
        if before != after:
            first = next((k for k, (a, b) in enumerate(zip(before, after)) if a != b),
                         min(len(before), len(after)))
            was = before[first] if first < len(before) else ("nothing", "")
            now = after[first] if first < len(after) else ("nothing", "")
            found.append(f"code cell {n} ({old.source.splitlines()[0][:60]!r}): stored "
                         f"{was[0]} {was[1][:200]!r}, a fresh run {now[0]} {now[1][:200]!r}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks to run (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the stored outputs instead of writing them")
    args = parser.parse_args(argv)
    failed = 0
    chosen = notebooks(args.names)
    for path, fresh in zip(chosen, execute_all(chosen)):
        if isinstance(fresh, Exception):
            raise fresh
        if args.check:
            found = differences(nbformat.read(path, as_version=4), fresh)
            failed += bool(found)
            print(f"{path.name}: " + ("; ".join(found) if found else "as stored"))
        else:
            nbformat.write(fresh, path)
            print(f"{path.name}: executed and written")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
