"""The server in a thread of this process, for the browser tests and the screenshot script:
``with background_server(data_dir) as url: ...`` serves ``create_app(data_dir)`` on a free
port of 127.0.0.1 until the block ends."""
from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager


@contextmanager
def background_server(data_dir=None, port: int = 0):
    import uvicorn

    from .app import create_app
    sock = socket.socket(socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(data_dir), log_level="warning"))
    server.install_signal_handlers = lambda: None  # (older uvicorn) not the main thread
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="dokosim-web-server", daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the dokosim web server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
