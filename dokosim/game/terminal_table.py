"""A deal, or several in a row, at the terminal against three bots (``dokosim play``).

The table is a ``dokosim.Game``; the person at ``seat`` types actions, the other seats are
compiled strategies (``dokosim.Agent``). What is shown is the person's ``Game.observation``:
their hand (sorted by the contract's trump order, legal cards marked ``*``), the trick on the
table, who won each trick and the tricks and eyes each seat has taken, the calls, and at the end
the result, the score and, over several deals, the running totals. ``h`` asks for a hint (what
``pimc`` would play, and its expected score for each choice: game/hint.py); at a call prompt
``n`` passes and asks no more calls that deal. A bot's
reservation shows only as "healthy" or "reservation" and a poverty's cards only to the two
seats that exchange them, as at a real table. Output goes through ``rich`` (colour where the
terminal has it; ``NO_COLOR`` turns it off); input is read line by line, so a script (or
``pexpect``) can play.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .agents import Agent
from ..engine.cards import EYES_BY_RANK, RANKS
from ..engine.game_state import O_ST
from ..engine.layout import P_TURN
from .game import ACTION_NAMES, Game, GameError, action_id

PASS = action_id("pass")
HEALTHY = action_id("healthy")
QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "help")
HINT_WORDS = ("h", "hint")
NO_CALLS_WORDS = ("n", "no")  # at a call prompt: pass, and no more call questions this deal


class SaveFailed(Exception):
    """A finished deal's record could not be appended to ``--save`` (the file is as before)."""


def append_line(path, text: str) -> None:
    """Append ``text`` and a newline to ``path`` in one write, synced; if the write fails (a full
    disk) the file is cut back to its size before, so no torn record is ever left at its end."""
    import os
    data = (text + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(28, "No space left on device (a short write)")
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


class Abandoned(Exception):
    """The person quit (``quit``, end of input or Ctrl-C) before the deals were over."""


@dataclass
class TableOptions:
    """What ``dokosim play`` was asked for: the rules, the bots' strategies (one per other seat,
    in seat order), the person's seat, the first deal (``seed``, ``deal_id``), how many deals in a
    row and where to save the records."""

    rules: object = "ddv"
    strategies: tuple[str, str, str] = ("heuristic", "heuristic", "heuristic")
    seat: int = 0
    seed: int = 0
    deal_id: int = 0
    deals: int = 1
    save: Path | None = None
    calls: bool = True
    ask_calls: str = "mine"  # "mine": offer calls before the person's own cards only; "always": before every card
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])


def next_card_seat(game: Game) -> int:
    """The seat whose card comes next (public: the table sees whose turn it is)."""
    return int(game._g[O_ST + P_TURN]) & 3


def card_eyes(name: str) -> int:
    """The eyes of a card in notation ("TH" -> 10)."""
    return EYES_BY_RANK[RANKS.index(name[0].upper())]


class Table:
    """One person and three bots playing ``options.deals`` deals; ``read_line(prompt)`` reads a
    line of input (``Console.input`` by default), ``console`` prints."""

    def __init__(self, options: TableOptions, console: Console | None = None,
                 read_line: Callable[[str], str] | None = None):
        self.options = options
        self.console = console or Console(highlight=False)
        self.read_line = read_line or self.read_terminal_line
        self.calls_declined = False  # the person typed 'n' at a call prompt: no more this deal
        self.bots = {}
        others = [s for s in range(4) if s != options.seat]
        for s, name in zip(others, options.strategies, strict=True):
            self.bots[s] = Agent(name)

    # ---------------------------------------------------------------- the session
    def play(self) -> list[int]:
        """Play every deal; returns the total score per seat. Each finished deal's record is
        appended to ``options.save`` at once (a deal abandoned halfway is not written)."""
        o = self.options
        for k in range(o.deals):
            game = Game(rules=o.rules, seed=o.seed, deal_id=o.deal_id + k, calls=o.calls)
            self.say(f"\n[bold]Deal {k + 1} of {o.deals}[/] (seed {o.seed}, deal {o.deal_id + k}): "
                     f"you are seat {o.seat}; seat {game.observation(o.seat)['dealer']} dealt; "
                     + ", ".join(f"seat {s}: {a.name}" for s, a in self.bots.items()))
            self.play_deal(game)
            score = game.returns()
            for s in range(4):
                o.totals[s] += score[s]
            self.show_result(game)
            if o.deals > 1:
                self.say(f"Running total after {k + 1} of {o.deals} deals: "
                         + ", ".join(self._seat_score(s, o.totals[s]) for s in range(4)))
            if o.save is not None:
                try:
                    append_line(o.save, json.dumps(game.to_record()))
                except OSError as exc:
                    raise SaveFailed(f"cannot append the record of deal {o.deal_id + k} to {str(o.save)!r}: "
                                     f"{exc.strerror or exc}; the deals before it are in the file") from None
                self.say(f"record saved to {escape(str(o.save))}")
        if o.deals > 1:
            self.say("\n[bold]Totals[/]: " + ", ".join(self._seat_score(s, o.totals[s]) for s in range(4)))
        return o.totals

    def play_deal(self, game: Game) -> None:
        """Play one deal to its end: the person's decisions by input, the bots' by their strategy."""
        me = self.options.seat
        shown_tricks = 0
        contract_told = False
        self.calls_declined = False
        while not game.is_terminal():
            if not contract_told and game.phase in ("call", "card"):
                self.show_contract(game)
                contract_told = True
            seat = game.current_player
            phase = game.phase
            if seat == me and phase == "call" and (self.calls_declined or (
                    self.options.ask_calls == "mine" and next_card_seat(game) != me)):
                action = PASS  # declined for the deal, or not before the person's own card (every deadline is one)
            elif seat == me:
                action = self.ask(game)
            else:
                action = self.bots[seat].act(game)
            game.apply_action(action)
            self.tell(game, seat, phase, action)
            tricks = game.observation(me)["tricks"]
            while shown_tricks < len(tricks):
                self.show_trick(shown_tricks, tricks[shown_tricks])
                shown_tricks += 1
                self.show_taken(tricks[:shown_tricks])

    def read_terminal_line(self, prompt: str) -> str:
        """Print ``prompt`` and read a line of standard input; EOFError at its end.

        Waits for input in short ``select`` slices rather than one blocking read: the process has
        other threads (numba's, polars'), and the kernel may hand a Ctrl-C to one of them, which
        would leave a blocking read in the main thread waiting; between slices Python runs the
        KeyboardInterrupt the signal set, so Ctrl-C works at every prompt."""
        import os
        import select
        import sys
        self.console.print(escape(prompt), end="")
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # not a real file (a test's stream): read it
            line = sys.stdin.readline()
            if not line:
                raise EOFError from None
            return line.rstrip("\n")
        # byte by byte from the descriptor: no buffer may hold a line that select cannot see
        data = bytearray()
        while True:
            while not select.select([fd], [], [], 0.2)[0]:
                pass
            byte = os.read(fd, 1)
            if not byte:
                if not data:
                    raise EOFError
                break
            if byte == b"\n":
                break
            data += byte
        return data.decode("utf-8", errors="replace").rstrip("\r")

    # ---------------------------------------------------------------- the person's turn
    def ask(self, game: Game) -> int:
        """Show the person's view, read an action until it is legal; its id."""
        obs = game.observation(self.options.seat)
        legal = obs["legal_actions"]
        self.show_view(obs, next_card_seat(game))
        question, default = self._question(obs["phase"], legal)
        while True:
            try:
                text = self.read_line(question).strip()
            except (EOFError, KeyboardInterrupt):
                raise Abandoned() from None
            if text.lower() in QUIT_WORDS:
                raise Abandoned()
            if text.lower() in HELP_WORDS:
                self.say(self._help(legal))
                continue
            if text.lower() in HINT_WORDS:
                from .hint import hint
                _, why = hint(game)
                self.say(f"[yellow]hint: {escape(why)}[/]")
                continue
            if obs["phase"] == "call" and text.lower() in NO_CALLS_WORDS:
                self.calls_declined = True
                return PASS
            if not text and default is not None:
                return default
            try:
                action = action_id(text) if text else None
            except GameError as exc:
                self.say(f"[red]{escape(str(exc))}[/]")
                continue
            if action is None:
                self.say(f"[red]type one of: {escape(self._names(legal))}[/]")
                continue
            if action in legal:
                return action
            try:  # the rules' own reason, from the game (an illegal action leaves it unchanged)
                game.clone().apply_action(action)
            except GameError as exc:
                self.say(f"[red]not legal: {escape(str(exc))}[/]")

    def _question(self, phase: str, legal: list[int]) -> tuple[str, int | None]:
        names = self._names(legal)
        if phase == "reservation":
            return f"Your reservation ({names}) [healthy]: ", HEALTHY if HEALTHY in legal else None
        if phase == "call":
            return f"Call? ({names}; n: no more calls this deal) [pass]: ", PASS
        if phase == "poverty":
            if action_id("accept") in legal:
                return f"Take the poverty? ({names}) [pass]: ", PASS
            return "A card to pass (legal ones marked *): ", None
        return "Your card (legal ones marked *): ", None

    @staticmethod
    def _names(legal: list[int]) -> str:
        return ", ".join(ACTION_NAMES[a] for a in legal)

    def _help(self, legal: list[int]) -> str:
        return (f"legal now: {escape(self._names(legal))}. Cards as on screen (QC, TH, 9S; any case), "
                "calls by name (re, kontra, no90, ...), 'pass', 'n' at a call: no more calls this deal, "
                "empty for the default in brackets, 'h' for a hint, 'quit' to stop.")

    def show_view(self, obs: dict, turn: int) -> None:
        """The person's hand (legal cards marked), the trick on the table, the calls."""
        legal = set(obs["legal_actions"]) if obs["phase"] in ("card", "poverty") else set()
        cards = []
        for name in obs["hand"]:
            mark = action_id(name) in legal
            cards.append(f"[bold green]*{name}[/]" if mark else name)
        if obs["phase"] in ("card", "call") and obs["trick"]:
            self.say("  on the table: " + ", ".join(f"seat {s} {c}" for s, c in obs["trick"]))
        elif obs["phase"] in ("card", "call"):
            leader = "you lead" if turn == self.options.seat else f"seat {turn} leads"
            self.say(f"  trick {len(obs['tricks']) + 1}: {leader}")
        self.say("  your hand: " + "  ".join(cards))

    # ---------------------------------------------------------------- what happened
    def tell(self, game: Game, seat: int, phase: str, action: int) -> None:
        """One line for a bot's action, as the person may see it (nothing for a bot's pass on a call)."""
        if seat == self.options.seat:
            return
        name = ACTION_NAMES[action]
        if phase == "reservation":
            self.say(f"seat {seat}: {'healthy' if action == HEALTHY else 'reservation'}")
        elif phase == "poverty":
            if action < 24:
                self.say(f"seat {seat} passes a card")
            else:
                self.say(f"seat {seat}: {'takes the poverty' if name == 'accept' else 'passes'}")
        elif phase == "call":
            if action != PASS:
                self.say(f"[bold magenta]seat {seat} says {name}[/]")
        else:
            self.say(f"seat {seat} plays {name}")

    def show_contract(self, game: Game) -> None:
        """The contract as the table sees it, once the reservations are settled."""
        obs = game.observation(self.options.seat)
        contract = obs["contract"]
        who = obs["soloist"] if obs["soloist"] is not None else obs["declarer"]
        side = obs["own_party"] or "not known yet"
        by = f" (seat {who})" if who is not None and contract != "normal" else ""
        self.say(f"[bold]Contract: {contract}{by}[/]; your party: {side}")

    def show_trick(self, index: int, trick: dict) -> None:
        """A finished trick: the cards, the winner and its eyes."""
        eyes = sum(card_eyes(c) for _, c in trick["cards"])
        cards = ", ".join(f"{s}:{c}" for s, c in trick["cards"])
        who = "you" if trick["winner"] == self.options.seat else f"seat {trick['winner']}"
        self.say(f"[cyan]trick {index + 1} ({cards}) won by {who}, {eyes} eyes[/]")

    def show_taken(self, tricks: list[dict]) -> None:
        """The tricks and eyes each seat has taken so far (public: every card is seen)."""
        taken, eyes = [0] * 4, [0] * 4
        for trick in tricks:
            taken[trick["winner"]] += 1
            eyes[trick["winner"]] += sum(card_eyes(c) for _, c in trick["cards"])
        self.say("  taken: " + ", ".join(
            f"{'you' if s == self.options.seat else f'seat {s}'} {taken[s]} ({eyes[s]} eyes)" for s in range(4)))

    def show_result(self, game: Game) -> None:
        """The deal's result: contract, parties, eyes, winner, game value and each seat's score."""
        r = game.result()
        re_seats = ", ".join(map(str, r["re_seats"]))
        winner = r["winner"] or "nobody"
        self.say(f"[bold]Result[/]: {r['contract']}, Re = seats {re_seats}; Re {r['eyes']['re']} eyes, "
                 f"Kontra {r['eyes']['kontra']}; {winner} wins, game value {r['game_value']}")
        self.say("Score: " + ", ".join(self._seat_score(s, r["score"][s]) for s in range(4)))

    def _seat_score(self, seat: int, value: int) -> str:
        who = "you" if seat == self.options.seat else f"seat {seat}"
        return f"{who} {value:+d}"

    def say(self, text: str) -> None:
        """Print a line of rich markup (the terminal wraps it: no line breaks inserted)."""
        self.console.print(text, soft_wrap=True)
