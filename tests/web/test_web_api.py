"""The JSON API of ``dokosim serve`` without a browser (Starlette's TestClient): answers, the
defaults read from the commands, bad input as 4xx with one line, paths confined to the data
folder, and ``dokosim serve`` without the web extra."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client(web_data):
    from dokosim.web.app import create_app
    with TestClient(create_app(web_data), raise_server_exceptions=False) as c:
        yield c


def test_meta_names_the_commands_defaults(client):
    from dokosim.cli.advise import advise
    from dokosim.cli.play import play
    from dokosim.game.hint import HINT_PLAYER
    m = client.get("/api/meta").json()
    assert m["advise_strategy"] == next(p.default for p in advise.params if p.name == "strategy")
    assert m["advise_deals"] == next(p.default for p in advise.params if p.name == "deals")
    assert m["play_strategy"] == next(p.default for p in play.params if p.name == "strategy")
    assert m["hint_player"] == HINT_PLAYER
    assert m["datasets"] == ["heur20"]


def test_advise_runs_as_a_job_with_progress_and_answers_as_the_library(client):
    from dokosim.rules import load_rules
    from dokosim.studies.advise import advise, parse_hand
    hand = "QC QS TH TH JC JS AD AD TD KD 9D 9D"
    r = client.post("/api/advise", json={"hand": hand, "deals": 40, "seed": 3})
    assert r.status_code == 202
    job = r.json()["job"]
    for _ in range(600):
        view = client.get(f"/api/jobs/{job}").json()
        if view["state"] != "running":
            break
        time.sleep(0.1)
    assert view["state"] == "done" and view["done"] == view["total"] == len(view["result"]["options"])
    got = view["result"]
    want = advise(parse_hand(hand, load_rules("ddv")), deals=40, seed=3, strategy=got["strategy"])
    assert got["options"] == want["options"]


def test_a_card_of_the_last_tricks_is_answered_double_dummy(client):
    record = (ROOT / "examples" / "records.jsonl").read_text().splitlines()[0]
    info = client.post("/api/deal/card", json={"record": record, "card": 44}).json()
    assert info["dd_answered"] and info["band_answered"]
    assert info["played"] in info["dd_values"] and info["played"] in info["hint_values"]


@pytest.mark.parametrize("path, body, status, words", [
    ("/api/advise", {"hand": "QC QC QC TH TH QS JC JS AD AD TD KD"}, 422, "three times"),
    ("/api/advise", {"hand": "QC QS"}, 422, "12 cards"),
    ("/api/advise", {"hand": "QC QC TH TH QS JC JS AD AD TD KD 9D", "deals": 10**9}, 422, "deals"),
    ("/api/advise", {"hand": "QC QC TH TH QS JC JS AD AD TD KD 9D", "rules": "nope"}, 422, "preset"),
    ("/api/deal/record", {"record": "{not json"}, 422, "not a game record"),
    ("/api/deal/record", {"record": {"hands": 3}}, 422, "record"),
    ("/api/deal/dataset", {"directory": "../", "deal_id": 0}, 403, "not inside"),
    ("/api/deal/dataset", {"directory": "/etc", "deal_id": 0}, 403, "not inside"),
    ("/api/deal/dataset", {"directory": ".", "deal_id": 0}, 403, "not inside"),
    ("/api/deal/dataset", {"directory": "nothere", "deal_id": 0}, 404, "no folder"),
    ("/api/deal/dataset", {"directory": "heur20", "deal_id": 20}, 404, "not in"),
    ("/api/play/act", {"table": "nope", "action": "QC"}, 404, "table"),
    ("/api/play/new", {"strategy": "a,b"}, 422, "three"),
])
def test_bad_input_is_a_4xx_with_one_line(client, path, body, status, words):
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    message = r.json()["error"]
    assert words in message and "\n" not in message and "Traceback" not in message


def test_a_huge_or_broken_body_is_refused(client):
    assert client.post("/api/deal/record", content=b"{" + b" " * 400_000 + b"}",
                       headers={"content-type": "application/json"}).status_code == 413
    assert client.post("/api/deal/record", content=b"\xff\xfe").status_code == 400
    assert client.post("/api/deal/record", content=b"[1, 2]").status_code == 400
    assert client.get("/static/../../../etc/passwd").status_code == 404
    assert client.get("/api/meta").status_code == 200  # still serving


def test_an_illegal_card_is_refused_with_the_rules_reason(client):
    view = client.post("/api/play/new", json={"seed": 5, "deal_id": 1}).json()
    while view["phase"] == "reservation" or not any(len(a) == 2 and a != "re" for a in view["legal"]):
        view = client.post("/api/play/act", json={"table": view["table"],
                                                 "action": "healthy" if view["phase"] == "reservation" else "pass"}).json()
    illegal = next((c for c in view["hand"] if c not in view["legal"]), None)
    if illegal is not None:
        r = client.post("/api/play/act", json={"table": view["table"], "action": illegal})
        assert r.status_code == 422 and "not legal" in r.json()["error"]
    r = client.post("/api/play/act", json={"table": view["table"], "action": "XX"})
    assert r.status_code == 422


def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch):
    import sys

    from click.testing import CliRunner

    from dokosim.cli import main
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = CliRunner().invoke(main, ["serve", "--no-browser"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["dokosim serve needs the web extra: pip install 'dokosim[web]' "
                                                  "(starlette and uvicorn)"]


def test_serve_refuses_a_data_folder_that_is_not_one(tmp_path):
    from click.testing import CliRunner

    from dokosim.cli import main
    result = CliRunner().invoke(main, ["serve", "--no-browser", "--data", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "is not a folder" in result.output
    json.dumps(result.output)


@pytest.mark.subprocess
def test_dokosim_serve_serves_the_folder_it_was_given(web_data):
    """The command itself (uvicorn loading the app by name, the data folder passed along):
    started on a free port without a browser, it answers, and names the folder it serves."""
    import os
    import re
    import subprocess
    import sys
    import urllib.request
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "dokosim.cli", "serve", "--no-browser", "--port", "0",
                             "--data", str(web_data)], stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        line = proc.stderr.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        for _ in range(100):
            try:
                with urllib.request.urlopen(url + "api/meta", timeout=5) as r:
                    meta = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.1)
        assert meta["data_folder"] == str(web_data.resolve()) and meta["datasets"] == ["heur20"]
        with urllib.request.urlopen(url + "play", timeout=5) as r:
            assert b"Play a hand" in r.read()
    finally:
        proc.terminate()
        proc.wait(10)


def test_no_more_calls_passes_the_rest_of_the_deal(client):
    view = client.post("/api/play/new", json={"seed": 5, "deal_id": 1}).json()
    view = client.post("/api/play/act", json={"table": view["table"], "action": "healthy"}).json()
    assert view["phase"] == "call" and "no_more_calls" in view["legal"]
    view = client.post("/api/play/act", json={"table": view["table"], "action": "no_more_calls"}).json()
    while not view["terminal"]:
        assert view["phase"] == "card"  # never asked for a call again
        view = client.post("/api/play/act", json={"table": view["table"], "action": view["legal"][0]}).json()
    assert sum(view["result"]["score"]) == 0 and len(view["record"]["play"]) == 48


def test_a_symbolic_link_out_of_the_data_folder_is_refused(tmp_path):
    from dokosim.web.app import create_app
    data, outside = tmp_path / "data", tmp_path / "elsewhere"
    data.mkdir()
    outside.mkdir()
    (data / "out").symlink_to(outside, target_is_directory=True)
    with TestClient(create_app(data), raise_server_exceptions=False) as c:
        r = c.post("/api/deal/dataset", json={"directory": "out", "deal_id": 0})
        assert r.status_code == 403 and "not inside" in r.json()["error"]
        r = c.post("/api/deal/dataset", json={"directory": "out/../../elsewhere", "deal_id": 0})
        assert r.status_code == 403
