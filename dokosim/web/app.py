"""The ASGI application of ``dokosim serve`` (Starlette): the pages (``pages/``: each page's body in
the layout they share; ``static/``: their styles and scripts; all shipped in the package, nothing
fetched from elsewhere) and the JSON API of each page (advise_api, deal_api, play_api). Every
answer to a bad request is a 4xx with ``{"error": "one line"}``; an unexpected failure is logged
and answered 500 with a short message, never a traceback; the server keeps serving."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from string import Template

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.responses import JSONResponse as _JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import advise_api, deal_api, play_api
from .common import MAX_BODY, ApiError, Jobs, body_object, defaults, int_field

STATIC = Path(__file__).parent / "static"
PAGE_FILES = Path(__file__).parent / "pages"


@dataclass(frozen=True)
class Page:
    path: str  # its address
    name: str  # its body: pages/<name>.html; its script: static/<name>.js
    title: str  # the title (before "· dokosim") and the nav link's text
    script: bool = True  # False: the page has no script of its own


PAGES = (Page("/", "index", "Home", script=False), Page("/advise", "advise", "Ask about a hand"),
         Page("/deal", "deal", "Look at a deal"), Page("/play", "play", "Play a hand"))
"""The pages in the nav bar's order."""
log = logging.getLogger("dokosim.web")


def _plain(value):
    import numpy as np
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value).__name__)


class JSONResponse(_JSONResponse):
    """JSON by orjson: numpy scalars and arrays as plain numbers and lists."""

    def render(self, content) -> bytes:
        import orjson
        return orjson.dumps(content, default=_plain, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)


async def read_json(request: Request):
    """The request's JSON body, at most MAX_BODY bytes (413), JSON (400)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise ApiError(413, f"the request is too large ({length} bytes; at most {MAX_BODY})")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise ApiError(413, f"the request is too large (more than {MAX_BODY} bytes)")
    if not data.strip():
        return {}
    try:
        return json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ApiError(400, "the request body is not JSON") from None


def render_page(page: Page) -> str:
    """The page's HTML: its body (pages/<name>.html) in the layout every page shares (pages/layout.html:
    the head, the nav bar of PAGES, the message line)."""
    layout = Template((PAGE_FILES / "layout.html").read_text(encoding="utf-8"))
    nav = "".join(f'<a href="{p.path}">{p.title}</a>' for p in PAGES)
    script = f'<script src="/static/{page.name}.js" defer></script>' if page.script else ""
    body = (PAGE_FILES / f"{page.name}.html").read_text(encoding="utf-8")
    return layout.substitute(title=page.title, script=script, nav=nav, body=body)


def create_app(data_dir: Path | str | None = None) -> Starlette:
    """The application; ``data_dir``: the only folder whose datasets it opens (None: none)."""
    data = Path(data_dir).expanduser().resolve() if data_dir is not None else None
    jobs = Jobs()
    tables = play_api.Tables()

    def page(which: Page):
        async def endpoint(request: Request):
            return HTMLResponse(render_page(which))  # read at each request, as the scripts are
        return endpoint

    async def meta(request: Request):
        from ..rules import PRESETS
        out = {**defaults(), "presets": list(PRESETS), "max_deals": advise_api.MAX_WEB_DEALS,
               "datasets": await run_in_threadpool(deal_api.datasets, data),
               "data_folder": str(data) if data is not None else None,
               "dd_node_limit": deal_api.DD_NODE_LIMIT, "band_node_limit": deal_api.BAND_NODE_LIMIT}
        return JSONResponse(out)

    async def advise(request: Request):
        body = await read_json(request)
        args = await run_in_threadpool(advise_api.check, body)
        job = jobs.start(lambda j: advise_api.run(args, j), "advise")
        job.total = len(args["options"])
        return JSONResponse({**job.view(), "strategy": args["strategy"], "deals": args["deals"],
                             "options": args["options"]}, status_code=202)

    async def job_state(request: Request):
        job = jobs.get(request.path_params["job"])
        return JSONResponse(job.view(), status_code=job.status if job.state == "error" else 200)

    async def deal_record(request: Request):
        body = body_object(await read_json(request))
        return JSONResponse(await run_in_threadpool(lambda: deal_api.view(deal_api.record_of(body))))

    async def deal_dataset(request: Request):
        body = await read_json(request)
        return JSONResponse(await run_in_threadpool(lambda: deal_api.view(deal_api.dataset_deal(data, body))))

    async def deal_card(request: Request):
        body = body_object(await read_json(request))

        def work():
            record = deal_api.record_of(body)
            return deal_api.card_info(record, int_field(body, "card", None, 0, 47))
        return JSONResponse(await run_in_threadpool(work))

    async def deal_analyse(request: Request):
        body = body_object(await read_json(request))
        record = await run_in_threadpool(deal_api.record_of, body)
        await run_in_threadpool(deal_api.view, record)  # a bad record: 422 now, not in the job
        jobs.cancel("analysis")  # one person, one deal on screen: the newest deal's analysis runs
        job = jobs.start(lambda j: deal_api.analyse(record, j), "analysis")
        return JSONResponse(job.view(), status_code=202)

    async def play_new(request: Request):
        body = await read_json(request)

        def work():
            table = play_api.new_table(body)
            tables.add(table)
            return play_api.view(table)
        return JSONResponse(await run_in_threadpool(work))

    def at_table(answer):
        """An endpoint on one game table (the body names it): answer(table, body), in a worker
        thread under the table's lock."""
        async def endpoint(request: Request):
            body = await read_json(request)
            table = tables.get(body_object(body).get("table"))

            def work():
                with table.lock:
                    return answer(table, body)
            return JSONResponse(await run_in_threadpool(work))
        return endpoint

    def play_act(table: play_api.Table, body) -> dict:
        play_api.act(table, body)
        return play_api.view(table)

    async def api_error(request: Request, exc: ApiError):
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def http_error(request: Request, exc: HTTPException):
        if exc.status_code == 404:
            message = f"nothing at {request.url.path}"
        else:
            message = exc.detail if isinstance(exc.detail, str) else "bad request"
        return JSONResponse({"error": message}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    async def server_error(request: Request, exc: Exception):
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"error": "the server failed on this request (its log says why)"}, status_code=500)

    async def no_favicon(request: Request):
        return Response(status_code=204)

    routes = [Route(p.path, page(p)) for p in PAGES]
    routes += [
        Route("/favicon.ico", no_favicon),
        Route("/api/meta", meta),
        Route("/api/advise", advise, methods=["POST"]),
        Route("/api/jobs/{job}", job_state),
        Route("/api/deal/record", deal_record, methods=["POST"]),
        Route("/api/deal/dataset", deal_dataset, methods=["POST"]),
        Route("/api/deal/card", deal_card, methods=["POST"]),
        Route("/api/deal/analyse", deal_analyse, methods=["POST"]),
        Route("/api/play/new", play_new, methods=["POST"]),
        Route("/api/play/act", at_table(play_act), methods=["POST"]),
        Route("/api/play/state", at_table(lambda table, body: play_api.view(table)), methods=["POST"]),
        Route("/api/play/hint", at_table(lambda table, body: {"hint": play_api.hint(table)}), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={ApiError: api_error, HTTPException: http_error,
                                                       Exception: server_error})
    app.state.data_dir = data
    app.state.jobs = jobs
    app.state.tables = tables
    return app


def serve_app() -> Starlette:
    """The application ``dokosim serve`` starts (uvicorn's app factory): the data folder from the
    environment variable DOKOSIM_SERVE_DATA (cli/serve.py sets it)."""
    import os
    folder = os.environ.get("DOKOSIM_SERVE_DATA")
    return create_app(folder if folder else None)


POST_ENDPOINTS = ("/api/advise", "/api/deal/record", "/api/deal/dataset", "/api/deal/card", "/api/deal/analyse",
                  "/api/play/new", "/api/play/act", "/api/play/state", "/api/play/hint")
"""Every endpoint that takes a JSON body (the fuzz test posts to each)."""
