"""Render a deal as a person reads it: hands, tricks, calls, result."""
from __future__ import annotations

from .cards import EYES, card_name, mask_str
from .records import call_name, replay_detail


def render(obj: dict) -> str:
    """Text of a record: the hands sorted by the contract's trump order (four, or five with the
    dealer sitting out), then trick by trick."""
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
    return "\n".join(lines)
