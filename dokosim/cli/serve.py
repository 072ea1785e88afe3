"""``dokosim serve``: the browser pages on a local web server (docs/web.md; the ``web`` extra).

The pages live in ``dokosim/web/``, the layer above this one (it reads the commands' defaults),
so this command imports nothing from it: uvicorn loads the application by name
(``dokosim.web.app:serve_app``, an app factory) and the data folder is passed in the
environment (``DOKOSIM_SERVE_DATA``), as uvicorn's factories take their settings."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .options import UsageError

APP_FACTORY = "dokosim.web.app:serve_app"
DATA_VARIABLE = "DOKOSIM_SERVE_DATA"
INSTALL_HINT = "dokosim serve needs the web extra: pip install 'dokosim[web]' (starlette and uvicorn)"


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (127.0.0.1: this machine only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8046, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="The only folder whose datasets the pages may open.")
@click.option("--no-browser", is_flag=True, help="Serve without opening a browser.")
def serve(host, port, data_dir, no_browser):
    """Serve the pages: ask about a hand (advise), look at a deal (a game record or a dataset's
    deal, step by step, double-dummy values), play a hand against the bots."""
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        click.echo(INSTALL_HINT, err=True)
        sys.exit(2)
    data = Path(data_dir).expanduser()
    if not data.is_dir():
        raise UsageError(f"--data {data_dir!r} is not a folder")
    import os
    import socket
    try:  # the port checked (and 0 resolved) before the browser is told where to look
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
    click.echo(f"dokosim serve: {url} (datasets from {data.resolve()}; Ctrl-C stops)", err=True)
    if not no_browser:
        import threading
        import webbrowser
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    os.environ[DATA_VARIABLE] = str(data.resolve())
    config = uvicorn.Config(APP_FACTORY, factory=True, log_level="warning")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
