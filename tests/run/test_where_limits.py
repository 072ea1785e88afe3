"""Conditions that would explode are refused in one line (issue 32, item 2): nesting, length and
operator count are bounded, integer literals and every value the expression can take fit the
kernel's 64-bit arithmetic. Generated expressions, through the command line (exit 2, one error line, no
traceback) and the API (ConditionError)."""
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as hs

from dokosim.cli import main as cli
from dokosim.rules import Rules
from dokosim.run.conditions import (
    MAX_WHERE_DEPTH, MAX_WHERE_LENGTH, MAX_WHERE_OPERATORS, ConditionError, parse_conditions,
)

TERM = "trumps(0) > 1"
EXPLODING = {
    "125 parentheses": "(" * 125 + TERM + ")" * 125,
    "45 nots (nesting)": "not " * 45 + TERM,
    "a 150-term and (operators)": " and ".join(["1 > 0"] * 150),
    "1,000 nots (length)": "not " * 1000 + TERM,
    "a 300-term sum": " + ".join(["1"] * 300) + " > 0",
    "a huge literal": "99999999999999999999 > trumps(0)",
    "a literal past 64 bits": "trumps(0) + 9223372036854775807 > 0",
    "a product past 64 bits": "trumps(0) * 1000000 * 1000000 * 1000000 * 1000000 > 0",
    "minus signs": "-" * 200 + "1 < trumps(0)",
    "too long": TERM + " " * MAX_WHERE_LENGTH,
}


@pytest.mark.parametrize("name", list(EXPLODING))
def test_an_exploding_condition_is_one_line_and_exit_2(name):
    result = CliRunner().invoke(cli, ["simulate", "--deals", "1", "--quiet", "--where", EXPLODING[name]])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, (SystemExit, type(None)))
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "where" in errors[0], result.output  # click's usage hint aside
    limit = {"nesting": "nested more than", "operators": "operators", "length": "characters long"}
    for word, text in limit.items():
        if f"({word})" in name:
            assert text in errors[0], errors[0]  # the limit the case is about, not another one


@settings(max_examples=60, deadline=None, derandomize=True)
@given(hs.recursive(hs.sampled_from(["trumps(0)", "aces(1)", "3", "0", "1000000"]),
                    lambda inner: hs.one_of(
                        hs.tuples(hs.sampled_from(["not ", "-", "("]), inner).map(
                            lambda t: f"{t[0]}{t[1]})" if t[0] == "(" else f"{t[0]}{t[1]}"),
                        hs.tuples(inner, hs.sampled_from([" + ", " * ", " and ", " or ", " < ", " == "]),
                                  inner).map("".join)),
                    max_leaves=400))
def test_a_generated_condition_parses_or_is_refused_with_a_condition_error(where):
    """Any expression of the grammar, however deep, long or large: parsed, or ConditionError
    (never RecursionError, OverflowError or another exception)."""
    try:
        parse_conditions(where=where, rules=Rules())
    except ConditionError as exc:
        assert "\n" not in str(exc)


def test_the_limits_leave_room_for_real_conditions():
    ok = "7 <= trumps(0) <= 9 and (aces(1) == 0 or not has(2, 'AD', 2)) and trumps(0) * 2 - -1 >= 3"
    assert parse_conditions(where=ok, rules=Rules()) is not None
    assert MAX_WHERE_DEPTH >= 20 and MAX_WHERE_OPERATORS >= 50
