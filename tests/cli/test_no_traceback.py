"""No command prints a Python traceback for bad input (issue 13's last acceptance point).

Each case runs the real command in a subprocess, as a user would, and checks what the user sees:
an exit code of 1 (a failure, or a refused record) or 2 (bad usage), stderr without a
``Traceback`` or a Rust ``panicked`` message, and for bad usage one ``Error`` line that names the
value. The cases are issue 13's findings and every file under ``tests/`` fed to the commands that
read files (``score``, ``show``, ``--rules``).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess  # starts a dokosim process

TESTS = Path(__file__).resolve().parents[1]
# the empty __init__.py files that make tests/ a package are left out: they are all the same empty file
EVERY_TEST_FILE = sorted(p for p in TESTS.rglob("*")
                         if p.is_file() and "__pycache__" not in p.parts and p.name != "__init__.py")


def run(argv, cwd=None, stdin=None):
    """The command's exit code, stdout and stderr (text, undecodable bytes replaced)."""
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", *map(str, argv)], capture_output=True,
                          input=stdin, timeout=300, cwd=cwd)
    return proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")


def assert_clean_failure(code, err, expect=(1, 2), names=None):
    """A failure a user can read: the expected exit code, no traceback or panic, one Error line."""
    assert "Traceback" not in err, err
    assert "panicked" not in err, err
    assert code in expect, (code, err)
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("Error") or "error:" in line.lower()]
        assert len(errors) == 1, err
        if names is not None:
            assert names in errors[0], err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Bad inputs on disk: a plain file, a binary file, a non-UTF-8 TOML file, a params file with a
    table for a seat that does not exist, a dataset directory with a corrupt manifest."""
    root = tmp_path_factory.mktemp("bad_inputs")
    (root / "plain.txt").write_text("not a directory\n")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 8)
    (root / "latin1.toml").write_bytes("preset = 'ddv'\n# M\xfcller\n".encode("latin-1"))
    (root / "seat7.toml").write_text("[7]\nsolo_win = 0.5\n")
    (root / "nan.toml").write_text("[random]\np_call = nan\n")
    corrupt = root / "corrupt_dataset"
    corrupt.mkdir()
    (corrupt / "manifest.json").write_bytes(b'{"schema_version": 2, "deals": ')
    binary_dir = root / "binary_dataset"
    binary_dir.mkdir()
    (binary_dir / "manifest.json").write_bytes(bytes(range(256)))
    existing = root / "existing"
    existing.mkdir()
    (existing / "manifest.json").write_text(json.dumps({"keep": "me"}))
    # plug-ins in the directory the commands run in (found there, as the docs say)
    (root / "syntax_error_plugin.py").write_text("def f(:\n")
    (root / "raising_agent.py").write_text(
        "class Raiser:\n    def act(self, observation, legal_actions):\n        raise ValueError('boom')\n")
    return root


# (name, argv with {tmp} for the fixture directory, expected exit codes, text the Error line names)
CASES = [
    ("simulate --deals 0", ["simulate", "--deals", "0"], (2,), "--deals"),
    ("session --rounds 0", ["session", "--rounds", "0"], (2,), "--rounds"),
    ("simulate --out under a file", ["simulate", "--deals", "100", "--out", "{tmp}/plain.txt/data"], (2,), "plain.txt"),
    ("simulate --out in /proc", ["simulate", "--deals", "100", "--out", "/proc/dokosim_data"], (2,), "/proc"),
    ("session --out under a file", ["session", "--rounds", "2", "--out", "{tmp}/plain.txt/s"], (2,), "plain.txt"),
    ("tournament --chart in a missing directory",
     ["tournament", "simple", "random", "--deals", "200", "--chart", "/nonexistent/x.png"], (2,), "/nonexistent"),
    ("probe-calls --out in a missing directory",
     ["probe-calls", "--deals", "200", "--out", "/nonexistent/p.parquet"], (2,), "/nonexistent"),
    ("probe-calls --out over a file it did not write",
     ["probe-calls", "--deals", "200", "--out", "{tmp}/existing/manifest.json"], (2,), "manifest.json"),
    ("show a corrupt manifest", ["show", "{tmp}/corrupt_dataset", "--deal-id", "0"], (1, 2), None),
    ("show a binary manifest", ["show", "{tmp}/binary_dataset", "--deal-id", "0"], (1, 2), None),
    ("show a binary file", ["show", "{tmp}/binary.bin", "--line", "1"], (1, 2), None),
    ("audit a file", ["audit", "{tmp}/plain.txt"], (2,), "plain.txt"),
    ("audit a corrupt manifest", ["audit", "{tmp}/corrupt_dataset"], (2,), "manifest.json"),
    ("audit a dataset without records", ["audit", "{tmp}/existing"], (2,), "--keep-play"),
    ("audit --tricks 0", ["audit", "{tmp}/existing", "--tricks", "0"], (2,), "--tricks"),
    ("--rules a missing file", ["simulate", "--deals", "100", "--rules", "{tmp}/missing.toml"], (2,), "missing.toml"),
    ("--rules a non-UTF-8 file", ["simulate", "--deals", "100", "--rules", "{tmp}/latin1.toml"], (2,), "latin1.toml"),
    ("--rules a binary file", ["simulate", "--deals", "100", "--rules", "{tmp}/binary.bin"], (2,), "binary.bin"),
    ("--rules a directory", ["simulate", "--deals", "100", "--rules", "{tmp}"], (2,), None),
    ("forced contract the rules forbid",
     ["simulate", "--deals", "100", "--contract", "hearts_solo", "--rule", "solos=['queens']"], (2,), "hearts_solo"),
    ("--param for a seat that does not exist",
     ["simulate", "--deals", "100", "--strategy", "heuristic", "--param", "4:solo_trumps=11"], (2,), "4"),
    ("--param for a strategy not in the run",
     ["simulate", "--deals", "100", "--strategy", "simple", "--param", "foo:bar=1"], (2,), "foo"),
    ("--param table for seat 7", ["simulate", "--deals", "100", "--param", "{tmp}/seat7.toml"], (2,), "7"),
    ("--param nan", ["simulate", "--deals", "100", "--strategy", "random", "--param", "random:p_call=nan"],
     (2,), "nan"),
    ("--param probability above 1",
     ["simulate", "--deals", "100", "--strategy", "random", "--param", "random:p_call=1.5"], (2,), "1.5"),
    ("--param nan in a TOML file", ["simulate", "--deals", "100", "--param", "{tmp}/nan.toml"], (2,), "nan"),
    ("study --cluster local:0", ["study", "solo_odds", "--deals", "100", "--cluster", "local:0"], (2,), "local:0"),
    ("simulate --cluster local:0", ["simulate", "--deals", "100", "--cluster", "local:0"], (2,), "local:0"),
    ("score a missing file", ["score", "{tmp}/missing.jsonl"], (2,), "missing.jsonl"),
    ("score a directory", ["score", "{tmp}"], (2,), None),
    ("show a missing file", ["show", "{tmp}/missing.jsonl", "--line", "1"], (2,), "missing.jsonl"),
    ("advise a hand of eleven cards", ["advise", "--hand", "QC QS QH JC JS TH AD TD KD AC TC"], (2,), None),
    ("advise a card that does not exist", ["advise", "--hand", "QC QS QH JC JS TH AD TD KD AC TC XX"], (2,), "XX"),
    ("unknown strategy", ["simulate", "--deals", "100", "--strategy", "nobody"], (2,), "nobody"),
    ("unknown rules preset", ["simulate", "--deals", "100", "--rules", "nonsense"], (2,), "nonsense"),
    ("unknown rules option", ["simulate", "--deals", "100", "--rule", "nonsense=1"], (2,), "nonsense"),
    # commands and options added since issue 13 (issue 32)
    ("solve a missing file", ["solve", "{tmp}/missing.jsonl"], (2,), "missing.jsonl"),
    ("solve --deals without --out", ["solve", "--deals", "10"], (2,), "--out"),
    ("solve --node-limit 2^63", ["solve", "--deals", "10", "--out", "{tmp}/s", "--node-limit", str(2**63)],
     (2,), "--node-limit"),
    ("play --save under a file", ["play", "--save", "{tmp}/plain.txt/records.jsonl"], (2,), "plain.txt"),
    ("play an unknown strategy", ["play", "--strategy", "nobody"], (2,), "nobody"),
    ("study an unknown name", ["study", "nonsense"], (2,), "nonsense"),
    ("study frontier --deals 10", ["study", "frontier", "--deals", "10"], (2,), "--deals"),
    ("study par --deals 10^13", ["study", "par", "--deals", str(10**13)], (2,), "--deals"),
    ("audit --deals 2^63", ["audit", "{tmp}/existing", "--deals", str(2**63 - 1)], (2,), "--deals"),
    ("probe-calls an unknown level", ["probe-calls", "--level", "nonsense", "--deals", "10"], (2,), "nonsense"),
    ("--where nested 200 deep", ["simulate", "--deals", "100", "--where", "(" * 200 + "trumps(0) > 1" + ")" * 200],
     (2,), "nested"),
    ("--where a literal past 64 bits", ["simulate", "--deals", "100", "--where", "99999999999999999999 > trumps(0)"],
     (2,), "99999999999999999999"),
    ("--where a sum that would wrap", ["simulate", "--deals", "100", "--where",
                                       "trumps(0) + 9223372036854775807 > 0"], (2,), "9223372036854775807"),
    ("--where in probe-calls", ["probe-calls", "--deals", "10", "--where", "not " * 1000 + "trumps(0) > 1"],
     (2,), "where"),
    ("--where-path a module with a syntax error", ["simulate", "--deals", "100", "--where-path",
                                                   "syntax_error_plugin:f"], (2,), "syntax_error_plugin.py:1"),
    ("tournament: a Python agent that raises", ["tournament", "Raiser", "simple", "--deals", "8",
                                                "--strategy-path", "raising_agent:Raiser"], (2,), "boom"),
    ("--hand 0= with no cards", ["simulate", "--deals", "100", "--hand", "0="], (2,), "seat 0"),
    ("strategy module that does not exist",
     ["simulate", "--deals", "100", "--strategy-path", "no_such_module_xyz:bot"], (2,), "no_such_module_xyz"),
]


@pytest.mark.parametrize("argv, expect, names", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gives_one_line_not_a_traceback(files, argv, expect, names):
    code, _, err = run([a.replace("{tmp}", str(files)) for a in argv], cwd=files)
    assert_clean_failure(code, err, expect, names)


def test_probe_calls_leaves_a_file_it_did_not_write_alone(files):
    manifest = files / "existing" / "manifest.json"
    before = manifest.read_bytes()
    run(["probe-calls", "--deals", "200", "--out", manifest])
    assert manifest.read_bytes() == before


@pytest.mark.parametrize("path", EVERY_TEST_FILE, ids=[str(p.relative_to(TESTS)) for p in EVERY_TEST_FILE])
def test_every_file_under_tests_read_as_records(path):
    """``score`` gives one JSON line per input line for any file; ``show --line 1`` shows or refuses."""
    code, out, err = run(["score", path])
    assert "Traceback" not in err and "panicked" not in err, err
    assert code in (0, 1), (code, err)
    n_lines = sum(1 for line in path.read_bytes().split(b"\n") if line.strip())  # blank lines get none
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == n_lines and all("ok" in r for r in results)
    code, _, err = run(["show", path, "--line", "1"])
    assert "Traceback" not in err and "panicked" not in err, err
    assert code in (0, 1, 2), (code, err)


@pytest.mark.parametrize("path", [p for p in EVERY_TEST_FILE if p.suffix != ".toml"][:3] + [TESTS / "conftest.py"],
                         ids=lambda p: p.name)
def test_files_under_tests_as_rules_files(path):
    code, _, err = run(["simulate", "--deals", "100", "--rules", path])
    assert_clean_failure(code, err, (2,))
