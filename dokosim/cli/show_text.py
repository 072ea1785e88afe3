"""Render a deal as a person reads it: hands, tricks, calls, result."""
from __future__ import annotations

from ..engine.cards import EYES, card_name, mask_str, parse_card_type
from ..records.record import call_name, replay_detail


def render(obj: dict, solve_tricks: int = 0) -> str:
    """Text of a record: the hands sorted by the contract's trump order (four, or five with the
    dealer sitting out), then trick by trick. ``solve_tricks=K`` (1-12) adds each card of the
    last K tricks with the eyes it lost against the best card, every hand open (``solved``)."""
    if isinstance(solve_tricks, bool) or not isinstance(solve_tricks, int) or not 0 <= solve_tricks <= 12:
        raise ValueError(f"solve_tricks={solve_tricks!r} is not valid: an integer from 0 (none) to 12")
    d = replay_detail(obj)
    p = d["packed"]
    out = d["output"]
    lines = []
    contract = out.get("contract", "?")
    bock = f"   bock: x{p.bock}" if p.bock else ""
    lines.append(f"contract: {contract}   dealer: seat {d['dealer']}   rules: {p.rules.to_dict()}{bock}")
    re_mask = d["re_mask"]
    for s in range(d["players"]):
        if d["players"] == 5 and s == d["dealer"]:
            lines.append(f"  seat {s} (deals, sits out)")
            continue
        party = "Re" if re_mask >> s & 1 else "Kontra"
        lines.append(f"  seat {s} ({party:6}): {mask_str(d['hands'][s], d['scheme'])}")
    calls_at: dict[int, list[str]] = {}
    for k, seat, level, _named in d["calls"]:
        side = 0 if re_mask >> seat & 1 else 1
        calls_at.setdefault(k, []).append(f"seat {seat} says {call_name(level, side)}")
    plays, seats = d["plays"], d["play_seat"]
    lines.append("")
    lines.append("trick leader  cards (in play order)          winner  eyes")
    for t in range((len(plays) + 3) // 4):
        chunk = range(4 * t, min(4 * t + 4, len(plays)))
        for k in chunk:
            for c in calls_at.pop(k, []):
                lines.append(f"      ({c} after {k} cards)")
        cards = "  ".join(f"{seats[k]}:{card_name(plays[k])}" for k in chunk)
        if len(chunk) == 4:
            eyes = sum(int(EYES[plays[k]]) for k in chunk)
            lines.append(f"{t + 1:5}  {seats[4 * t]:6}  {cards:30} {d['trick_winner'][t]:6}  {eyes:4}")
        else:
            lines.append(f"{t + 1:5}  {seats[4 * t]:6}  {cards:30} (unfinished)")
    for k in sorted(calls_at):
        for c in calls_at[k]:
            lines.append(f"      ({c} after {k} cards)")
    lines.append("")
    if not out.get("ok"):
        lines.append(f"error ({out['kind']}): {out['error']}")
    elif out.get("complete") is False:
        lines.append(f"unfinished after {out['cards_played']} cards")
    else:
        lines.append(f"eyes: Re {out['eyes']['re']} : Kontra {out['eyes']['kontra']}   "
                     f"tricks: Re {out['tricks']['re']} : Kontra {out['tricks']['kontra']}")
        lines.append(f"winner: {out['winner'] or 'nobody'}   game value: {out['game_value']}")
        items = {}
        for pt in out["points"]:
            key = (pt["side"], pt["item"])
            items[key] = items.get(key, 0) + 1
        lines.append("points: " + ", ".join(f"{side} {item}" + (f" x{n}" if n > 1 else "")
                                              for (side, item), n in items.items()))
        lines.append("score:  " + "  ".join(f"seat {s}: {v:+d}" for s, v in enumerate(out["score"])))
    if solve_tricks and out.get("ok"):
        lines.append("")
        if out.get("complete") is False or len(plays) < 4:
            lines.append("--solve: the deal is not complete, so its cards are not annotated "
                         "(dokosim solve gives the values of the position after its last card)")
        else:
            lines.extend(solved(obj, d, solve_tricks))
    return "\n".join(lines)


def card_losses(record: dict, first: int, solver=None) -> list[tuple[int, int, int]]:
    """For each card from index ``first`` of a record's play: (Re's final eyes under best play
    before the card, Re's final eyes after the card and best play after it, the eyes the card
    lost against the best card of its player: the difference of the two, never negative).
    Every hand open, no further calls (docs/solver.md); one solver table for the deal."""
    from ..dd.solve import Solver, solve
    solver = solver or Solver()
    play, calls = record["play"], record.get("announcements", [])
    out = []
    for k in range(first, len(play)):
        position = {**record, "play": play[:k], "announcements": [a for a in calls if a["cards_played"] <= k]}
        res = solve(position, solver=solver)
        if not res.get("ok"):
            raise ValueError(f"card {k + 1} cannot be solved: {res.get('error')}")
        values = {parse_card_type(name): v for name, v in res["card_values"].items()}
        after = values[parse_card_type(str(play[k]))]  # the record may spell it "10H" or " qc"
        out.append((res["eyes_re"], after, abs(res["eyes_re"] - after)))
    return out


def solved(obj: dict, d: dict, tricks: int) -> list[str]:
    """The lines of ``render(..., solve_tricks=tricks)``: per trick of the last ``tricks``, Re's
    final eyes under best play before it and each card with the eyes it lost."""
    plays, seats = d["plays"], d["play_seat"]
    n_tricks = len(plays) // 4
    tricks = min(tricks, n_tricks)
    first = 4 * (n_tricks - tricks)
    losses = card_losses(obj, first)
    lines = [f"double dummy, every hand open: the last {tricks} tricks (earlier cards not solved)",
             "trick  Re's eyes under best play before it   each card: eyes lost against the best card"]
    for t in range(n_tricks - tricks, n_tricks):
        cards = "  ".join(f"{seats[k]}:{card_name(plays[k])} {losses[k - first][2]:>3}"
                          for k in range(4 * t, 4 * t + 4))
        lines.append(f"{t + 1:5}  {losses[4 * t - first][0]:>36}   {cards}")
    re_lost = sum(before - after for before, after, _ in losses if after < before)
    kontra_lost = sum(after - before for before, after, _ in losses if after > before)
    lines.append(f"Re's cards lost {re_lost} eyes, Kontra's {kontra_lost}: Re {losses[0][0]} under best play "
                 f"from trick {n_tricks - tricks + 1}, {d['output']['eyes']['re']} in the end")
    return lines
