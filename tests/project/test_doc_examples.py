"""Every example in README.md, docs/*.md and docs/studies/*.md runs as written (issue 33, item 3).

The fenced ``python`` and ``bash`` blocks of a page run in the page's order, in one process and
one namespace (a reader runs a page top to bottom), from a fresh temporary directory with a copy
of ``examples/`` (as in a checkout): python blocks as written, each bash command as this
checkout's ``dokosim``, which must succeed (exit 1 is accepted where the page says so:
``score`` and ``solve`` on records that break a rule, whose output says ``"ok":false``). Blocks
of other languages (output, TOML, JSON) are not run. A block whose first line is
``# file: PATH`` (python, TOML, ...) is a file the page asks the reader to create: it is written
to PATH in the page's directory before the page runs. A block preceded by
``<!-- not run: REASON -->`` is not run; the reason is required, and the counts are printed
(``test_every_block_is_run_or_has_a_reason``).

The documented substitution: sizes are capped so that the suite stays within CI's budget,
``--deals N`` and ``--rounds N`` to at most SMALL, and in Python the first argument of
``simulate``, ``simulate_sessions``, ``probe_calls``, ``tournament``, ``solve_deals`` and
``make_data`` and the keywords ``deals=``/``rounds=`` likewise; nothing else is changed.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # end to end

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "docs" / "studies").glob("*.md"))]  # the studies' results, a page each
SMALL = 40
RUNNABLE = ("python", "bash")
BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?^```(?P<lang>\w*)\n(?P<code>.*?)^```", re.S | re.M)
NUMBER = r"([\d_]+(?:\*\*\d+)?)"  # 100, 10_000, 10**9
SIZE_OPTION = re.compile(r"(--(?:deals|rounds)[ =])" + NUMBER)
SIZE_CALL = re.compile(r"(\b(?:simulate|simulate_sessions|probe_calls|tournament|solve_deals|make_data)\("
                       r"(?:\[[^\]]*\],\s*)?)" + NUMBER)
SIZE_KEYWORD = re.compile(r"(\b(?:deals|rounds)=)" + NUMBER)


def blocks():
    """(page, index, language, code, reason or None) of every fenced block of the pages."""
    out = []
    for page in PAGES:
        for k, m in enumerate(BLOCK.finditer(page.read_text())):
            out.append((page, k, m.group("lang"), m.group("code"), m.group("reason")))
    return out


def _cap(match) -> str:
    base, _, power = match.group(2).replace("_", "").replace(",", "").partition("**")
    value = int(base) ** int(power) if power else int(base)
    return match.group(1) + str(min(value, SMALL))


def small(code: str) -> str:
    """``code`` with its sizes capped (the module doc's substitution)."""
    for pattern in (SIZE_OPTION, SIZE_CALL, SIZE_KEYWORD):
        code = pattern.sub(_cap, code)
    return code


def commands(code: str) -> list[str]:
    """The shell lines of a bash block: continuations joined, comments and blank lines dropped."""
    joined = code.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        out.append(re.sub(r"\s+#\s.*$", "", line))  # a trailing comment (after at least one space)
    return out


FILE_LINE = re.compile(r"# file: (\S+)")


def file_block(code: str) -> str | None:
    """The path a ``# file: PATH`` block asks the reader to create, else None."""
    m = FILE_LINE.match(code)
    return m.group(1) if m else None


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A fresh directory with a copy of ``examples/`` (as a checkout has it)."""
    where = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "examples", where / "examples")
    return where


def page_directory(workdir: Path, page: Path) -> Path:
    """The page's own directory: ``examples/`` and the files the page asks to create."""
    here = workdir / page.stem
    here.mkdir(exist_ok=True)
    shutil.copytree(workdir / "examples", here / "examples", dirs_exist_ok=True)
    for p, _, lang, code, reason in blocks():
        if p == page and reason is None and file_block(code):
            target = here / file_block(code)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(code)
    return here


def run(args, cwd, input_text=None, timeout=600):
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "MPLBACKEND": "Agg"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, input=input_text)


SHELL_HELPER = """
import subprocess as _subprocess, sys as _sys, time as _time
def _doc_shell(line, args):
    started = _time.time()
    r = _subprocess.run([_sys.executable, "-m", "dokosim.cli", *args], capture_output=True, text=True)
    broken_records = r.returncode == 1 and args[0] in ("score", "solve") and '"ok":false' in r.stdout.replace(" ", "")
    print(f"{_time.time() - started:6.1f} s  {line}", file=_sys.stderr, flush=True)
    if r.returncode != 0 and not broken_records:
        raise SystemExit(f"FAILED (exit {r.returncode}): {line}\\n{r.stderr[-3000:]}")
"""


def page_script(page: Path) -> str:
    """The page's runnable blocks in order as one Python script: python blocks as written, each
    bash command as a call of this checkout's ``dokosim`` that must succeed (sizes capped)."""
    parts = [SHELL_HELPER]
    for p, k, lang, code, reason in blocks():
        if p != page or reason is not None or lang not in RUNNABLE or file_block(code):
            continue
        parts.append(f"print('--- {page.name} block {k} ({lang})', file=_sys.stderr, flush=True)")
        if lang == "python":
            parts.append(small(code))
        else:
            for line in commands(small(code)):
                args = shlex.split(line)
                assert args[0] == "dokosim", f"{page.name} block {k}: {line!r} is not a dokosim command"
                parts.append(f"_doc_shell({line!r}, {args[1:]!r})")
    return "\n\n".join(parts)


RUN_PAGES = sorted({page for page, _, lang, code, reason in blocks()
                    if lang in RUNNABLE and reason is None and not file_block(code)})


@pytest.mark.subprocess
@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: p.name)
def test_the_examples_of_a_page_run_in_order(page, workdir):
    """The page's python and bash blocks, in the page's order, in one process and one namespace
    (a reader runs a page top to bottom), from the page's own fresh directory."""
    result = run([sys.executable, "-c", page_script(page)], page_directory(workdir, page), timeout=900)
    sys.stderr.write(result.stderr[-6000:])  # the per-command times, for -s
    assert result.returncode == 0, f"{page.name}:\n{result.stderr[-4000:]}"


def test_every_block_is_run_or_has_a_reason():
    """Every fence names its language (python and bash run; text, console transcripts, json, toml
    are shown, not run); every python and bash block runs, or says why not; the counts are
    printed."""
    unlabelled = [f"{page.name} block {k}" for page, k, lang, _, _ in blocks() if not lang]
    assert not unlabelled, unlabelled
    runnable = [b for b in blocks() if b[2] in RUNNABLE]
    not_run = [b for b in runnable if b[4] is not None]
    assert all(reason.strip() for *_, reason in not_run)
    print(f"{len(runnable)} runnable blocks: {len(runnable) - len(not_run)} run, {len(not_run)} not run "
          "(each with its reason)")
    assert len(runnable) - len(not_run) >= 0.75 * len(runnable), (len(runnable), len(not_run))
