"""serve, validate, specs and schema: the web page, and what specs there are and say."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from cpmodels.cli.output import EXIT_BAD_INPUT, EXIT_OK
from cpmodels.cli.parser import non_negative_int, port, positive_int, positive_seconds
from cpmodels.errors import CpmodelsError, InputError
from cpmodels.extras import require

if TYPE_CHECKING:
    from cpmodels.cli.parser import Subparsers
    from cpmodels.spec import Spec
    from cpmodels.spec.design import DesignSpec


def cmd_serve(args: argparse.Namespace) -> int:
    require("web", "cpmodels serve")
    from cpmodels.spec.bundled import spec_path
    from cpmodels.web.app import create_app
    from cpmodels.web.connections import serve
    from cpmodels.web.puzzles import bundled_calendars

    paths = [spec_path(p) for p in args.specs] or bundled_calendars()
    app = create_app(paths, workers=args.workers, queue=args.queue,
                     time_limit=args.request_timeout, browser_engine=args.browser_engine)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}, not only on this machine", file=sys.stderr)

    def listening(port: int) -> None:
        host = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address
        print(f"serving {len(paths)} calendar spec(s) on http://{host}:{port}/ "
              "(Ctrl-C stops)", flush=True)

    try:
        serve(app, args.host, args.port, listening)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: "
                         f"{exc.strerror or exc}") from None
    return EXIT_OK



def cmd_validate(args: argparse.Namespace) -> int:
    from cpmodels.spec.bundled import spec_path
    from cpmodels.spec.validated import known_valid, read_catalogue

    worst, catalogue = EXIT_OK, read_catalogue()
    for path in args.specs:
        known = known_valid(spec_path(path), catalogue)
        if known is not None and known["kind"] != "design":  # (a design's board is read)
            print(f"{path}: ok ({known['kind']} '{known['name']}')")
            continue
        from cpmodels.spec import load_spec
        from cpmodels.spec.loading import is_design, load_board, load_design

        try:
            spec: Spec | DesignSpec
            if is_design(path):
                spec = load_design(path)
                load_board(spec, path)
            else:
                spec = load_spec(path)
        except CpmodelsError as exc:
            print(f"error: {exc}", file=sys.stderr)
            worst = EXIT_BAD_INPUT
            continue
        print(f"{path}: ok ({spec.kind} '{spec.name}')")
    return worst


def cmd_specs(args: argparse.Namespace) -> int:
    from cpmodels.spec.bundled import bundled_specs
    from cpmodels.spec.validated import known_valid, read_catalogue

    listed, catalogue = [], read_catalogue()
    for name, path in bundled_specs().items():
        known = known_valid(path, catalogue)
        if known is None:
            from cpmodels.spec import load_spec
            from cpmodels.spec.loading import is_design, load_design

            spec = load_design(path) if is_design(path) else load_spec(path)
            description = spec.description.strip()
            known = {"kind": spec.kind,
                     "description": description.splitlines()[0] if description else ""}
        listed.append({"name": name, "kind": known["kind"],
                       "description": known["description"]})
    if args.format == "json":
        print(json.dumps(listed, indent=2))
        return EXIT_OK
    if not listed:
        print("no bundled specs were found")
        return EXIT_OK
    width = max(len(s["name"]) for s in listed)
    for s in listed:
        print(f"{s['name']:<{width}}  {s['kind']:<8}  {s['description']}".rstrip())
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    from cpmodels.spec import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


def add_serve(sub: Subparsers) -> None:
    serve = sub.add_parser("serve", help="serve the daily-puzzle web page")
    serve.add_argument("specs", nargs="*", metavar="SPEC",
                       help="calendar specs to offer, by path or name (default: the bundled "
                       "calendars)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=port, default=8000,
                       help="the port to listen on (default 8000; 0: a free one, said on start)")
    serve.add_argument("--workers", type=positive_int, metavar="N",
                       help="searches run at once (default: one per core)")
    serve.add_argument("--queue", type=non_negative_int, default=None, metavar="N",
                       help="searches that may wait for a worker; more get 503 (default 64)")
    serve.add_argument("--request-timeout", type=positive_seconds, default=20.0, metavar="S",
                       help="seconds a request may take before it answers 504 (default 20)")
    serve.add_argument("--no-browser-engine", dest="browser_engine", action="store_false",
                       help="the pages ask this server for every answer, never the engine "
                       "in the browser")
    serve.set_defaults(handler=cmd_serve)


def add_validate(sub: Subparsers) -> None:
    validate = sub.add_parser("validate", help="check spec (and design) files and report "
                              "every problem")
    validate.add_argument("specs", nargs="+", metavar="SPEC")
    validate.set_defaults(handler=cmd_validate)


def add_schema(sub: Subparsers) -> None:
    schema = sub.add_parser("schema", help="print the JSON Schema of spec files (for editors)")
    schema.set_defaults(handler=cmd_schema)


def add_specs(sub: Subparsers) -> None:
    listing = sub.add_parser("specs", help="list the bundled specs: any command takes their "
                             "names instead of paths (cpmodels solve calendar_week)")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    listing.set_defaults(handler=cmd_specs)
