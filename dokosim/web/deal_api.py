"""The "look at a deal" page's API: a game record (pasted, from a dataset in the served folder, or
dealt from (seed, deal_id)) replayed by the record scorer, its score sheet as ``dokosim score``
gives it, and per card the double-dummy values (``dokosim.solve``, ``dokosim.game_value``, under
a node limit: "not answered" past it) and the hint player's expected score of every legal card."""
from __future__ import annotations

from pathlib import Path

from .common import MAX_SEED, ApiError, body_object, defaults, int_field, rules_field

DD_NODE_LIMIT = 1_000_000
"""Nodes of a card-values solve for one position (about 0.15 s; the last tricks fit)."""
BAND_NODE_LIMIT = 1_000_000
"""Nodes of a game-value (band) search for one position."""
EXACT_TRICKS = 6
"""The deal's analysis solves the exact eyes of each card of its last EXACT_TRICKS tricks."""


def record_of(body: dict) -> dict:
    """The game record of a request: ``record`` as an object or its JSON text (a JSON Lines
    text: ``line``, default the first record); 422 naming what is wrong."""
    from ..records.record import RecordError, is_blank_line, json_line
    value = body.get("record")
    if isinstance(value, str):
        lines = [t for t in value.split("\n") if not is_blank_line(t)]
        if not lines:
            raise ApiError(422, "record is empty: paste a game record (one JSON object, docs/GAME_RECORD.md)")
        number = int_field(body, "line", 1, 1, len(lines))
        try:
            value = json_line(lines[number - 1])
        except RecordError as exc:
            raise ApiError(422, f"this is not a game record: {exc}") from None
    if isinstance(value, dict) and "record" in value and "hands" not in value:
        value = value["record"]  # an oracle line {"record": ..., "expect": ...}, as show reads it
    if not isinstance(value, dict):
        raise ApiError(422, "record must be a game record: a JSON object with rules, dealer, hands, contract, "
                            "play and announcements (docs/GAME_RECORD.md)")
    return value


def _detail(record: dict) -> dict:
    from ..records.record import RecordError, replay_detail
    from ..rules import RulesError
    try:
        detail = replay_detail(record)
    except (RecordError, RulesError) as exc:
        raise ApiError(422, f"this record is broken ({getattr(exc, 'kind', 'bad_field')}): {exc}") from None
    except (ValueError, TypeError, OverflowError, KeyError, IndexError) as exc:
        raise ApiError(422, f"this record is broken: {exc}") from None
    if detail["error"]:
        out = detail["output"]
        raise ApiError(422, f"this record breaks a rule ({out.get('kind')}): {out.get('error')}")
    if detail["players"] != 4:
        raise ApiError(422, "five-player records (a session's deals) are not shown here; dokosim show shows them")
    return detail


def view(record: dict) -> dict:
    """Everything the deal page draws: hands (sorted by the contract's trump order), parties,
    contract, calls, every card with its seat and the tricks' winners and eyes, the score sheet
    (``dokosim score``'s output for the record) and the record itself."""
    from ..engine.cards import EYES, card_name, mask_str
    from ..records.record import call_name, score_objects
    d = _detail(record)
    score = score_objects([record])[0]
    score.pop("line", None)
    re_mask = d["re_mask"]
    plays, seats = d["plays"], d["play_seat"]
    cards = [{"seat": seats[k], "card": card_name(plays[k])} for k in range(len(plays))]
    tricks = []
    for t in range(len(plays) // 4):
        tricks.append({"leader": seats[4 * t], "winner": d["trick_winner"][t],
                       "eyes": sum(int(EYES[plays[k]]) for k in range(4 * t, 4 * t + 4))})
    calls = [{"cards_played": k, "seat": seat, "call": call_name(level, 0 if re_mask >> seat & 1 else 1)}
             for k, seat, level, _named in d["calls"]]
    hands = [mask_str(d["hands"][s], d["scheme"]).split() for s in range(4)]
    poverty = isinstance(record.get("contract"), dict) and record["contract"].get("type") == "poverty"
    if poverty:  # the hands as the first card finds them: after the poverty's exchange
        from ..game.game import Game, GameError
        try:
            game = Game.from_record(position(record, 0))
            hands = [game.hand(s) for s in range(4)]
        except GameError:
            pass
    return {"record": record, "dealer": d["dealer"], "hands": hands, "hands_after_exchange": poverty,
            "parties": ["re" if re_mask >> s & 1 else "kontra" for s in range(4)],
            "contract": score.get("contract"), "contract_spec": record.get("contract"),
            "cards": cards, "tricks": tricks, "calls": calls, "score": score,
            "hand_size": int(d["packed"].rules.hand_size)}


def position(record: dict, k: int) -> dict:
    """The record cut before its card ``k`` (0-based; its calls up to then), as ``solve`` takes it."""
    calls = record.get("announcements") or []
    return {**record, "play": list(record.get("play") or [])[:k],
            "announcements": [a for a in calls if isinstance(a, dict) and isinstance(a.get("cards_played"), int)
                              and a["cards_played"] <= k]}


def card_info(record: dict, k: int, solver=None) -> dict:
    """Before card ``k`` of the record: the seat to play, the card it played, Re's final eyes
    under double-dummy play before it and after each legal card (None: not answered within
    DD_NODE_LIMIT), the band and game value before it, and the hint player's expected score
    for the seat after each legal card."""
    from ..dd.band import game_value
    from ..dd.solve import Solver, solve
    d = _detail(record)
    n = len(d["plays"])
    if not 0 <= k < n:
        raise ApiError(422, f"card={k} is not valid: the record has cards 0 to {n - 1}")
    from ..engine.cards import card_name
    pos = position(record, k)
    solver = solver or Solver()
    dd = solve(pos, solver=solver, node_limit=DD_NODE_LIMIT)
    band = game_value(pos, solver=solver, node_limit=BAND_NODE_LIMIT)
    out = {"card": k, "seat": d["play_seat"][k], "played": card_name(d["plays"][k]),
           "party": "re" if d["re_mask"] >> d["play_seat"][k] & 1 else "kontra",
           "dd_answered": bool(dd.get("ok") and dd.get("eyes_re") is not None),
           "eyes_re": dd.get("eyes_re"), "dd_values": dd.get("card_values"),
           "band": band.get("band"), "value_re": band.get("value_re"), "winner": band.get("winner"),
           "band_answered": bool(band.get("answered")), "node_limit": DD_NODE_LIMIT}
    out.update(hint_values(pos))
    return out


def hint_values(pos: dict) -> dict:
    """The hint player's expected score for the seat to play after each legal card of the
    position (``dokosim.game.hint.card_values``); empty where the game cannot be rebuilt."""
    from ..game.game import ACTION_NAMES, Game, GameError
    from ..game.hint import HINT_PLAYER, card_values
    try:
        game = Game.from_record(pos)
        while game.phase == "call":  # nobody calls now: on to the card
            game.apply_action(_pass_id())
    except GameError:
        return {"hint_player": HINT_PLAYER, "hint_values": None}
    if game.phase != "card":
        return {"hint_player": HINT_PLAYER, "hint_values": None}
    kind, values, samples = card_values(game)
    return {"hint_player": HINT_PLAYER, "hint_choice": ACTION_NAMES[kind], "hint_samples": samples,
            "hint_values": {ACTION_NAMES[a]: round(v, 2) for a, v in values.items()}}


def _pass_id() -> int:
    from ..game.game import action_id
    return action_id("pass")


def analyse(record: dict, job) -> dict:
    """Every card of the record judged double-dummy, as a job: the band and game value before
    and after it (BAND_NODE_LIMIT each), and for the last EXACT_TRICKS tricks the exact eyes it
    lost against its player's best card. A card whose band turns the winner against its own
    party lost the deal; the first such card is ``lost_the_deal``."""
    from ..dd.band import game_value
    from ..dd.solve import Solver, solve
    from ..engine.cards import card_name
    d = _detail(record)
    n = len(d["plays"])
    solver = Solver()
    first_exact = max(0, n - 4 * EXACT_TRICKS) if n == 4 * int(d["packed"].rules.hand_size) else n
    job.total = 2 * (n + 1) - first_exact
    values = []
    for k in range(n + 1):
        if job.cancelled:
            raise ApiError(409, "stopped: another deal was opened")
        job.done, job.label = k, f"game value before card {k + 1}" if k < n else "game value at the end"
        v = game_value(position(record, k), solver=solver, node_limit=BAND_NODE_LIMIT)
        values.append(v if v.get("ok") and v.get("answered") else None)
    exact = {}
    for k in range(first_exact, n):
        if job.cancelled:
            raise ApiError(409, "stopped: another deal was opened")
        job.done, job.label = n + 1 + k - first_exact, f"exact eyes of card {k + 1}"
        s = solve(position(record, k), solver=solver, node_limit=DD_NODE_LIMIT)
        if s.get("ok") and s.get("eyes_re") is not None:
            after = (s["card_values"] or {}).get(card_name(d["plays"][k]))
            if after is not None:
                exact[k] = {"eyes_re_before": s["eyes_re"], "eyes_re_after": after,
                            "eyes_lost": abs(s["eyes_re"] - after)}
    cards = []
    lost = None
    for k in range(n):
        seat = d["play_seat"][k]
        party = "re" if d["re_mask"] >> seat & 1 else "kontra"
        before, after = values[k], values[k + 1]
        entry = {"card": k, "seat": seat, "party": party, "played": card_name(d["plays"][k]),
                 "band_before": before and before["band"], "band_after": after and after["band"],
                 "value_re_before": before and before["value_re"], "value_re_after": after and after["value_re"],
                 "winner_before": before and before["winner"], "winner_after": after and after["winner"],
                 "answered": before is not None and after is not None, **exact.get(k, {})}
        if entry["answered"] and before["value_re"] is not None and after["value_re"] is not None:
            sign = 1 if party == "re" else -1
            entry["value_lost"] = max(0, sign * (before["value_re"] - after["value_re"]))
            own = "Re" if party == "re" else "Kontra"
            entry["lost_the_deal"] = before["winner"] == own and after["winner"] != own
            if entry["lost_the_deal"] and lost is None:
                lost = k
        cards.append(entry)
    job.done = job.total
    return {"cards": cards, "lost_the_deal": lost, "node_limit": BAND_NODE_LIMIT, "exact_from": first_exact,
            "answered": sum(v is not None for v in values), "positions": n + 1}


# ---------------------------------------------------------------- datasets
def confined(data_dir: Path | None, name) -> Path:
    """The dataset directory ``name`` (relative to the served folder ``data_dir``), resolved;
    403 if it (or its manifest) lies outside that folder, 404 if it does not exist."""
    if data_dir is None:
        raise ApiError(403, "this server was started without a data folder (dokosim serve --data DIR)")
    if not isinstance(name, str) or not name.strip() or len(name) > 1000 or "\x00" in name:
        raise ApiError(422, "directory must name a dataset folder inside the served data folder")
    root = data_dir.resolve()
    try:
        path = (root / name.strip()).resolve()
    except (OSError, RuntimeError, ValueError):
        raise ApiError(403, f"{name!r} is not inside the served data folder") from None
    if path == root or not path.is_relative_to(root):
        raise ApiError(403, f"{name!r} is not inside the served data folder; give a dataset folder inside it")
    from ..run.driver import DatasetError, meta_dir
    try:
        exists = path.is_dir()
        meta = meta_dir(path).resolve()
    except (OSError, DatasetError):
        exists, meta = False, root
    if not exists:
        raise ApiError(404, f"there is no folder {name.strip()!r} in the served data folder")
    if not meta.is_relative_to(root):
        raise ApiError(403, f"{name!r}: its manifest lies outside the served data folder")
    return path


def datasets(data_dir: Path | None, limit: int = 200) -> list[str]:
    """The dataset folders (a dokosim manifest beside or in them) inside ``data_dir``, two levels
    deep, relative names."""
    from ..run.driver import manifest_path
    if data_dir is None:
        return []
    root = data_dir.resolve()
    found = []
    try:
        level = [p for p in root.iterdir() if p.is_dir() and not p.name.endswith(".dokosim")]
        for depth in range(2):
            nxt = []
            for p in sorted(level):
                try:
                    if manifest_path(p).is_file() and p.resolve().is_relative_to(root):
                        found.append(p.relative_to(root).as_posix())
                    elif depth == 0:
                        nxt += [q for q in p.iterdir() if q.is_dir() and not q.name.endswith(".dokosim")]
                except (OSError, ValueError):
                    continue
                if len(found) >= limit:
                    return found
            level = nxt
    except OSError:
        return found
    return found


def dataset_deal(data_dir: Path | None, body: dict) -> dict:
    """The record of deal ``deal_id`` of the dataset ``directory`` (as ``dokosim show`` gives it),
    or of deal ``deal_id`` of ``seed`` played by ``strategy`` (default: ``dokosim play``'s bots)."""
    import click

    from ..validation import MAX_DEALS
    body = body_object(body)
    deal_id = int_field(body, "deal_id", None, 0, MAX_DEALS - 1)
    if body.get("directory") not in (None, ""):
        from ..cli.show import dataset_record
        path = confined(data_dir, body["directory"])
        try:
            return dataset_record(path, deal_id)
        except click.ClickException as exc:
            status = 404 if "is not in" in exc.message else 422
            raise ApiError(status, exc.message) from None
        except (OSError, ValueError) as exc:
            raise ApiError(422, f"cannot read this dataset: {exc}") from None
    if body.get("seed") is None:
        raise ApiError(422, "give directory (a dataset folder in the served data folder) or seed, with deal_id")
    seed = int_field(body, "seed", None, 0, MAX_SEED)
    rules = rules_field(body)
    strategy = body.get("strategy") or defaults()["play_strategy"]
    if not isinstance(strategy, str) or len(strategy) > 200:
        raise ApiError(422, "strategy must be a strategy name (dokosim tournament --help lists them)")
    from ..records.record import record_from_row
    from ..run.simulator import Simulator, make_plan
    try:
        plan = make_plan(deal_id + 1, seed, rules, strategy, keep_play=True)
    except (ValueError, TypeError) as exc:
        raise ApiError(422, str(exc)) from None
    out, plays, calls = Simulator(plan).rows(deal_id, 1)
    return record_from_row(out[0], plays[0], calls[0], plan.rules, plan.compulsory)
