"""Predict, then reveal, in AppTest: before Reveal the Residual explorer (also in presentation mode) shows no
rendering of the scenario's α, Z or r in any text, caption, chart label, hover text or alt text; after Reveal it
states them and the scenario's explanation. The answers are the hand-derived ones of tests/answer_text.py.
The Binomial lab's worked-example guide follows the page: every order of steps that reaches the example ticks
every step, an unticked step says what is missing, and the student types Z·r(B) and Z·r(C) before the sum."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from answer_text import ANSWERS, NO_REJECTION, apptest_text, leaks, states
from pagetest import open_explorer, open_linked_page, predictors


def explanation_of(name: str) -> str:
    """The scenario file's explanation, read from the file itself."""
    with (Path(__file__).resolve().parents[1] / "scenarios" / f"{name}.toml").open("rb") as handle:
        return tomllib.load(handle)["explanation"].strip()


@pytest.mark.parametrize("present", [False, True], ids=["laptop", "presenting"])
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_explorer_hides_the_answer_until_reveal(name, present):
    hand = ANSWERS[name]
    params = {"scenario": name} | ({"present": "1"} if present else {})
    at = open_explorer(params)
    before = apptest_text(at)
    assert leaks(before, hand) == []
    assert all(f"{t}: p {a}, q {b}" in before for t, a, b in zip(hand.tokens, hand.p, hand.q))  # the question
    at.button(key="ex_reveal").click().run()
    assert not at.exception
    after = apptest_text(at)
    assert states(after, hand.z) or hand.z == 1
    assert f"Z = {hand.z}" in after and f"α = {hand.alpha}" in after
    for t, r in zip(hand.tokens, hand.r):
        assert f"{t}: predicted 0, exact {r}" in after  # the residual chart's alt text
    explanation = explanation_of(name)
    assert explanation not in before and explanation in after


@pytest.mark.parametrize("name", sorted(NO_REJECTION))
def test_the_no_rejection_scenario_hides_z_until_reveal(name):
    at = open_explorer({"scenario": name})
    before = apptest_text(at)
    for statement in ("Z = 0", "alpha = 1", "α = 1", "no-rejection", "0/0"):
        assert statement not in before
    at.button(key="ex_reveal").click().run()
    after = apptest_text(at)
    assert "Z = 0" in after and "α = 1" in after and "0/0 is never evaluated" in after
    assert explanation_of(name) not in before and explanation_of(name) in after


# --- the Binomial lab's worked-example guide follows the page -------------------------------------------------

BINOMIAL = "lab/views/pages/binomial_lab.py"
# By hand: Z = 2/5 (bernoulli-residual); the lab at 0.75, n = 1 shows r(B) = 3/4, r(C) = 1/4, so
# Z·r(B) = 3/10 and Z·r(C) = 1/10; min(p, q) = (1/10, 3/10, 1/5) + (0, 3/10, 1/10) = p = (1/10, 3/5, 3/10).


def guide_lines(at) -> list[str]:
    text = next(m.value for m in at.markdown if "1. Start from a clean lab" in m.value)
    return text.split("  \n")


def ticked(at) -> list[bool]:
    return [line.startswith("☑") for line in guide_lines(at)]


def set_p(at):
    at.number_input(key="bl_p").set_value(0.75).run()


def set_n(at):
    at.number_input(key="bl_n").set_value(1).run()


def predict(at):
    at.number_input(key="bl_pred_0").set_value(0.7).run()


def reveal(at):
    at.button(key="bl_reveal").click().run()


def reset(at):
    at.button(key="bl_reset").click().run()


def type_products(at, b="3/10", c="0.1"):
    at.text_input(key="bl_zr_B").set_value(b)
    at.text_input(key="bl_zr_C").set_value(c)
    at.button(key="bl_products_check").click().run()


# every order a student can take to the worked example: n before the prediction (a new n clears the bars),
# Reveal after lab success p and n (a change hides the bars again), with or without Reset first
ORDERS = [
    (set_p, set_n, predict, reveal),
    (set_n, set_p, predict, reveal),
    (set_n, predict, set_p, reveal),
    (reset, set_p, set_n, predict, reveal),
    (reset, set_n, predict, set_p, reveal),
    (set_n, reset, set_n, set_p, predict, reveal),
    (set_p, set_n, reveal, predict),  # predicted after Reveal: still a state the guide accepts
]


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: "-".join(step.__name__ for step in o))
def test_every_order_reaching_the_worked_example_ticks_every_step(order):
    at = open_linked_page(BINOMIAL)
    assert ticked(at) == [True, False, False, False, False, False]  # a fresh page is a clean lab: no Reset needed
    for step in order:
        step(at)
        assert not at.exception
    assert ticked(at) == [True, True, True, True, False, False]
    assert [t.label for t in at.text_input] == ["Z·r(B)", "Z·r(C)"]
    assert not at.success  # no sum before the products
    type_products(at)
    assert ticked(at) == [True] * 6
    assert any("A 1/10, B 3/5, C 3/10" in s.value for s in at.success)


def test_an_unticked_step_says_what_is_missing_and_wrong_products_give_no_answer():
    at = open_linked_page(BINOMIAL)
    lines = guide_lines(at)
    assert "to do: set lab success p to 0.75 and set n to 1" in lines[1]
    assert "to do: set n to 1 first" in lines[2]
    set_n(at)
    lines = guide_lines(at)
    assert "to do: set lab success p to 0.75" in lines[1] and "set n" not in lines[1]
    assert "to do: type a value in Predict B or C" in lines[2]
    assert "to do: set lab success p to 0.75, then press Reveal" in lines[3]
    assert at.button(key="bl_sum").disabled and not at.text_input
    set_p(at)
    predict(at)
    reveal(at)
    type_products(at, "3/4", "0.25")  # r(B), r(C) themselves, not multiplied by Z
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 2 and all("is not Z × r(" in e for e in errors)
    assert not any(v in e for e in errors for v in ("3/10", "1/10", "0.3", "0.1"))
    assert ticked(at)[4:] == [False, False] and not at.success
    type_products(at, "30%", "x")
    assert [e.value.replace("\\", "").split(":")[0] for e in at.error] == ["Z·r(C)"]
    at.button(key="bl_sum").click().run()  # asked for: the sum without the products
    assert ticked(at)[4:] == [False, True]
    assert any("A 1/10, B 3/5, C 3/10" in s.value for s in at.success)


def test_a_link_with_predictions_is_not_a_clean_lab_until_reset():
    at = open_linked_page(BINOMIAL, {"lab_p": "0.75", "n": "1", "pred": "0.7,0.3"})
    assert ticked(at)[:3] == [False, True, True]
    assert "to do: press Reset" in guide_lines(at)[0]
    clean = open_linked_page(BINOMIAL, {"lab_p": "0.75", "n": "1"})  # the class's link to the same bars
    assert ticked(clean)[:2] == [True, True]


def test_the_worked_example_names_its_bars_r_b_and_r_c_and_explains_lab_success_p():
    at = open_linked_page(BINOMIAL)
    assert "not the target p" in at.markdown[0].value or any("not the target p" in m.value for m in at.markdown)
    assert "not a scenario's target p" in at.number_input(key="bl_p").help
    set_p(at)
    set_n(at)
    reveal(at)
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {tuple(trace["x"]) for trace in chart["data"]} == {("r(B)", "r(C)")}
    assert predictors(at)["bl_bars"]["labels"] == ["r(B)", "r(C)"]  # the bars the student draws, too
    at.number_input(key="bl_p").set_value(0.7).run()
    assert not at.get("plotly_chart")  # hidden again; the drawn bars are the outcomes B and C
    assert predictors(at)["bl_bars"]["labels"] == ["B", "C"]
