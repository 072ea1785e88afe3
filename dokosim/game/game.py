"""``dokosim.Game``: one deal as a sequence of decisions, for agents written in Python (docs/game.md).

The state lives in one int64 array and the deal's random stream (engine/game_state.py); each
``apply_action`` is one call of a compiled kernel that applies the rules' own functions (the
deal loop's), so there is no second copy of the rules here. This module turns that state into
names, dicts and records.
"""
from __future__ import annotations

import numpy as np

from ..engine.cards import (
    CONTRACT_NAMES, FOLLOW_CLASS, N_CARDS, POWER, SOLO_KINDS, TRUMP, card_name, mask_cards, mask_str,
    parse_card_type, type_name,
)
from ..engine import game_state as gs
from ..engine.layout import (
    ERROR_KINDS, H_CONTRACT, H_RE_MASK, P_CONTRACT, P_DECLARER, P_KNOWN_KO, P_KNOWN_RE, P_LEVEL_KO,
    P_LEVEL_RE, P_NPLAYED, P_POVERTY_PARTNER, P_POVERTY_SEAT, P_POVERTY_TRUMPS, P_SOLOIST, RES_EYES_RE,
    RES_SCORE, RES_TRICKS_RE, RES_VALUE, RES_WINNER, ST_LEN, WINNER_NAMES,
)
from ..engine.rng import RNG_LEN
from ..rules import Rules, rules_from_object
from ..validation import SimulationError

PHASES = ("reservation", "poverty", "call", "card", "terminal")
RESERVATION_NAMES = ("healthy", *[f"{k}_solo" for k in SOLO_KINDS], "marriage", "poverty", "throw_in")
CALL_ACTION_NAMES = ("re", "kontra", "no90", "no60", "no30", "schwarz")
ACTION_NAMES = (tuple(type_name(t) for t in range(24)) + RESERVATION_NAMES + CALL_ACTION_NAMES
                + ("pass", "accept"))
N_ACTIONS = gs.N_ACTIONS
OBSERVATION_LEN = gs.OBS_LEN
INFO_STATE_LEN = gs.OBS_LEN + 48 * 24 + 4 * 5
"""Game.information_state_tensor's length: the observation, 48 plays one-hot, 4 seats x 5 call levels."""
_ACTION_IDS = {name: i for i, name in enumerate(ACTION_NAMES)}
_CALL_LEVEL_NAMES = ("", "re", "no90", "no60", "no30", "schwarz")
assert len(ACTION_NAMES) == N_ACTIONS



def deal_rules(rules, what: str) -> Rules:
    """``rules`` (a Rules, preset name or dict) for single deals, or GameError in one line: bad
    rules, or five players and bock, which belong to sessions (``what`` says what steps deals)."""
    try:
        rules = rules if isinstance(rules, Rules) else rules_from_object(rules)
    except ValueError as exc:
        raise GameError(f"rules: {exc}") from None
    if rules.five_players or rules.bock:
        raise GameError(f"rules: five_players and bock belong to sessions; {what}")
    return rules

class GameError(SimulationError):
    """A bad argument or an illegal action (a ValueError). ``kind`` is the GAME_RECORD.md error kind
    when a rule was broken (``follow_suit``, ``announcement_too_late``, ...), else ``bad_field``;
    ``seat``, ``cards_played`` and ``action`` say where."""

    def __init__(self, message: str, kind: str = "bad_field", seat: int | None = None,
                 cards_played: int | None = None, action: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.seat = seat
        self.cards_played = cards_played
        self.action = action


def action_name(action: int) -> str:
    """The name of an action id in GAME_RECORD.md notation: ``"QC"``, ``"re"``, ``"no90"``,
    ``"pass"``, ``"healthy"``, ``"queens_solo"``, ``"marriage"``, ``"poverty"``, ``"accept"``."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < N_ACTIONS:
        raise GameError(f"action {action!r} is not an action id; valid: integers 0 to {N_ACTIONS - 1}")
    return ACTION_NAMES[int(action)]


def action_id(text: str) -> int:
    """The action id of a name (``action_name``'s inverse; cards also as ``"10h"``, any case)."""
    if not isinstance(text, str):
        raise GameError(f"action name {text!r} is not a string")
    key = text.strip().lower()
    if key in _ACTION_IDS:
        return _ACTION_IDS[key]
    try:
        return parse_card_type(text)
    except ValueError:
        raise GameError(f"unknown action {text!r}; valid: a card (QC, TH, ...), "
                        f"{', '.join(ACTION_NAMES[24:])}") from None


def _card_ids(obs: dict) -> dict:
    """``obs`` with every card name replaced by its id (0-23)."""
    ids = {type_name(t): t for t in range(24)}
    out = dict(obs, hand=[ids[c] for c in obs["hand"]], trick=[[s, ids[c]] for s, c in obs["trick"]],
               tricks=[dict(t, cards=[[s, ids[c]] for s, c in t["cards"]]) for t in obs["tricks"]])
    if isinstance(obs.get("poverty"), dict):
        out["poverty"] = {k: ([ids[c] for c in v] if k in ("passed", "returned") else v)
                          for k, v in obs["poverty"].items()}
    return out


def _bit_tables():
    """Per 11-bit chunk of an action mask, the tuple of its action ids."""
    tables = []
    for shift in range(0, 44, 11):
        tables.append([tuple(shift + b for b in range(11) if v >> b & 1) for v in range(2048)])
    return tables


_BITS = _bit_tables()
_CARD_NAMES = tuple(card_name(c) for c in range(N_CARDS))
# per trump scheme, the physical cards in mask_str's order (trumps first, high to low, then the suits)
_HAND_ORDER = tuple(tuple(sorted(range(N_CARDS), key=lambda c, k=k: (FOLLOW_CLASS[k, c] != TRUMP,
                                                                     FOLLOW_CLASS[k, c], -POWER[k, c])))
                    for k in range(FOLLOW_CLASS.shape[0]))


def _parse_hands(hands, rules: Rules) -> np.ndarray:
    """Four hands (strings of cards or lists of card names) as masks, the first copy of a kind
    going to the first seat holding it; GameError unless they are exactly the pack."""
    if not isinstance(hands, (list, tuple)) or len(hands) != 4:
        raise GameError(f"hands must be 4 hands (strings or lists of cards), got {hands!r:.80}")
    size = rules.hand_size
    taken = 0
    masks = np.zeros(4, dtype=np.int64)
    for seat, hand in enumerate(hands):
        tokens = hand.split() if isinstance(hand, str) else hand
        if not isinstance(tokens, (list, tuple)) or len(tokens) != size:
            raise GameError(f"hand {seat} must hold {size} cards, got {hand!r:.80}", "not_the_pack", seat)
        for tok in tokens:
            try:
                t = parse_card_type(str(tok))
            except ValueError:
                raise GameError(f"hand {seat}: {tok!r} is not a card (e.g. QC, TH, 9D)") from None
            if rules.no_nines and t % 6 == 5:
                raise GameError(f"hand {seat}: {type_name(t)} is not in the pack without nines", "not_the_pack")
            c = 2 * t if not taken >> (2 * t) & 1 else 2 * t + 1
            if taken >> c & 1:
                raise GameError(f"hand {seat}: a third {type_name(t)}; the hands must be exactly the pack",
                                "not_the_pack")
            taken |= 1 << c
            masks[seat] |= np.int64(1) << np.int64(c)
    return masks


class Game:
    """One deal of Doppelkopf, step by step, in the conventions of OpenSpiel's state API.

    ``Game(rules="ddv", seed=0, deal_id=0, dealer=None, hands=None, calls=True,
    call_rounds="once", owes_solo=())``: the cards of deal ``deal_id`` of ``seed`` as the
    simulator deals them (dealer ``deal_id % 4`` unless given), or the four ``hands`` given.
    ``call_rounds``: ``"once"`` asks each seat once per card for a call (the simulator's way);
    ``"repeat"`` asks everybody again after a call (records need it). ``owes_solo``: seats whose
    solo is a compulsory solo. See docs/game.md for the phases, the action space and the
    observation tensor.
    """

    __slots__ = ("_g", "_rng", "rules")

    def __init__(self, rules="ddv", seed: int = 0, deal_id: int = 0, dealer: int | None = None,
                 hands=None, calls: bool = True, call_rounds: str = "once", owes_solo=()):
        self.rules = deal_rules(rules, "a Game is one deal of four")
        for name, value, hi in (("seed", seed, 2**63 - 1), ("deal_id", deal_id, 2**62 - 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= hi:
                raise GameError(f"{name} must be an integer from 0 to {hi}, got {value!r}")
        if dealer is None:
            dealer = int(deal_id) % 4
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer <= 3:
            raise GameError(f"dealer must be a seat 0-3, got {dealer!r}")
        if call_rounds not in ("once", "repeat"):
            raise GameError(f"call_rounds must be 'once' or 'repeat', got {call_rounds!r}")
        owe = 0
        if isinstance(owes_solo, (str, bytes)) or not isinstance(owes_solo, (list, tuple, set, frozenset)):
            raise GameError(f"owes_solo must be a list of seats 0-3, got {type(owes_solo).__name__}")
        for s in owes_solo:
            if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s <= 3:
                raise GameError(f"owes_solo must hold seats 0-3, got {s!r}")
            owe |= 1 << int(s)
        g = np.zeros(gs.G_LEN, dtype=np.int64)
        g[gs.O_RULES:gs.O_RULES + len(self.rules.packed())] = self.rules.packed()
        g[gs.G_SEED] = seed
        g[gs.G_DEAL_ID] = deal_id
        g[gs.G_DEALER] = dealer
        g[gs.G_CALLS_ON] = 1 if calls else 0
        g[gs.G_REPEAT] = 1 if call_rounds == "repeat" else 0
        g[gs.G_OWE] = owe
        if hands is not None:
            g[gs.O_GIVEN:gs.O_GIVEN + 4] = _parse_hands(hands, self.rules)
            g[gs.G_FIXED] = 1
        self._g = g
        self._rng = np.zeros(RNG_LEN, dtype=np.uint64)
        _start()(g, self._rng)

    # ------------------------------------------------------------------ the state
    @property
    def current_player(self) -> int:
        """The seat to act (0-3), -1 once the deal is over."""
        return int(self._g[gs.G_PLAYER])

    @property
    def phase(self) -> str:
        """``"reservation"``, ``"poverty"`` (the exchange), ``"call"``, ``"card"`` or ``"terminal"``."""
        return PHASES[self._g[gs.G_PHASE]]

    @property
    def cards_played(self) -> int:
        """Cards on the table in total so far (0 before the first card)."""
        return int(self._g[gs.O_ST + P_NPLAYED])

    @property
    def legal_mask(self) -> int:
        """The legal actions as a bit mask (bit a = action a)."""
        return int(self._g[gs.G_LEGAL])

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, ascending (empty once the deal is over)."""
        m = int(self._g[gs.G_LEGAL])
        b = _BITS
        return [*b[0][m & 2047], *b[1][(m >> 11) & 2047], *b[2][(m >> 22) & 2047], *b[3][m >> 33]]

    def apply_action(self, action: int) -> None:
        """Apply a legal action of the player to act; GameError naming the action and the legal
        ones otherwise (the game is unchanged then)."""
        if type(action) is not int:  # one compiled signature (int64): numpy integers as int, else refused
            if not isinstance(action, np.integer):
                self._illegal(action)
            action = int(action)
        if not 0 <= action < N_ACTIONS or _apply(self._g, self._rng, action):
            self._illegal(action)

    def _illegal(self, action):
        g = self._g
        legal = ", ".join(ACTION_NAMES[a] for a in self.legal_actions()) or "none, the deal is over"
        try:
            name = action_name(action)
        except GameError:
            name = repr(action)
        kind = "bad_field"
        seat = self.current_player
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < N_ACTIONS \
                and seat >= 0 and (action < gs.A_RESERVE or gs.A_RE <= action <= gs.A_SCHWARZ) \
                and g[gs.G_PHASE] in (gs.PH_CALL, gs.PH_CARD):
            kind = ERROR_KINDS[gs.action_error(g, seat, int(action))] or "bad_field"
        raise GameError(f"action {name} is not legal for seat {seat} in the {self.phase} phase"
                        f"{f' ({kind})' if kind != 'bad_field' else ''}; legal: {legal}",
                        kind, seat, int(g[gs.O_ST + P_NPLAYED]), action)

    def is_terminal(self) -> bool:
        """True once the last card is played (the deal is scored)."""
        return self._g[gs.G_PHASE] == gs.PH_TERMINAL

    def returns(self) -> list[int]:
        """The score of each seat (zeros until the deal is over)."""
        if not self.is_terminal():
            return [0, 0, 0, 0]
        return self._g[gs.O_RES + RES_SCORE:gs.O_RES + RES_SCORE + 4].tolist()

    def result(self) -> dict:
        """The deal's outcome in ``dokosim score``'s terms: contract, winner, eyes, tricks,
        game_value, score (GameError before the end)."""
        if not self.is_terminal():
            raise GameError("the deal is not over yet: no result")
        g = self._g
        res = g[gs.O_RES:gs.O_RES + 19]
        eyes_re, tricks_re = int(res[RES_EYES_RE]), int(res[RES_TRICKS_RE])
        winner = WINNER_NAMES[res[RES_WINNER]]
        return {"contract": CONTRACT_NAMES[g[gs.O_ST + H_CONTRACT]],
                "re_seats": [s for s in range(4) if g[gs.O_ST + H_RE_MASK] >> s & 1],
                "eyes": {"re": eyes_re, "kontra": 240 - eyes_re},
                "tricks": {"re": tricks_re, "kontra": self.rules.hand_size - tricks_re},
                "winner": None if winner == "none" else winner,
                "game_value": int(res[RES_VALUE]),
                "score": self.returns()}

    def hand(self, seat: int) -> list[str]:
        """The cards ``seat`` holds now, in notation, sorted by the contract's trump order."""
        scheme = int(self._g[gs.O_ST]) if self._g[gs.G_PHASE] >= gs.PH_CALL else 3
        m = int(self._g[gs.O_HANDS + _seat(seat)])
        return [_CARD_NAMES[c] for c in _HAND_ORDER[scheme] if m >> c & 1]

    def clone(self) -> Game:
        """An independent copy (two small arrays)."""
        new = object.__new__(Game)
        new._g = self._g.copy()
        new._rng = self._rng.copy()
        new.rules = self.rules
        return new

    # ------------------------------------------------------------------ observations
    def observation(self, seat: int, ids: bool = False) -> dict:
        """What ``seat`` knows, as a dict: its hand, the trick on the table, every trick so far with
        who played what, the calls, the contract and what the seat knows of the parties. Cards are
        names (``"QC"``); with ``ids=True`` they are card ids 0-23, the vocabulary of
        ``legal_actions`` (a card's action id; ``dokosim.cards.CARDS`` names them)."""
        obs = self._observation(_seat(seat))
        return _card_ids(obs) if ids else obs

    def _observation(self, seat: int) -> dict:
        g = self._g
        st = g[gs.O_ST:gs.O_ST + ST_LEN]
        phase = int(g[gs.G_PHASE])
        n = int(st[P_NPLAYED])
        plays = g[gs.O_PLAYS:gs.O_PLAYS + n].tolist()
        seats = g[gs.O_PSEAT:gs.O_PSEAT + n].tolist()
        winners = g[gs.O_TW:gs.O_TW + (n >> 2)].tolist()
        names = _CARD_NAMES
        tricks = [{"cards": [[seats[k], names[plays[k]]] for k in range(4 * t, 4 * t + 4)],
                   "winner": winners[t]} for t in range(n >> 2)]
        start = n - (n & 3)
        obs = {"seat": seat, "phase": PHASES[phase], "current_player": self.current_player,
               "dealer": int(g[gs.G_DEALER]), "hand": self.hand(seat),
               "legal_actions": self.legal_actions() if self.current_player == seat else [],
               "cards_played": n,
               "trick": [[seats[k], names[plays[k]]] for k in range(start, n)],
               "tricks": tricks, "calls": self._calls(public=True),
               "contract": None, "declarer": None, "soloist": None,
               "known_re": [], "known_kontra": [], "own_party": None,
               "levels": {"re": int(st[P_LEVEL_RE]), "kontra": int(st[P_LEVEL_KO])}}
        if phase == gs.PH_RESERVATION:
            own = int(g[gs.O_CHOICES + seat])
            obs["reservation"] = RESERVATION_NAMES[own] if own >= 0 else None
        if phase == gs.PH_POVERTY:
            obs["poverty"] = {"seat": int(g[gs.G_DECLARER0])}
        if phase >= gs.PH_CALL:
            obs["contract"] = CONTRACT_NAMES[st[P_CONTRACT]]
            obs["declarer"] = None if st[P_DECLARER] < 0 else int(st[P_DECLARER])
            obs["soloist"] = None if st[P_SOLOIST] < 0 else int(st[P_SOLOIST])
            obs["known_re"] = [s for s in range(4) if st[P_KNOWN_RE] >> s & 1]
            obs["known_kontra"] = [s for s in range(4) if st[P_KNOWN_KO] >> s & 1]
            party = gs.own_party(g, seat)
            obs["own_party"] = None if party < 0 else ("re", "kontra")[party]
            if st[P_POVERTY_SEAT] >= 0:
                pov = {"seat": int(st[P_POVERTY_SEAT]), "partner": int(st[P_POVERTY_PARTNER]),
                       "trumps_returned": int(st[P_POVERTY_TRUMPS])}
                if seat in (pov["seat"], pov["partner"]):
                    pov["passed"] = [card_name(c) for c in mask_cards(int(g[gs.G_PV_PASSED]))]
                    pov["returned"] = [card_name(c) for c in mask_cards(int(g[gs.G_PV_RETURNED]))]
                obs["poverty"] = pov
        return obs

    def information_state_tensor(self, seat: int) -> np.ndarray:
        """Everything ``seat`` has seen, in order, as a float32 array of INFO_STATE_LEN (perfect
        recall, as OpenSpiel's information state): the observation tensor, then for each of the
        48 card positions the card played there one-hot by id (24 per position, in play order,
        zeros for cards not yet played), then for each seat and call level (Re or Kontra, no 90,
        no 60, no 30, schwarz) the moment it was said, (cards played then + 1) / 49, 0 if not."""
        out = np.zeros(INFO_STATE_LEN, dtype=np.float32)
        seat = _seat(seat)
        gs.observation_fill(self._g, seat, out[:gs.OBS_LEN])
        g = self._g
        n = int(g[gs.O_ST + P_NPLAYED])
        plays = g[gs.O_PLAYS:gs.O_PLAYS + n]
        out[gs.OBS_LEN + 24 * np.arange(n) + (plays >> 1)] = 1.0
        base = gs.OBS_LEN + 48 * 24
        n_calls = int(g[gs.G_N_CALLS])
        for k, who, level in g[gs.O_CALL_LOG:gs.O_CALL_LOG + 3 * n_calls].reshape(n_calls, 3).tolist():
            if 1 <= level <= 5:
                out[base + 5 * who + level - 1] = (k + 1) / 49.0
        return out

    def observation_tensor(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """What ``seat`` knows as a float32 array of OBSERVATION_LEN (layout in docs/game.md);
        written into ``out`` when given."""
        if out is None:
            out = np.zeros(gs.OBS_LEN, dtype=np.float32)
        else:
            check_out_array(out, np.float32, (gs.OBS_LEN,))
        gs.observation_fill(self._g, _seat(seat), out)
        return out

    def _calls(self, public: bool = False) -> list[dict]:
        g = self._g
        n_calls = int(g[gs.G_N_CALLS])
        log = g[gs.O_CALL_LOG:gs.O_CALL_LOG + 3 * n_calls].reshape(n_calls, 3).tolist()
        re_mask = int(g[gs.O_ST + (P_KNOWN_RE if public else H_RE_MASK)])
        out = []
        for k, seat, level in log:
            name = _CALL_LEVEL_NAMES[level]
            if level == 1 and not re_mask >> seat & 1:
                name = "kontra"
            out.append({"seat": seat, "call": name, "cards_played": k})
        return out

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict:
        """The deal so far as a game record (GAME_RECORD.md; an unfinished deal has a shorter
        ``play``). GameError while the contract is not decided yet."""
        from ..records.record import _contract_spec, _rules_field
        g = self._g
        if g[gs.G_PHASE] < gs.PH_CALL:
            raise GameError(f"no record before the contract is decided (the {self.phase} phase)")
        st = g[gs.O_ST:gs.O_ST + ST_LEN]
        n = int(st[P_NPLAYED])
        spec = _contract_spec(int(st[H_CONTRACT]), int(st[P_DECLARER]), int(g[gs.G_PV_PARTNER]),
                              int(g[gs.G_PV_PASSED]), int(g[gs.G_PV_RETURNED]), bool(g[gs.G_COMPULSORY]))
        return {"rules": _rules_field(self.rules), "dealer": int(g[gs.G_DEALER]),
                "hands": [mask_str(int(g[gs.O_HANDS0 + s])) for s in range(4)],
                "contract": spec,
                "play": [card_name(c) for c in g[gs.O_PLAYS:gs.O_PLAYS + n].tolist()],
                "announcements": self._calls()}

    @classmethod
    def from_record(cls, record, upto: int | None = None) -> Game:
        """The game a record describes, replayed action by action (its reservations, a poverty's
        exchange, every call and card): at the end of its ``play`` (``upto``: after that many
        cards). A record that breaks a rule raises GameError with its GAME_RECORD.md ``kind``."""
        from ..records.record import RecordError, parse_record
        try:
            p = parse_record(record)
        except RecordError as exc:
            raise GameError(str(exc), exc.kind) from None
        if p.table is not None:
            raise GameError("five-player records are sessions' deals; a Game is one deal of four")
        hand_size = p.rules.hand_size
        hands = [[type_name(t) for t in p.hand_types[s * hand_size:(s + 1) * hand_size]] for s in range(4)]
        game = cls(p.rules, dealer=p.dealer, hands=hands, call_rounds="repeat",
                   owes_solo=(p.declarer,) if p.compulsory else ())
        game._replay(p, len(p.play) if upto is None else min(upto, len(p.play)))
        return game

    def _replay(self, p, n_play: int) -> None:
        from ..engine.cards import C_MARRIAGE, C_POVERTY, C_SOLO_BASE
        for seat in range(4):
            choice = 0
            if seat == p.declarer:
                if p.contract >= C_SOLO_BASE:
                    choice = 1 + p.contract - C_SOLO_BASE
                elif p.contract == C_MARRIAGE:
                    choice = 8
                elif p.contract == C_POVERTY:
                    choice = 9
            action = gs.A_RESERVE + choice
            if not self.legal_mask >> action & 1:
                kind = "marriage_without_qc" if choice == 8 else "bad_contract"
                raise GameError(f"seat {seat} may not declare {ACTION_NAMES[action]} ({kind})", kind, seat, 0,
                                action)
            self.apply_action(action)
        if p.contract == C_POVERTY:
            partner, passed, returned = p.poverty[0], p.poverty[1:4], p.poverty[4:7]
            self._exchange(passed, p.declarer)
            while self.current_player != partner and self.phase == "poverty":
                self.apply_action(gs.A_PASS)
            if self.phase != "poverty" or gs.A_ACCEPT not in self.legal_actions():
                raise GameError(f"seat {partner} cannot take the poverty (bad_contract)", "bad_contract", partner)
            self.apply_action(gs.A_ACCEPT)
            self._exchange(returned, partner)
        calls = list(p.calls)
        ci = 0
        for k in range(n_play + 1):
            while ci < len(calls) and calls[ci][0] == k:
                _, seat, level, named = calls[ci]
                action = gs.A_RE + level if level >= 2 else (gs.A_KONTRA if named == 1 else gs.A_RE)
                if named < 0 and level == 1:
                    action = gs.A_RE if self._g[gs.O_ST + H_RE_MASK] >> seat & 1 else gs.A_KONTRA
                while self.phase == "call" and self.current_player != seat:
                    self.apply_action(gs.A_PASS)
                if self.phase != "call" or not self.legal_mask >> action & 1:
                    kind = ERROR_KINDS[gs.action_error(self._g, seat, action)] or "bad_field"
                    raise GameError(f"seat {seat} may not call {ACTION_NAMES[action]} with {k} cards played "
                                    f"({kind})", kind, seat, k, action)
                self.apply_action(action)
                ci += 1
            if k == n_play:
                break
            while self.phase == "call":
                self.apply_action(gs.A_PASS)
            t = p.play[k]
            if self.phase != "card" or not self.legal_mask >> t & 1:
                seat = self.current_player
                kind = ERROR_KINDS[gs.action_error(self._g, seat, t)] if seat >= 0 else "bad_field"
                raise GameError(f"card {k + 1}: seat {seat} may not play {type_name(t)} ({kind})",
                                kind or "bad_field", seat, k, t)
            self.apply_action(t)

    def _exchange(self, types, seat: int) -> None:
        for t in types:
            if self.current_player != seat or not self.legal_mask >> t & 1:
                raise GameError(f"seat {seat} cannot pass or return {type_name(t)} in the poverty "
                                "(bad_contract)", "bad_contract", seat, 0, t)
            self.apply_action(t)

    # ------------------------------------------------------------------ sampling
    def resample(self, seat: int, rng=None) -> Game:
        """A copy of this game in which the cards ``seat`` has not seen are dealt anew, consistent
        with everything it has seen (each seat's number of cards, the voids shown, the queens of
        clubs the parties imply): the sampler ``pimc`` uses. ``rng``: a numpy Generator or a seed.
        GameError during a poverty's exchange (the passed cards are seen by two seats only)."""
        if self._g[gs.G_PHASE] == gs.PH_POVERTY:
            raise GameError("resample: not during a poverty's exchange; valid in the reservation, call "
                            "and card phases")
        generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        state = generator.integers(1, 2**63, size=2, dtype=np.int64).astype(np.uint64)
        new = self.clone()
        _resample()(new._g, _seat(seat), state)
        return new

    def __repr__(self) -> str:
        return (f"<Game {self.phase}, seat {self.current_player} to act, "
                f"{int(self._g[gs.O_ST + P_NPLAYED])} cards played>")


def check_out_array(out, dtype, shape) -> None:
    """GameError unless ``out`` is a writeable C-contiguous numpy array of ``dtype`` and ``shape``:
    a kernel writes into it by address, so anything else would write past its end."""
    want = f"a writeable C-contiguous {np.dtype(dtype).name} array of shape {shape}"
    if not isinstance(out, np.ndarray):
        raise GameError(f"out={type(out).__name__} is not valid: {want}")
    if out.dtype != dtype or out.shape != tuple(shape) or not out.flags.c_contiguous or not out.flags.writeable:
        flags = "" if out.flags.c_contiguous and out.flags.writeable else ", not writeable or not contiguous"
        raise GameError(f"out (a {out.dtype.name} array of shape {out.shape}{flags}) is not valid: {want}")


def _seat(seat) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat <= 3:
        raise GameError(f"seat must be 0-3, got {seat!r}")
    return int(seat)


_STARTED = []  # game_start once it is known to be compiled (ensure_loop's check costs ~20 µs a call)


def _start():
    if not _STARTED:
        from ..engine.jit import ensure_loop
        _STARTED.append(ensure_loop(gs.game_start, "the game kernels"))
    return _STARTED[0]


def _resample():
    from ..loop.agent_step import resample_hidden
    return resample_hidden


_apply = gs.game_apply
