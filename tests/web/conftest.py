"""The web server for tests/web: one per session, in a thread on a free port of 127.0.0.1, serving
a data folder with a small dataset; and Debian's Chromium driven by Playwright (the browser
tests skip, saying why, only where no Chromium is installed; .ci/run installs it)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or "")
                 if p and Path(p).exists()), None)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
DATASET = "heur20"


@pytest.fixture(scope="session")
def web_data(tmp_path_factory):
    """A data folder holding one dataset (20 heuristic deals with their play) and, beside the
    folder, a file the server must never show."""
    from dokosim.run.simulate import simulate
    base = tmp_path_factory.mktemp("web")
    data = base / "data"
    data.mkdir()
    simulate(20, seed=11, strategy="heuristic", out=data / DATASET, keep_play=True)
    (base / "secret.txt").write_text("not for the browser\n")
    return data


def warm_up():
    """Compile (or load) the kernels the pages use beyond those conftest compiles (the hint's,
    the band search's), before any page waits on them: a cold cache costs that once, here."""
    import json

    from dokosim.web import deal_api
    record = json.loads((ROOT / "examples" / "records.jsonl").read_text().splitlines()[0])
    deal_api.card_info(record, 44)


@pytest.fixture(scope="session")
def server_url(web_data):
    pytest.importorskip("uvicorn")
    from dokosim.web.server import background_server
    warm_up()
    with background_server(web_data) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium installed (apt-get install -y chromium; .ci/run installs it)")
    from playwright.sync_api import sync_playwright  # the test extra installs it: no skip without it
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.set_default_timeout(120_000)  # (CI runs the whole suite beside, on 2 cores)
    yield pg
    context.close()


@pytest.fixture(scope="session")
def first_record():
    return (ROOT / "examples" / "records.jsonl").read_text().splitlines()[0]
