"""The ``Rules`` object: the ``ddv`` preset plus the house options of RULES.md part 2.

A ``Rules`` is built from a preset name, a dict (``{"preset": "ddv", "dulle": "second"}``)
or a TOML file, validated with one-line messages, and packed into an int64 array
(``layout.R_*``) for the kernels.
"""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import numpy as np

from .engine.cards import SOLO_KINDS
from .engine.layout import (
    R_BOCK_MASK, R_DULLE, R_FIVE_PLAYERS, R_LEN, R_NO_NINES, R_PIGLETS, R_POVERTY, R_SOLO_MASK,
    R_SUPERPIGLETS, R_THROW_IN,
)

DULLE_MODES = ("first", "second", "second_except_last")
BOCK_TRIGGERS = ("tie", "lost_announcement", "zero", "lost_solo")

OPTION_HELP = {
    "no_nines": "bool: 40 cards without the nines, 10 per hand",
    "dulle": "first | second | second_except_last: which of two TH wins",
    "schweinchen": "bool: both AD in one hand rank above TH (piglets)",
    "superschweinchen": "bool (needs schweinchen): both 9D rank above the piglets",
    "poverty": "bool: a player with 3 trumps or fewer may pass them (Armut)",
    "throw_in": "bool: 5 or more nines (or kings) may call a redeal",
    "bock": "list of tie, lost_announcement, zero, lost_solo: bock round triggers (sessions only)",
    "five_players": "bool: five at the table, the dealer sits out (sessions only)",
    "solos": "list of solo kinds a player may declare (default all seven)",
}
# Options the kernels implement in this version; the others are refused as unsupported.
SUPPORTED = {"dulle", "solos", "no_nines", "schweinchen", "superschweinchen", "poverty", "throw_in",
             "bock", "five_players"}
# Options that need a sequence of deals (dokosim session); a single deal or a plain run refuses them.
SESSION_ONLY = ("bock", "five_players")


class RulesError(ValueError):
    """A rules description that cannot be used; ``kind`` is ``bad_field`` or ``unsupported_rule``."""

    def __init__(self, message: str, kind: str = "bad_field"):
        super().__init__(message)
        self.kind = kind


@dataclasses.dataclass(frozen=True)
class Rules:
    """A complete rule set. ``Rules()`` is the DDV tournament rules (preset ``ddv``)."""

    preset: str = "ddv"
    no_nines: bool = False
    dulle: str = "first"
    schweinchen: bool = False
    superschweinchen: bool = False
    poverty: bool = False
    throw_in: bool = False
    bock: tuple[str, ...] = ()
    five_players: bool = False
    solos: tuple[str, ...] = SOLO_KINDS

    @property
    def hand_size(self) -> int:
        return 10 if self.no_nines else 12

    def to_dict(self) -> dict:
        """The options that differ from the preset, as a record's ``rules`` object."""
        base = PRESETS[self.preset]
        out: dict = {"preset": self.preset}
        for f in dataclasses.fields(self):
            if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name):
                value = getattr(self, f.name)
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def packed(self) -> np.ndarray:
        """The int64 array the kernels read (layout.R_*)."""
        r = np.zeros(R_LEN, dtype=np.int64)
        r[R_NO_NINES] = self.no_nines
        r[R_DULLE] = DULLE_MODES.index(self.dulle)
        r[R_PIGLETS] = self.schweinchen
        r[R_SUPERPIGLETS] = self.superschweinchen
        r[R_POVERTY] = self.poverty
        r[R_THROW_IN] = self.throw_in
        r[R_FIVE_PLAYERS] = self.five_players
        r[R_SOLO_MASK] = sum(1 << SOLO_KINDS.index(k) for k in self.solos)
        r[R_BOCK_MASK] = sum(1 << BOCK_TRIGGERS.index(b) for b in self.bock)
        return r


PRESETS = {
    "ddv": Rules(),
    "club": Rules(preset="club", poverty=True, schweinchen=True),
    "sharp": Rules(preset="sharp", no_nines=True),
}
PRESET_HELP = {
    "ddv": "the DDV tournament rules (RULES.md part 1)",
    "club": "a common club table: ddv + poverty + piglets (no throw-in)",
    "sharp": "sharp Doppelkopf: ddv without the nines (40 cards)",
}


def _check_type(name: str, value, expected: type):
    if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
        raise RulesError(f"rules option {name!r} must be {expected.__name__}, got {value!r}")


def rules_from_object(obj, session: bool = False) -> Rules:
    """Rules from a record's ``rules`` field: a preset name or ``{"preset": ..., option: value}``.

    ``bock`` and ``five_players`` are refused (``unsupported_rule``) unless ``session``:
    they mean something only for a sequence of deals (dokosim session)."""
    if isinstance(obj, Rules):
        if not session:
            _refuse_session_only(obj)
        return obj
    if obj is None:
        obj = "ddv"
    if isinstance(obj, str):
        if obj in PRESETS:
            return PRESETS[obj]
        obj = {"preset": obj}
    if not isinstance(obj, dict):
        raise RulesError(f"rules must be a preset name or an object, got {obj!r}")
    options = dict(obj)
    preset = options.pop("preset", "ddv")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(f"unknown rules preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    unknown = [k for k in options if k not in OPTION_HELP]
    if unknown:
        raise RulesError(
            f"unknown rules option {unknown[0]!r}; valid options: {', '.join(OPTION_HELP)}",
            kind="unsupported_rule")
    base = PRESETS[preset]
    values = {}
    for name, value in options.items():
        default = getattr(base, name)
        if isinstance(default, bool):
            _check_type(name, value, bool)
        elif isinstance(default, str):
            _check_type(name, value, str)
            if value not in DULLE_MODES:
                raise RulesError(f"rules option 'dulle' is {value!r}; valid: {', '.join(DULLE_MODES)}")
        else:
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise RulesError(f"rules option {name!r} must be a list of strings, got {value!r}")
            valid = SOLO_KINDS if name == "solos" else BOCK_TRIGGERS
            bad = [v for v in value if v not in valid]
            if bad:
                raise RulesError(f"rules option {name!r} has {bad[0]!r}; valid: {', '.join(valid)}")
            value = tuple(value)
        if value != default and name not in SUPPORTED:
            raise RulesError(
                f"rules option {name!r} is not implemented in this version of dokosim "
                f"(implemented: {', '.join(sorted(SUPPORTED))})", kind="unsupported_rule")
        values[name] = value
    rules = dataclasses.replace(base, **values)
    if rules.superschweinchen and not rules.schweinchen:
        raise RulesError("rules option 'superschweinchen' needs 'schweinchen'")
    if not session:
        _refuse_session_only(rules)
    return rules


def _refuse_session_only(rules: Rules) -> None:
    for name in SESSION_ONLY:
        if getattr(rules, name):
            raise RulesError(f"rules option {name!r} needs a session (a sequence of deals): use "
                             "dokosim session / dokosim.simulate_sessions", kind="unsupported_rule")


def load_rules(spec: str, overrides: tuple[str, ...] = (), session: bool = False) -> Rules:
    """Rules from a CLI ``--rules`` value (preset name or TOML file) and ``KEY=VALUE`` overrides."""
    if spec.endswith(".toml"):
        path = Path(spec)
        if path.is_dir():
            raise RulesError(f"rules file {spec!r} is a directory, not a TOML file")
        if not path.is_file():
            raise RulesError(f"rules file {spec!r} does not exist")
        try:
            obj = tomllib.loads(path.read_bytes().decode("utf-8"))
        except OSError as exc:
            raise RulesError(f"cannot read rules file {spec!r}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise RulesError(f"rules file {spec!r} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                             f"at offset {exc.start}); TOML files are UTF-8") from None
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(f"rules file {spec!r} is not valid TOML: {exc}") from None
    else:
        obj = {"preset": spec}
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep:
            raise RulesError(f"--rule {item!r} must be KEY=VALUE")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        obj[key.strip()] = value
    return rules_from_object(obj, session)
