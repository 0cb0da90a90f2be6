#!/usr/bin/env python3
"""Start a real OData test service on 127.0.0.1.

    python Tests/servers/serve.py v4|v2|v4tricky|v2flight|v4flight [--page-size N] [--port 0] [--threads N]
                                  [--products N] [--categories N] [--orderlines N]   (v4, v2)
                                  [--lean-changesets]                                (v4, benchmarks)

Prints ``READY <service-root-url>`` when listening, then runs until SIGTERM/SIGINT or
until stdin reaches EOF (see _launcher.py). Services, models and quirks: README.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _launcher  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("version", choices=["v4", "v2", "v4tricky", "v2flight", "v4flight"],
                        help="v4: odatapy; v2: pyslet; v4tricky: odatapy with data that trips up query evaluators (tricky_service.py); "
                             "v2flight: pyslet serving SAP's flight sample RMTSAMPLEFLIGHT (flight_service.py); "
                             "v4flight: odatapy serving a V4 translation of it (flight_v4_service.py)")
    parser.add_argument("--page-size", type=int, default=None,
                        help="server-driven paging: at most N entities per response "
                             "(v4 default: no paging; v2 default: 100, pyslet's topmax)")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads")
    # Larger data sets for benchmarks (bench/download, bench/localread); the defaults are the
    # seed every test relies on (README.md, "Seed data").
    parser.add_argument("--products", type=int, default=None, metavar="N",
                        help="seed N products instead of 300 (same formulas)")
    parser.add_argument("--categories", type=int, default=None, metavar="N",
                        help="spread the products over N categories instead of 10")
    parser.add_argument("--orderlines", type=int, default=None, metavar="N",
                        help="seed N order lines instead of 200")
    parser.add_argument("--lean-changesets", action="store_true",
                        help="v4, benchmarks only: a $batch changeset of one request runs without odatapy's "
                             "copy of the whole store (v4_service._lean_changesets)")
    _launcher.add_common_arguments(parser)
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)

    import seed
    try:
        sizes = seed.Sizes(args.products, args.categories, args.orderlines)
    except ValueError as exc:
        parser.error(str(exc))
    if not sizes.is_default() and args.version not in ("v4", "v2"):
        parser.error("--products, --categories and --orderlines apply to v4 and v2 only")
    if args.lean_changesets and args.version != "v4":
        parser.error("--lean-changesets applies to v4 only")

    import waitress
    _keep_alive_after_bodiless_responses()

    cleanup_dirs: list[str] = []
    if args.version == "v4":
        import v4_service
        app = v4_service.build_app(args.page_size, sizes, lean_changesets=args.lean_changesets)
        mount = v4_service.MOUNT + "/"
    elif args.version == "v4tricky":
        import tricky_service
        app = tricky_service.build_app(args.page_size)
        mount = tricky_service.MOUNT + "/"
    elif args.version == "v4flight":
        import flight_v4_service
        app = flight_v4_service.build_app(args.page_size)
        mount = flight_v4_service.MOUNT + "/"
    elif args.version == "v2flight":
        import flight_service
        workdir = tempfile.mkdtemp(prefix="ods-v2flight-")
        cleanup_dirs.append(workdir)
        mount = flight_service.MOUNT + "/"
    else:
        import v2_service
        workdir = tempfile.mkdtemp(prefix="ods-v2-")
        cleanup_dirs.append(workdir)
        # pyslet needs its service root (with the port) before it serves: bind first.
        mount = v2_service.MOUNT + "/"

    server = waitress.create_server(
        _deferred_app if args.version in ("v2", "v2flight") else app,
        host=args.host, port=args.port, threads=args.threads,
        ident="odatastore-test", clear_untrusted_proxy_headers=True,
    )
    root = f"http://{args.host}:{server.effective_port}{mount}"
    if args.version == "v2":
        _deferred_app.app = v2_service.build_app(root, workdir, args.page_size, sizes)
    elif args.version == "v2flight":
        _deferred_app.app = flight_service.build_app(root, workdir, args.page_size)

    import threading
    thread = threading.Thread(target=server.run, name="waitress", daemon=True)
    thread.start()

    def stop() -> None:
        server.close()
        for d in cleanup_dirs:
            shutil.rmtree(d, ignore_errors=True)

    _launcher.run_until_stopped(root, stop, watch_stdin=not args.ignore_stdin)


def _keep_alive_after_bodiless_responses() -> None:
    """Harness workaround for waitress 3.0.2: it closes the connection after every 204/304.

    waitress decides "no Content-Length => close" before it considers that 204/304 never
    carry a body, so each PATCH/DELETE (204) would cost the client a new connection. HTTP/1.1
    needs no length for these responses; keep the connection unless the client asked to
    close it. Only the server's connection handling changes, never what a client sends.
    """
    from waitress.task import Task

    original = Task.build_response_header

    def build_response_header(self):
        if (self.version == "1.1" and not self.has_body and not self.close_on_finish
                and self.request.headers.get("CONNECTION", "").lower() != "close"):
            self.set_close_on_finish = lambda: None
            try:
                return original(self)
            finally:
                del self.set_close_on_finish
        return original(self)

    Task.build_response_header = build_response_header


class _DeferredApp:
    """Forwards to an app that is built after the socket is bound (it needs the port)."""

    app = None

    def __call__(self, environ, start_response):
        return self.app(environ, start_response)


_deferred_app = _DeferredApp()

if __name__ == "__main__":
    main()
