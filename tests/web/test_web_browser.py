"""The pages of ``dokosim serve`` driven in headless Chromium (Playwright): a hand asked, a record
stepped through all its cards with the score sheet of ``dokosim score``, a dataset's deal, a deal
played to its end against the bots and opened in the viewer, and bad input answered on the page
with a message and a 4xx."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # end to end

ROOT = Path(__file__).resolve().parents[2]
DATASET = "heur20"  # conftest.py's web_data


def test_a_hand_asked_shows_its_table_and_chart(page, server_url):
    from dokosim.cli.advise import advise
    default = next(p.default for p in advise.params if p.name == "strategy")
    page.goto(server_url + "/advise")
    page.wait_for_function("document.querySelector('#rules').options.length > 0")
    for card in ("QC", "QC", "TH", "TH", "QS", "JC", "JS", "AD", "AD", "TD", "KD", "9D"):
        page.click(f"#grid .cell[data-card='{card}']")
    assert page.input_value("#hand") == "QC QC JC QS JS TH TH AD AD TD KD 9D"
    page.fill("#deals", "60")
    page.click("#ask")
    page.wait_for_selector("#advisechart")
    rows = page.query_selector_all("#results tbody tr")
    options = [r.get_attribute("data-option") for r in rows]
    assert options[0] == "healthy" and "marriage" in options and "queens_solo" in options
    assert len(page.query_selector_all("#advisechart rect.bar")) == len(options)
    assert f"Answered by {default}" in page.inner_text("#answeredby")
    assert "60 deals per option" in page.inner_text("#answeredby")
    assert page.inner_text("#recommendation").startswith("Recommendation:")


def score_of(record: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "dokosim.cli", "score", "-"], input=record + "\n",
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return json.loads(out)


@pytest.mark.subprocess
def test_a_record_stepped_through_all_48_cards_scores_as_dokosim_score(page, server_url, first_record):
    page.goto(server_url + "/deal")
    page.fill("#record", first_record)
    page.click("#showrecord")
    page.wait_for_selector("#scoretable")
    assert len(page.query_selector_all("#felt .handcards svg.card")) == 48
    for k in range(1, 49):
        page.click("#next")
        assert page.get_attribute("#stepinfo", "data-step") == str(k)
        played = page.query_selector_all("#felt .handcards svg.card.played")
        assert len(played) == k
    page.click("#next")  # past the end: stays at 48
    assert page.get_attribute("#stepinfo", "data-step") == "48"
    page.click("#prev")
    assert page.get_attribute("#stepinfo", "data-step") == "47"
    page.wait_for_selector("#cardvalues")  # the last card: solved double dummy, answered
    assert "not answered" not in page.inner_text("#cardvalues")
    expected = score_of(first_record)
    assert [page.inner_text(f"#score-{s}") for s in range(4)] == [f"{v:+d}" for v in expected["score"]]
    assert page.inner_text("#gamevalue") == str(expected["game_value"])
    assert page.inner_text("#winner") == expected["winner"]
    assert page.inner_text("#eyes-re") == str(expected["eyes"]["re"])
    assert page.inner_text("#contract") == expected["contract"]
    page.wait_for_selector("#lostcard")  # the whole deal judged


def test_a_dataset_deal_opens(page, server_url, web_data):
    from dokosim.cli.show import dataset_record
    record = dataset_record(web_data / DATASET, 3)
    page.goto(server_url + "/deal")
    page.wait_for_function(f"document.querySelector('#directory').value === '{DATASET}'")
    page.fill("#dsdeal", "3")
    page.click("#opendataset")
    page.wait_for_selector("#scoretable, #scoresheet .lostnote")
    assert len(page.query_selector_all("#felt .handcards svg.card")) == 48
    assert json.loads(page.input_value("#record"))["hands"] == record["hands"]


def test_a_deal_played_to_the_end_opens_in_the_viewer(page, server_url):
    page.goto(server_url + "/play")
    page.wait_for_function("document.querySelector('#rules').options.length > 0")
    page.fill("#seed", "3")
    page.click("#newdeal")
    page.wait_for_selector("#myhand")
    hinted = False
    for _ in range(80):
        if page.is_visible("#result"):
            break
        button = page.query_selector("#actions button[data-action='healthy'], #actions button[data-action='pass']")
        target = button or page.query_selector("#myhand svg.legal")
        assert target is not None, page.inner_text("#prompt")
        if target is not button and not hinted:
            page.click("#hintbtn")
            page.wait_for_selector("#hinttext")
            hinted = "expects" in page.inner_text("#hinttext") or "only" in page.inner_text("#hinttext")
        drawn = int(page.get_attribute("body", "data-drawn"))
        with page.expect_response(lambda r: "/api/play/act" in r.url) as answer:
            target.click()
        assert answer.value.status == 200
        page.wait_for_function(f"+document.body.dataset.drawn > {drawn}")
        page.wait_for_function("!document.querySelector('#message') || document.querySelector('#message').hidden")
    assert hinted
    assert page.inner_text("#cardsplayed") == "48"
    result = page.inner_text("#result")
    page.click("#openviewer")
    page.wait_for_selector("#scoretable")
    assert page.inner_text("#contract") in result
    assert f"game value {page.inner_text('#gamevalue')}" in result


def expect_refusal(page, action, status: int, words: str):
    with page.expect_response(lambda r: "/api/" in r.url and r.request.method == "POST") as answer:
        action()
    assert answer.value.status == status, answer.value.text()
    page.wait_for_selector("#message:not([hidden])")
    text = page.inner_text("#message")
    assert words in text and "Traceback" not in text, text
    return text


def test_bad_input_gets_a_message_and_a_4xx(page, server_url, first_record):
    page.goto(server_url + "/advise")
    page.wait_for_function("document.querySelector('#rules').options.length > 0")
    page.fill("#hand", "QC QC QC TH TH QS JC JS AD AD TD KD")
    expect_refusal(page, lambda: page.click("#ask"), 422, "three times")

    page.goto(server_url + "/deal")
    broken = json.loads(first_record)
    broken["play"][0] = "AS"  # seat 0 leads a card it does not hold
    page.fill("#record", json.dumps(broken))
    expect_refusal(page, lambda: page.click("#showrecord"), 422, "breaks a rule")

    page.fill("#directory", "../")
    expect_refusal(page, lambda: page.click("#opendataset"), 403, "not inside the served data folder")
    text = page.inner_text("body")
    assert "not for the browser" not in text

    page.fill("#directory", DATASET)
    page.fill("#dsdeal", "999")
    expect_refusal(page, lambda: page.click("#opendataset"), 404, "999")

    page.fill("#record", '{"hands": "' + "x" * 300_000 + '"}')
    expect_refusal(page, lambda: page.click("#showrecord"), 413, "too large")

    page.fill("#record", first_record)  # the server keeps serving
    page.click("#showrecord")
    page.wait_for_selector("#scoretable")
    assert page.is_hidden("#message")
