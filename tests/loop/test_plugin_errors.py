"""A plug-in that fails is one line naming it, what it did and where (issue 32, item 3, the
``--where-path`` part): a predicate that raises is tried before the run (no traceback per try, no
misleading "too rare"), a module with a syntax error names its file and line; exit 2."""
import textwrap

import pytest
from click.testing import CliRunner

from dokosim.cli import main as cli


def strategy(reserve_args, reserve_returns):
    """A plug-in strategy's module whose ``reserve`` takes ``reserve_args`` and returns
    ``reserve_returns``; its ``call`` passes and its ``card`` answers -1."""
    return f"""
        import numba

        @numba.njit
        def reserve({reserve_args}):
            return {reserve_returns}

        @numba.njit
        def call(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
            return 0

        @numba.njit
        def card(seat, hand, legal, pub, plays, play_seat, trick_winner, power, fclass, cmask, rules, params, rng):
            return -1
        """


MODULES = {
    "pred_raises": """
        import numba

        @numba.njit
        def check(h0, h1, h2, h3):
            if h0 > 0:
                raise ValueError("no good")
            return True
        """,
    "pred_syntax": "def check(:\n    pass\n",
    "strat_arity": strategy("seat, hand", "0"),
    "strat_types": strategy("seat, hand, options, pub, rules, params, rng", "pub.no_such_attribute"),
    "pred_ok": """
        import numba

        @numba.njit
        def check(h0, h1, h2, h3):
            return h0 != h1
        """,
}


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    for name, text in MODULES.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("module, expected", [("pred_raises", "ValueError: no good ("),
                                              ("pred_syntax", "SyntaxError")])
def test_a_failing_predicate_is_one_line_with_its_place(plugins, module, expected):
    result = CliRunner().invoke(cli, ["simulate", "--deals", "5", "--quiet", "--where-path", f"{module}:check"])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and expected in errors[0] and f"{module}.py:" in errors[0], result.output
    assert "Traceback" not in result.output


def test_a_working_predicate_still_runs(plugins):
    result = CliRunner().invoke(cli, ["simulate", "--deals", "5", "--quiet", "--json", "--where-path", "pred_ok:check"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("module, expected", [("strat_arity", "reserve takes 2 arguments"),
                                              ("strat_types", "its reserve does not compile")])
def test_a_numba_strategy_that_does_not_fit_is_one_line(plugins, module, expected):
    """issue 32, item 3: wrong signatures or a body numba cannot type: one line naming the
    strategy and the entry point (no 102-line TypingError), exit 2."""
    result = CliRunner().invoke(cli, ["simulate", "--deals", "5", "--quiet", "--strategy", module,
                                      "--strategy-path", module])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and expected in errors[0] and module in errors[0], result.output
    assert "Traceback" not in result.output and len(result.output.splitlines()) <= 5


RARE_RAISE = """
import numba

@numba.njit
def check(h0, h1, h2, h3):
    if h0 % 1000 == 7:  # about one deal in a thousand: past the 256 tries before the run
        raise ValueError("rare hand")
    return True
"""


@pytest.mark.subprocess
def test_a_predicate_that_raises_on_rare_hands_stops_the_run_in_one_line(tmp_path):
    """The compiled entry records the raise instead of numba printing a traceback at every deal
    and dealing on; the run stops before a chunk is written, naming the place and the hands."""
    import subprocess
    import sys
    (tmp_path / "pred_rare.py").write_text(RARE_RAISE)
    out = tmp_path / "data"
    proc = subprocess.run([sys.executable, "-m", "dokosim.cli", "simulate", "--deals", "20000", "--quiet",
                           "--where-path", "pred_rare:check", "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, proc.stderr
    raise_line = next(i for i, line in enumerate(RARE_RAISE.splitlines(), 1) if "raise " in line)
    assert "ValueError: rare hand" in errors[0] and f"pred_rare.py:{raise_line})" in errors[0]
    assert "while dealing" in errors[0]
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert not list(out.glob("*.parquet"))
