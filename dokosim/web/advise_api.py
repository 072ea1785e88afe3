"""The "ask about a hand" page's API: ``dokosim.studies.advise`` run as a job (its progress: the
reservations simulated so far), polled by id. The answering player is ``dokosim advise``'s
default strategy; nothing here rates a hand itself."""
from __future__ import annotations

from .common import MAX_SEED, ApiError, body_object, defaults, int_field, rules_field

MAX_WEB_DEALS = 100_000
"""Deals per option a page may ask for (advise's default is far below)."""


def check(body) -> dict:
    """The advise arguments of a request body, checked (422 naming the bad field)."""
    from ..engine.cards import mask_str
    from ..studies import advise as adv
    body = body_object(body)
    rules = rules_field(body)
    hand = body.get("hand")
    if isinstance(hand, list) and all(isinstance(c, str) for c in hand) and len(hand) <= 48:
        hand = " ".join(hand)
    if not isinstance(hand, str) or len(hand) > 500:
        raise ApiError(422, "hand is missing: give the cards, e.g. \"QC QC TH TH QS JC JS AD AD TD KD 9D\"")
    try:
        mask = adv.parse_hand(hand, rules)
    except ValueError as exc:
        raise ApiError(422, f"this hand is not possible: {exc}") from None
    strategy = defaults()["advise_strategy"]
    seat = int_field(body, "seat", 0, 0, 3)
    return {"mask": mask, "hand": mask_str(mask), "seat": seat, "dealer": int_field(body, "dealer", 3, 0, 3),
            "rules": rules, "strategy": strategy,
            "deals": int_field(body, "deals", defaults()["advise_deals"], 10, MAX_WEB_DEALS),
            "seed": int_field(body, "seed", 0, 0, MAX_SEED), "options": adv.options(mask, rules)}


def run(args: dict, job) -> dict:
    """Advise on the checked ``args`` in the job's thread, telling the job each option."""
    from ..studies import StudyError
    from ..studies import advise as adv

    def progress(done, total, option):
        job.done, job.total, job.label = done, total, option or ""

    try:
        result = adv.advise(args["mask"], seat=args["seat"], dealer=args["dealer"], rules=args["rules"],
                            strategy=args["strategy"], deals=args["deals"], seed=args["seed"], progress=progress)
    except (StudyError, ValueError) as exc:
        raise ApiError(422, str(exc)) from None
    result["text"] = adv.render(result)
    return result
