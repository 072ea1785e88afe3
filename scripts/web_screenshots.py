"""Screenshots of the pages of ``dokosim serve`` at 1280x800 into docs/web/ (shown in docs/web.md).

    python scripts/web_screenshots.py [--chromium /usr/bin/chromium]

Starts the server in this process (a small dataset made in a temporary data folder), drives
Debian's Chromium with Playwright: the home page, a hand asked (advise), a deal in the viewer at
the card that lost it, a record of examples/records.jsonl pasted into the viewer, a deal played
a few tricks into the game with a hint, and a bad input answered on the page.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "web"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def act(page, selector):
    """Click and wait for the server's answer to be drawn."""
    drawn = int(page.get_attribute("body", "data-drawn"))
    with page.expect_response(lambda r: "/api/play/" in r.url):
        page.click(selector)
    page.wait_for_function(f"+document.body.dataset.drawn > {drawn}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from dokosim.run.simulate import simulate
    from dokosim.web.server import background_server
    OUT.mkdir(parents=True, exist_ok=True)
    record = (ROOT / "examples" / "records.jsonl").read_text().splitlines()[0]
    with tempfile.TemporaryDirectory() as data:
        simulate(50, seed=7, strategy="heuristic", out=Path(data) / "heuristic50", keep_play=True)
        with background_server(data) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url + "/")
            page.screenshot(path=OUT / "home.png")

            page.goto(url + "/advise?hand=QC+QC+TH+TH+QS+JC+JS+AD+AD+TD+KD+9D")
            page.wait_for_function("document.querySelector('#deals').value !== ''")
            page.click("#ask")
            page.wait_for_selector("#advisechart", timeout=120_000)
            page.screenshot(path=OUT / "advise.png", full_page=False)

            page.goto(url + "/deal")
            page.fill("#seed", "7")  # deal 2 of seed 7 as the play page's bots play it: card 39 loses it
            page.fill("#seeddeal", "2")
            page.click("#openseed")
            page.wait_for_selector("#scoretable")
            page.wait_for_selector("#lostcard", timeout=120_000)
            lost = int(page.get_attribute("#lostcard", "data-k"))
            for _ in range(lost):
                page.click("#next")
            page.wait_for_selector("#cardvalues", timeout=60_000)
            page.evaluate("window.scrollTo(0, document.querySelector('#deal').offsetTop - 6)")
            page.screenshot(path=OUT / "deal.png")

            page.goto(url + "/deal")
            page.fill("#record", record)
            page.click("#showrecord")
            page.wait_for_selector("#scoretable")
            page.wait_for_selector("#cardvalues", timeout=60_000)
            page.wait_for_selector("#lostcard", timeout=120_000)
            page.screenshot(path=OUT / "deal_record.png")

            page.goto(url + "/play")
            page.wait_for_function("document.querySelector('#rules').options.length > 0")
            page.fill("#seed", "5")
            page.fill("#dealid", "1")
            page.click("#newdeal")
            page.wait_for_selector("#myhand")
            act(page, "#actions button[data-action='healthy']")
            for _ in range(3):
                if page.query_selector("#actions button[data-action='pass']"):
                    act(page, "#actions button[data-action='pass']")
                act(page, "#myhand svg.legal")
            page.click("#hintbtn")
            page.wait_for_selector("#hinttext", timeout=60_000)
            page.screenshot(path=OUT / "play.png")

            page.goto(url + "/advise")
            page.fill("#hand", "QC QC QC TH TH QS JC JS AD AD TD KD")
            page.wait_for_function("document.querySelector('#deals').value !== ''")
            page.click("#ask")
            page.wait_for_selector("#message:not([hidden])")
            page.screenshot(path=OUT / "error.png")
            browser.close()
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.png')))} to {OUT}")


if __name__ == "__main__":
    main()
