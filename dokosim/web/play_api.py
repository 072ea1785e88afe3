"""The "play a hand" page's API: a ``dokosim.Game`` per table, the person at one seat, the other
three ``dokosim.Agent`` bots (``dokosim play``'s default strategy unless named), as
``dokosim play`` plays it (game/terminal_table.py): calls offered before the person's own cards,
a bot's reservation shown only as healthy or reservation, the hint of ``dokosim.game.hint``.
The finished deal's game record opens in the deal page."""
from __future__ import annotations

import threading
from collections import OrderedDict

from .common import MAX_SEED, ApiError, body_object, defaults, int_field, rules_field

NO_MORE_CALLS = "no_more_calls"
"""At a call question: pass, and ask no more calls this deal (``dokosim play``'s 'n')."""
MAX_TABLES = 200
"""Tables kept in memory; the oldest is dropped past it."""


class Table:
    """One deal at the page: the game, the bots, what the person has been told."""

    def __init__(self, game, seat: int, bots: dict, names: list[str], seed: int, deal_id: int):
        import uuid
        self.id = uuid.uuid4().hex[:16]
        self.game, self.seat, self.bots, self.names = game, seat, bots, names
        self.seed, self.deal_id = seed, deal_id
        self.lock = threading.Lock()
        self.log: list[str] = []
        self.contract_told = False
        self.shown_tricks = 0
        self.calls_declined = False  # "no more calls" (dokosim play's 'n'): the rest of the deal passes


class Tables:
    def __init__(self):
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, table: Table) -> None:
        with self.lock:
            self.tables[table.id] = table
            while len(self.tables) > MAX_TABLES:
                self.tables.popitem(last=False)

    def get(self, table_id) -> Table:
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        if table is None:
            raise ApiError(404, "no such table (the server forgets old tables); start a new deal")
        return table


def new_table(body) -> Table:
    """A new deal: ``seat``, ``seed``, ``deal_id``, ``rules``, ``strategy`` (one name or three)."""
    from ..game.agents import Agent, AgentError
    from ..game.game import Game, GameError
    from ..loop.registry import StrategyError
    from ..validation import MAX_DEALS
    body = body_object(body)
    seat = int_field(body, "seat", 0, 0, 3)
    seed = int_field(body, "seed", 0, 0, MAX_SEED)
    deal_id = int_field(body, "deal_id", 0, 0, MAX_DEALS)
    rules = rules_field(body)
    strategy = body.get("strategy") or defaults()["play_strategy"]
    if not isinstance(strategy, str) or len(strategy) > 200:
        raise ApiError(422, "strategy must be one strategy name or three (a,b,c)")
    names = [s.strip() for s in strategy.split(",")]
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        raise ApiError(422, f"strategy {strategy!r}: give one strategy or three (a,b,c), not {len(names)}")
    calls = body.get("calls", True)
    if not isinstance(calls, bool):
        raise ApiError(422, "calls must be true or false")
    try:
        bots = {s: Agent(n) for s, n in zip([s for s in range(4) if s != seat], names)}
        game = Game(rules=rules, seed=seed, deal_id=deal_id, calls=calls)
    except (StrategyError, AgentError, GameError, ValueError) as exc:
        raise ApiError(422, str(exc)) from None
    table = Table(game, seat, bots, names, seed, deal_id)
    table.log.append(f"Deal {deal_id} of seed {seed}: you are seat {seat}; seat {game.observation(seat)['dealer']} "
                     f"dealt; " + ", ".join(f"seat {s}: {a.name}" for s, a in bots.items()))
    advance(table)
    return table


def _pass() -> int:
    from ..game.game import action_id
    return action_id("pass")


def advance(table: Table) -> None:
    """Let the bots act (and pass the person's calls where ``dokosim play`` would not ask: before
    another seat's card) until the person is to decide or the deal is over."""
    from ..game.terminal_table import next_card_seat
    game, me = table.game, table.seat
    while not game.is_terminal():
        _tell_contract(table)
        seat, phase = game.current_player, game.phase
        if seat == me:
            if phase == "call" and (table.calls_declined or next_card_seat(game) != me):
                game.apply_action(_pass())
                continue
            return
        action = table.bots[seat].act(game)
        game.apply_action(action)
        _tell(table, seat, phase, action)
        _tell_tricks(table)


def act(table: Table, body) -> None:
    """The person's action (``action``: a card, reservation, call, pass or accept, by name)."""
    from ..game.game import GameError, action_id
    body = body_object(body)
    game = table.game
    if game.is_terminal():
        raise ApiError(409, "the deal is over; start a new one")
    if game.current_player != table.seat:
        raise ApiError(409, "it is not your turn")
    name = body.get("action")
    if not isinstance(name, str) or len(name) > 40:
        raise ApiError(422, "action must be a card (QC, TH, ...), a reservation, a call, pass, accept or no_more_calls")
    if name == NO_MORE_CALLS:
        if game.phase != "call":
            raise ApiError(422, "no_more_calls answers a call question; none is asked now")
        table.calls_declined = True
        name = "pass"
    try:
        action = action_id(name)
    except GameError as exc:
        raise ApiError(422, str(exc)) from None
    phase = game.phase
    try:
        game.apply_action(action)  # an illegal action leaves the game unchanged and says why
    except GameError as exc:
        raise ApiError(422, f"not legal: {exc}") from None
    _tell(table, table.seat, phase, action)
    _tell_tricks(table)
    advance(table)


def hint(table: Table) -> str:
    from ..game.hint import hint as game_hint
    if table.game.is_terminal() or table.game.current_player != table.seat:
        raise ApiError(409, "a hint is for your own turn")
    return game_hint(table.game)[1]


def _tell_contract(table: Table) -> None:
    game = table.game
    if table.contract_told or game.phase not in ("call", "card"):
        return
    table.contract_told = True
    obs = game.observation(table.seat)
    who = obs["soloist"] if obs["soloist"] is not None else obs["declarer"]
    by = f" (seat {who})" if who is not None and obs["contract"] != "normal" else ""
    table.log.append(f"Contract: {obs['contract']}{by}; your party: {obs['own_party'] or 'not known yet'}")


def _tell(table: Table, seat: int, phase: str, action: int) -> None:
    from ..game.game import ACTION_NAMES
    name = ACTION_NAMES[action]
    who = "you" if seat == table.seat else f"seat {seat}"
    if phase == "reservation":
        shown = name if seat == table.seat else ("healthy" if name == "healthy" else "reservation")
        table.log.append(f"{who}: {shown}")
    elif phase == "poverty":
        if action < 24:
            table.log.append(f"{who} passes a card" + (f" ({name})" if seat == table.seat else ""))
        else:
            table.log.append(f"{who}: {'takes the poverty' if name == 'accept' else 'passes'}")
    elif phase == "call":
        if name != "pass":
            table.log.append(f"{who} says {name}")
    else:
        table.log.append(f"{who} {'play' if seat == table.seat else 'plays'} {name}")


def _tell_tricks(table: Table) -> None:
    from ..game.terminal_table import card_eyes
    tricks = table.game.observation(table.seat)["tricks"]
    while table.shown_tricks < len(tricks):
        t = tricks[table.shown_tricks]
        table.shown_tricks += 1
        who = "you" if t["winner"] == table.seat else f"seat {t['winner']}"
        eyes = sum(card_eyes(c) for _, c in t["cards"])
        table.log.append(f"trick {table.shown_tricks} won by {who}, {eyes} eyes")


def view(table: Table) -> dict:
    """What the person sees: their hand (legal cards marked), the trick on the table, the tricks
    taken, the calls, the log, whose turn and what to decide; at the end the result and the
    game record."""
    from ..game.game import ACTION_NAMES
    from ..game.terminal_table import card_eyes, next_card_seat
    game, me = table.game, table.seat
    obs = game.observation(me)
    legal = [ACTION_NAMES[a] for a in obs["legal_actions"]]
    taken, eyes = [0] * 4, [0] * 4
    for t in obs["tricks"]:
        taken[t["winner"]] += 1
        eyes[t["winner"]] += sum(card_eyes(c) for _, c in t["cards"])
    last = obs["tricks"][-1] if obs["tricks"] else None
    played = [0] * 4
    for t in obs["tricks"]:
        for s, _ in t["cards"]:
            played[s] += 1
    for s, _ in obs["trick"]:
        played[s] += 1
    size = game.rules.hand_size
    out = {"table": table.id, "seat": me, "phase": obs["phase"], "your_turn": obs["current_player"] == me,
           "dealer": obs["dealer"], "hand": obs["hand"], "legal": legal,
           "trick": [{"seat": s, "card": c} for s, c in obs["trick"]],
           "last_trick": last and {"cards": [{"seat": s, "card": c} for s, c in last["cards"]],
                                   "winner": last["winner"]},
           "tricks_taken": taken, "cards_left": [size - played[s] for s in range(4)], "eyes_taken": eyes, "calls": obs["calls"], "contract": obs["contract"],
           "own_party": obs["own_party"], "bots": {str(s): a.name for s, a in table.bots.items()},
           "log": table.log[-60:], "cards_played": obs["cards_played"], "seed": table.seed,
           "deal_id": table.deal_id, "terminal": game.is_terminal()}
    if out["your_turn"] and obs["phase"] == "call":
        out["legal"] = legal + [NO_MORE_CALLS]
    if not game.is_terminal() and obs["phase"] in ("card", "call"):
        out["next_card_seat"] = next_card_seat(game)
    if game.is_terminal():
        out["result"] = game.result()
        out["record"] = game.to_record()
    return out
