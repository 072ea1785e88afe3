"""``dokosim play`` through a pseudo-terminal (pexpect), as a person would play it: a scripted
player plays whole deals, an illegal card gets a message and a new prompt, and the saved records
score with ``dokosim score`` to the results shown on screen."""
import json
import os
import re
import subprocess
import sys

import pexpect
import pytest

DOKOSIM = [sys.executable, "-m", "dokosim.cli"]
EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"
PROMPTS = [r"Your reservation \(([^)]*)\) \[healthy\]: ", r"Call\? \(([^)]*)\) \[pass\]: ",
           r"Take the poverty\? \(([^)]*)\) \[pass\]: ", r"A card to pass \(legal ones marked \*\): ",
           r"Your card \(legal ones marked \*\): ", r"Score: ([^\r\n]*)\r?\n", pexpect.EOF]
HAND = re.compile(r"your hand: ([^\r\n]*)")


def spawn(args, tmp_path):
    """``dokosim play ARGS`` in a wide pseudo-terminal without colour."""
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "250"}
    return pexpect.spawn(DOKOSIM[0], [*DOKOSIM[1:], "play", *args], cwd=tmp_path, env=env,
                         encoding="utf-8", timeout=120, dimensions=(60, 250))


def legal_and_illegal(screen: str) -> tuple[list[str], list[str]]:
    """The cards of the last hand shown: (marked legal, not marked)."""
    tokens = HAND.findall(screen)[-1].split()
    return [t[1:] for t in tokens if t.startswith("*")], [t for t in tokens if not t.startswith("*")]


def play_script(child, try_illegal: bool = True) -> tuple[list[list[int]], list[str]]:
    """Play until the program ends: healthy, no calls, the first legal card; once, an illegal card
    first (checking the message and the new prompt). The scores shown, and what was typed."""
    screen, scores, typed, illegal_tried = "", [], [], not try_illegal
    while True:
        k = child.expect(PROMPTS)
        screen += child.before + (child.after if isinstance(child.after, str) else "")
        if k in (0, 1, 2):
            child.sendline("")  # the default: healthy / pass / refuse
            typed.append("")
        elif k in (3, 4):
            legal, illegal = legal_and_illegal(screen)
            assert legal, screen[-2000:]
            if not illegal_tried and illegal and k == 4:
                child.sendline(illegal[0])
                child.expect(r"not legal: action (\S+) is not legal for seat 0[^\r\n]*")
                assert child.match.group(1) == illegal[0]
                assert "legal: " + ", ".join(dict.fromkeys(legal)) in child.after
                child.expect(PROMPTS[4])  # asked again
                illegal_tried = True
            child.sendline(legal[0])
            typed.append(legal[0])
        elif k == 5:
            shown = child.match.group(1)
            scores.append([int(v) for v in re.findall(r"([+-]\d+)", shown)])
        else:
            break
    assert illegal_tried, "no deal gave a chance to try an illegal card"
    return scores, typed


@pytest.mark.subprocess
def test_a_scripted_player_plays_deals_and_the_saved_records_score_as_shown(tmp_path):
    save = tmp_path / "games.jsonl"
    child = spawn(["--strategy", "simple", "--seed", "5", "--deals", "2", "--save", str(save)], tmp_path)
    scores, typed = play_script(child)
    child.close()
    assert child.exitstatus == 0, child.before
    assert len(scores) == 2 and all(len(s) == 4 and sum(s) == 0 for s in scores)
    records = [json.loads(line) for line in save.read_text().splitlines()]
    assert len(records) == 2
    assert sum(1 for t in typed if t) == 24  # twelve cards a deal
    scored = subprocess.run([*DOKOSIM, "score", str(save)], capture_output=True, text=True, check=True)
    results = [json.loads(line) for line in scored.stdout.splitlines()]
    assert [r["score"] for r in results] == scores
    assert all(r["ok"] for r in results)


@pytest.mark.subprocess
def test_quitting_keeps_the_finished_deals_and_exits_1(tmp_path):
    save = tmp_path / "games.jsonl"
    child = spawn(["--strategy", "random", "--seed", "3", "--save", str(save)], tmp_path)
    child.expect(PROMPTS[:5])
    child.sendline("quit")
    child.expect("game abandoned")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert not save.exists()  # no deal was finished: nothing written


@pytest.mark.subprocess
@pytest.mark.parametrize("args, needle", [
    (["--strategy", "nosuch"], "unknown strategy 'nosuch'"),
    (["--strategy", "simple,random"], "give one strategy or three"),
    (["--rule", "five_players=true"], "'five_players' needs a session"),
    (["--seat", "4"], "'--seat'"),
])
def test_bad_usage_is_one_line_and_exit_2(tmp_path, args, needle):
    r = subprocess.run([*DOKOSIM, "play", *args], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and "Traceback" not in r.stderr


@pytest.mark.subprocess
def test_an_existing_save_file_is_not_overwritten(tmp_path):
    save = tmp_path / "mine.jsonl"
    save.write_text("precious\n")
    r = subprocess.run([*DOKOSIM, "play", "--save", str(save)], capture_output=True, text=True, cwd=tmp_path,
                       input="")
    assert r.returncode == 2 and "not a game record" in r.stderr and str(save) in r.stderr
    assert save.read_text() == "precious\n"


@pytest.mark.subprocess
def test_save_appends_to_a_records_file(tmp_path):
    """A file of game records (a previous --save, any records file) is accepted and appended to."""
    save = tmp_path / "games.jsonl"
    save.write_bytes(EXAMPLES.read_bytes())
    r = subprocess.run([*DOKOSIM, "play", "--save", str(save)], capture_output=True, text=True, cwd=tmp_path,
                       input="")
    assert r.returncode == 1 and "game abandoned" in r.stderr, r.stderr  # accepted; stdin closed at once
    assert save.read_bytes() == EXAMPLES.read_bytes()  # nothing finished: nothing appended


def test_a_failed_append_leaves_no_torn_record(tmp_path, monkeypatch):
    """A full disk during the append: the file is cut back to its size before (no torn line)."""
    import errno

    from dokosim.game import terminal_table
    save = tmp_path / "games.jsonl"
    save.write_text('{"a": 1}\n')
    real_write = os.write

    def half_then_full(fd, data):
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(OSError):
        terminal_table.append_line(save, '{"b": 2}')
    monkeypatch.undo()
    assert save.read_text() == '{"a": 1}\n'


@pytest.mark.subprocess
@pytest.mark.parametrize("prompts_answered", [0, 1, 2])
def test_ctrl_c_ends_the_game_at_every_prompt(tmp_path, prompts_answered):
    """Ctrl-C at the reservation, the call and the card prompt: "game abandoned", exit 1 (the
    process has numba's and polars' threads; the prompt must still see the interrupt)."""
    child = spawn(["--strategy", "simple", "--seed", "5", "--deal-id", "1"], tmp_path)
    child.expect(r"\[healthy\]: ")
    if prompts_answered >= 1:
        child.sendline("")
        child.expect(r"Call\? .*: ")
    if prompts_answered >= 2:
        child.sendline("")
        child.expect(r"card.*: ")
    child.sendintr()
    child.expect("game abandoned", timeout=20)
    child.expect(pexpect.EOF, timeout=20)
    child.close()
    assert child.exitstatus == 1


def test_the_table_shows_only_what_the_seat_may_see():
    """In-process, with a scripted input: no other seat's card appears before it is played."""
    from rich.console import Console

    from dokosim.game.game import Game
    from dokosim.game.terminal_table import Table, TableOptions

    answers = iter(["", *["?"], *[""] * 200])
    console = Console(record=True, width=250, color_system=None)
    table = Table(TableOptions(strategies=("simple",) * 3, seed=11, deals=1), console=console)

    def read_line(prompt):
        console.print(prompt, end="")
        text = next(answers)
        if text == "" and "card" in prompt:
            legal = [t[1:] for t in HAND.findall(console.export_text(clear=False))[-1].split() if t.startswith("*")]
            text = legal[0]
        console.print(text)
        return text

    table.read_line = read_line
    table.play()
    text = console.export_text()
    game = Game(seed=11)
    others = [game.hand(s) for s in (1, 2, 3)]
    shown = [t.lstrip("*") for t in HAND.search(text).group(1).split()]
    assert shown == game.hand(0)
    for hand in others:
        assert " ".join(hand) not in text
    assert "legal now: " in text  # the help answer
    assert "Result" in text and "Score: " in text


@pytest.mark.subprocess
def test_hint_running_score_tricks_taken_and_skipping_calls(tmp_path):
    """'h' at a card prompt gives pimc's card and the score it expects (and the card is then still
    asked for); 'n' at the first call prompt means no call prompt for the rest of that deal; each
    trick is followed by the tricks taken so far; after each deal of two, the running total."""
    child = spawn(["--strategy", "simple", "--seed", "5", "--deals", "2"], tmp_path)
    screen, hinted, declined, calls_after_decline, totals = "", False, [False, False], [0, 0], []
    deal = 0
    while True:
        k = child.expect([*PROMPTS[:6], r"Running total after (\d) of 2 deals: ([^\r\n]*)\r?\n", pexpect.EOF])
        screen += child.before + (child.after if isinstance(child.after, str) else "")
        if k == 1:  # a call prompt
            if declined[deal]:
                calls_after_decline[deal] += 1
            assert "n: no more calls this deal" in child.after
            child.sendline("n")
            declined[deal] = True
        elif k in (0, 2):
            child.sendline("")
        elif k in (3, 4):
            if k == 4 and not hinted:
                child.sendline("h")
                child.expect(r"hint: (\w\w): pimc expects ([+-]\d+\.\d) points for you after it[^\r\n]*")
                card = child.match.group(1)
                child.expect(PROMPTS[4])  # the card is still asked for
                screen += child.before
                legal, _ = legal_and_illegal(screen + child.after)
                assert card in legal
                child.sendline(card)
                hinted = True
                continue
            legal, _ = legal_and_illegal(screen)
            child.sendline(legal[0])
        elif k == 5:
            deal = min(deal + 1, 1)
        elif k == 6:
            totals.append([int(v) for v in re.findall(r"([+-]\d+)", child.match.group(2))])
        else:
            break
    child.close()
    assert child.exitstatus == 0, screen[-2000:]
    assert hinted and any(declined) and calls_after_decline == [0, 0]
    assert len(totals) == 2 and all(sum(t) == 0 for t in totals)
    taken = re.findall(r"taken: ([^\r\n]*)", screen)
    assert len(taken) == 24  # a line after each trick of both deals
    for k, line in enumerate(taken):  # after trick k % 12 + 1: that many tricks; all 240 eyes at the end
        counts = [int(n) for n in re.findall(r"(\d+) \(\d+ eyes\)", line)]
        assert sum(counts) == k % 12 + 1, line
    assert sum(int(e) for e in re.findall(r"\((\d+) eyes\)", taken[11])) == 240


def test_a_hint_is_pimcs_choice_and_changes_nothing_in_the_deal():
    """hint(game) at card decisions is the card Agent('pimc') plays there (the same search on the
    same random stream), and the game (its state and its random stream) is as before."""
    import numpy as np

    from dokosim import Agent, Game
    from dokosim.game.hint import hint
    pimc, heuristic = Agent("pimc"), Agent("heuristic")
    checked = 0
    for deal_id in range(3):
        game = Game("ddv", seed=3, deal_id=deal_id)
        while not game.is_terminal():
            if game.phase == "card" and len(game.legal_actions()) > 1 and game.current_player == 0:
                state, stream = game._g.copy(), game._rng.copy()
                action, text = hint(game)
                assert np.array_equal(game._g, state) and np.array_equal(game._rng, stream)
                assert action == pimc.act(game.clone()) and "pimc expects" in text
                checked += 1
            game.apply_action(heuristic.act(game))
    assert checked >= 10
