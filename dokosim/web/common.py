"""What the web API modules share: the error a request gets (``ApiError``: a status and one line),
the checks of a request's JSON fields, the defaults read from the command line's own options
(so the pages follow when a default changes), and background jobs with progress (``Jobs``)."""
from __future__ import annotations

import itertools
import logging
import threading
import time
import uuid
from collections import OrderedDict

log = logging.getLogger("dokosim.web")

MAX_BODY = 256 * 1024
"""Bytes a request body may have (413 past it): a game record is about 1 kB."""
MAX_SEED = 2**63 - 1


class ApiError(Exception):
    """A request the server refuses: ``status`` (4xx) and a one-line message for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def body_object(data) -> dict:
    """The request's JSON body as a dict, else 400."""
    if not isinstance(data, dict):
        raise ApiError(400, f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def int_field(body: dict, name: str, default, lo: int, hi: int) -> int:
    """``body[name]`` as an integer from ``lo`` to ``hi`` (``default`` when absent; None: required)."""
    value = body.get(name, default)
    if value is None:
        raise ApiError(422, f"{name} is missing: an integer from {lo} to {hi}")
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) < 25:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(422, f"{name}={_short(value)} is not valid: an integer from {lo} to {hi}")
    return value


def str_field(body: dict, name: str, default=None, max_len: int = 10_000) -> str:
    value = body.get(name, default)
    if value is None:
        raise ApiError(422, f"{name} is missing")
    if not isinstance(value, str):
        raise ApiError(422, f"{name}={_short(value)} is not valid: a string")
    if len(value) > max_len:
        raise ApiError(413, f"{name} is too long ({len(value)} characters, at most {max_len})")
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def rules_field(body: dict, name: str = "rules"):
    """The Rules of ``body[name]``: a preset name (default ddv) or a rules object; 422 if bad."""
    from ..game.game import GameError, deal_rules
    value = body.get(name, "ddv")
    if not isinstance(value, (str, dict)):
        raise ApiError(422, f"{name}={_short(value)} is not valid: a preset name or a rules object")
    try:
        return deal_rules(value, "the pages play one deal of four")
    except (GameError, ValueError, TypeError) as exc:
        raise ApiError(422, str(exc)) from None


def cli_default(command, name: str):
    """The default of option ``name`` of a click command: the pages use the command line's own."""
    for param in command.params:
        if param.name == name:
            return param.default
    raise LookupError(name)


def defaults() -> dict:
    """The defaults the pages show, read from the commands: advise's strategy and deals, play's
    bots, the hint's player."""
    from ..cli.advise import advise
    from ..cli.play import play
    from ..game.hint import HINT_PLAYER
    return {"advise_strategy": cli_default(advise, "strategy"), "advise_deals": cli_default(advise, "deals"),
            "play_strategy": cli_default(play, "strategy"), "hint_player": HINT_PLAYER}


class Job:
    __slots__ = ("id", "state", "done", "total", "label", "result", "error", "status", "started", "seconds", "kind",
                 "cancelled")

    def __init__(self):
        self.id = uuid.uuid4().hex[:16]
        self.state = "running"
        self.done, self.total, self.label = 0, 1, ""
        self.result = None
        self.error = None
        self.status = 200
        self.started = time.time()
        self.seconds = None
        self.kind = ""
        self.cancelled = False  # the work checks it between its steps and stops

    def view(self) -> dict:
        out = {"job": self.id, "state": self.state, "done": self.done, "total": self.total, "label": self.label,
               "elapsed": round((self.seconds if self.seconds is not None else time.time() - self.started), 2)}
        if self.state == "done":
            out["result"] = self.result
        if self.state == "error":
            out["error"] = self.error
        return out


class Jobs:
    """Work run in a thread of its own, polled by id: at most ``running`` at once (429 past it),
    the last ``keep`` kept."""

    def __init__(self, running: int = 3, keep: int = 64):
        self.running, self.keep = running, keep
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.lock = threading.Lock()
        self.counter = itertools.count()

    def start(self, work, name: str) -> Job:
        """Run ``work(job)`` in a thread; it returns the result, or raises ApiError (the job ends
        with that status and message) or anything else (logged; the page sees a short message)."""
        with self.lock:
            busy = sum(j.state == "running" for j in self.jobs.values())
            if busy >= self.running:
                raise ApiError(429, f"{busy} jobs are running; wait for one to finish and ask again")
            job = Job()
            job.kind = name
            self.jobs[job.id] = job
            while len(self.jobs) > self.keep:
                oldest = next(iter(self.jobs))
                if self.jobs[oldest].state == "running":
                    break
                self.jobs.popitem(last=False)

        def run():
            try:
                job.result = work(job)
                job.state = "done"
            except ApiError as exc:
                job.error, job.status, job.state = exc.message, exc.status, "error"
            except Exception:  # noqa: BLE001 - logged for the server, one line for the page
                log.exception("%s job failed", name)
                job.error, job.status, job.state = f"the {name} failed (see the server's log)", 500, "error"
            finally:
                job.seconds = time.time() - job.started

        threading.Thread(target=run, name=f"dokosim-{name}-{next(self.counter)}", daemon=True).start()
        return job

    def cancel(self, kind: str) -> None:
        """Ask every running job of ``kind`` to stop (a newer one replaces it)."""
        with self.lock:
            for job in self.jobs.values():
                if job.kind == kind and job.state == "running":
                    job.cancelled = True

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id) if isinstance(job_id, str) else None
        if job is None:
            raise ApiError(404, f"no job {_short(job_id)} (finished jobs are kept a while, then forgotten)")
        return job
