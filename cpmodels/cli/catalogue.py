"""serve, validate, specs and schema: the web page, and what specs there are and say."""

from __future__ import annotations

import argparse
import json
import sys

from cpmodels.cli.output import EXIT_BAD_INPUT, EXIT_OK, MAX_CONNECTIONS
from cpmodels.errors import CpmodelsError, InputError
from cpmodels.extras import require
from cpmodels.spec import CalendarSpec, Spec, json_schema, load_spec
from cpmodels.spec.bundled import bundled_specs, spec_path
from cpmodels.spec.design import DesignSpec
from cpmodels.spec.loading import is_design, load_design


def cmd_serve(args: argparse.Namespace) -> int:
    require("web", "cpmodels serve")
    import uvicorn

    from cpmodels.web.app import create_app

    paths = [spec_path(p) for p in args.specs]
    if not paths:
        # The bundled calendars, the weekday calendar (the main puzzle) first: the page
        # opens on the first spec.
        paths = sorted((p for p in bundled_specs().values()
                        if not is_design(p) and isinstance(load_spec(p), CalendarSpec)),
                       key=lambda p: (p.stem != "calendar_week", p.name))
        if not paths:
            raise InputError("no bundled calendar specs were found; name the specs to serve")
    app = create_app(paths, workers=args.workers, queue=args.queue,
                     time_limit=args.request_timeout)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}, not only on this machine", file=sys.stderr)
    print(f"serving {len(paths)} calendar spec(s) on http://{args.host}:{args.port}/ "
          "(Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                    limit_concurrency=MAX_CONNECTIONS)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: "
                         f"{exc.strerror or exc}") from None
    return EXIT_OK



def cmd_validate(args: argparse.Namespace) -> int:
    from cpmodels.design import load_board

    worst = EXIT_OK
    for path in args.specs:
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
    listed = []
    for name, path in bundled_specs().items():
        spec = load_design(path) if is_design(path) else load_spec(path)
        listed.append({"name": name, "kind": spec.kind,
                       "description": spec.description.strip().splitlines()[0]
                       if spec.description.strip() else ""})
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
    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK
