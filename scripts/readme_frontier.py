"""Paste results/frontier/readme_tables.md (written by ``dokosim study frontier``) into
docs/studies/frontier.md (the frontier's results page, linked from the README) between the markers
``<!-- frontier tables -->`` and ``<!-- /frontier tables -->``, so that the page's frontier tables
are the committed file's, number for number. (The tables were in README.md until the README was
cut to a page a newcomer reads; the file keeps its name.)

    python scripts/readme_frontier.py
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "studies" / "frontier.md"
START, END = "<!-- frontier tables -->", "<!-- /frontier tables -->"


def main() -> None:
    page = PAGE.read_text()
    tables = (ROOT / "results" / "frontier" / "readme_tables.md").read_text().strip()
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{START}\n\n{tables}\n\n{END}{tail}")


if __name__ == "__main__":
    main()
