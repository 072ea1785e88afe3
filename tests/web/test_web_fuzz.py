"""Random and malformed bodies posted to every endpoint of ``dokosim serve``: never a 5xx."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from dokosim.web.app import POST_ENDPOINTS, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "examples" / "records.jsonl").read_text().splitlines()[0])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                    st.text(max_size=30), st.sampled_from(["QC", "ddv", "club", "healthy", "pass", "heur20", "../",
                                                           "/etc", "re", "QC QC TH", "\x00", "9D" * 6]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(st.text(max_size=10), inner, max_size=5)),
                      max_leaves=20)
FIELDS = ["hand", "seat", "dealer", "rules", "deals", "seed", "record", "line", "card", "directory", "deal_id",
          "strategy", "table", "action", "calls"]
from dokosim.rules import OPTION_HELP  # noqa: E402

pytestmark = pytest.mark.slow  # a long property run

rule_objects = st.dictionaries(st.sampled_from([*OPTION_HELP, "preset"]),
                               st.one_of(scalars, st.lists(st.sampled_from(["tie", "solo", "clubs", 1]), max_size=3)),
                               max_size=3)
bodies = st.one_of(
    values,
    st.fixed_dictionaries({"hand": st.just("QC QC TH TH QS JC JS AD AD TD KD 9D"), "deals": st.just(10),
                           "rules": rule_objects, "seed": st.integers(0, 5), "deal_id": st.integers(0, 5)}),
    st.dictionaries(st.sampled_from(FIELDS), values, max_size=6),
    st.builds(lambda k, v, extra: {**RECORD, k: v, **extra}, st.sampled_from(sorted(RECORD)), values,
              st.dictionaries(st.sampled_from(["card", "line"]), values, max_size=2))
    .map(lambda rec: {"record": rec, "card": 40}),
    st.builds(lambda k, v: {"record": {**RECORD, "play": RECORD["play"][:k]}, "card": v},
              st.integers(0, 48), st.integers(-2, 50)),
)
raw = st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode),
                st.sampled_from([b"", b"{", b"[]", b"null", b'{"hand": ', b"\xff", b'{"a":' * 2000, b"1e999999"]))


@pytest.fixture(scope="module")
def client(web_data):
    with TestClient(create_app(web_data), raise_server_exceptions=False) as c:
        yield c


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(POST_ENDPOINTS), body=bodies)
def test_json_bodies_never_give_a_5xx(client, path, body):
    if path == "/api/advise" and isinstance(body, dict) and isinstance(body.get("deals"), int):
        body = {**body, "deals": 10}  # (a valid request would simulate: kept small)
    r = client.post(path, content=json.dumps(body, allow_nan=True).encode())
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert "error" in r.json()


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(POST_ENDPOINTS + ("/api/jobs/x", "/api/meta", "/nothing")), body=raw)
def test_malformed_bodies_never_give_a_5xx(client, path, body):
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code < 500, (path, body, r.text)
