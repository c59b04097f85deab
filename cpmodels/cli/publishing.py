"""site: the daily puzzles as a static site, played with the engine in the browser."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cpmodels.cli.output import EXIT_OK
from cpmodels.extras import require

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers


def cmd_site(args: argparse.Namespace) -> int:
    require("web", "cpmodels site")
    from cpmodels.spec.bundled import spec_path
    from cpmodels.web.puzzles import bundled_calendars
    from cpmodels.web.site import SERVICE_WORKER, write_site

    paths = [spec_path(p) for p in args.specs] or bundled_calendars()
    site = write_site(args.out, paths)
    engine = site.files.get("static/engine/engine.wasm", 0)
    print(f"wrote {len(site.files)} files, {site.total_bytes:,} bytes, to {site.out} "
          f"(version {site.version}; engine.wasm {engine:,} bytes)")
    for path in sorted(site.files):
        print(f"  {path}" + ("  (service worker: keeps the puzzles opened for offline play)"
                             if path == SERVICE_WORKER else ""))
    if site.removed:
        n = len(site.removed)
        print(f"removed {n} file{'s' * (n > 1)} of the earlier site: "
              + ", ".join(site.removed))
    print(f"serve it with: python -m http.server -d {site.out}  "
          "(then open http://localhost:8000/), or copy the folder to any static host")
    return EXIT_OK


def add_site(sub: Subparsers) -> None:
    site = sub.add_parser("site", help="write the daily-puzzle pages as a static site that "
                          "plays in the browser, with no server (and offline)")
    site.add_argument("out", metavar="OUT",
                      help="the folder to write: new, empty, or an earlier site")
    site.add_argument("specs", nargs="*", metavar="SPEC",
                      help="calendar specs to offer, by path or name (default: the bundled "
                      "calendars)")
    site.set_defaults(handler=cmd_site)
