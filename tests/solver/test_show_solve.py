"""``dokosim show --solve``: each card of the last tricks with the eyes it lost against the best card."""
import json

from click.testing import CliRunner

from dokosim.cli.show import show
from dokosim.records.record import score_objects
from dokosim.cli.show_text import card_losses

RECORDS = "examples/records.jsonl"


def _records():
    with open(RECORDS) as f:
        return [json.loads(line) for line in f if line.strip()]


def test_losses_chain_from_best_play_to_the_deal_s_eyes():
    """The value after a card is the value before the next; the last value is the deal's eyes;
    a card that lost nothing keeps the value, and the first value minus Re's losses plus
    Kontra's is the final eyes."""
    checked = 0
    for record in _records()[:4]:
        final = score_objects([record])[0]
        if not final.get("ok") or final.get("complete") is False:
            continue
        n = len(record["play"])
        losses = card_losses(record, n - 16)
        for (_, after, _), (before_next, _, _) in zip(losses, losses[1:]):
            assert after == before_next
        assert losses[-1][1] == final["eyes"]["re"]
        assert all(lost == abs(before - after) for before, after, lost in losses)
        re_lost = sum(b - a for b, a, _ in losses if a < b)
        ko_lost = sum(a - b for b, a, _ in losses if a > b)
        assert losses[0][0] - re_lost + ko_lost == final["eyes"]["re"]
        checked += 1
    assert checked >= 2


def test_the_command_annotates_the_last_tricks_and_refuses_bad_counts():
    runner = CliRunner()
    out = runner.invoke(show, [RECORDS, "--line", "1", "--solve", "3"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("double dummy"))
    rows = [line for line in lines[start + 2:] if line.strip()[:2].strip().isdigit()]
    assert [int(r.split()[0]) for r in rows] == [10, 11, 12]
    assert "Re's cards lost" in lines[-1]
    bad = runner.invoke(show, [RECORDS, "--line", "1", "--solve", "13"])
    assert bad.exit_code == 2 and "13" in bad.output


def test_other_spellings_and_unfinished_deals():
    from dokosim.cli.show_text import render
    record = next(r for r in _records() if score_objects([r])[0].get("ok") and len(r["play"]) == 48)
    spelled = {**record, "play": [c.replace("T", "10").lower() for c in record["play"]]}
    assert render(spelled, solve_tricks=2).splitlines()[-3:] == render(record, solve_tricks=2).splitlines()[-3:]
    unfinished = render({**record, "play": record["play"][:30],
                         "announcements": [a for a in record.get("announcements", []) if a["cards_played"] <= 30]},
                        solve_tricks=2)
    assert "not complete" in unfinished.splitlines()[-1]
