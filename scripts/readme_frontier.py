"""Paste results/frontier/readme_tables.md (written by ``dokosim study frontier``) into README.md
between the markers ``<!-- frontier tables -->`` and ``<!-- /frontier tables -->``, so that the
README's frontier tables are the committed file's, number for number.

    python scripts/readme_frontier.py
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- frontier tables -->", "<!-- /frontier tables -->"


def main() -> None:
    readme = (ROOT / "README.md").read_text()
    tables = (ROOT / "results" / "frontier" / "readme_tables.md").read_text().strip()
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    (ROOT / "README.md").write_text(f"{head}{START}\n\n{tables}\n\n{END}{tail}")


if __name__ == "__main__":
    main()
