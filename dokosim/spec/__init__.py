"""The project's own texts of the rules it implements (RULES.md) and of its game-record format
(GAME_RECORD.md), shipped with the package so that ``dokosim rules`` can name them in any install;
docs/RULES.md and docs/GAME_RECORD.md are the same files (tests/project/test_docs.py checks)."""
from pathlib import Path

RULES_FILE = Path(__file__).with_name("RULES.md")
GAME_RECORD_FILE = Path(__file__).with_name("GAME_RECORD.md")
