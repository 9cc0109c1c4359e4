"""Predict, then reveal, in AppTest: before Reveal the Residual explorer (also in presentation mode) shows no
rendering of the scenario's α, Z or r in any text, caption, chart label, hover text or alt text; after Reveal it
states them and the scenario's explanation. The answers are the hand-derived ones of tests/answer_text.py."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from answer_text import ANSWERS, NO_REJECTION, apptest_text, leaks, states
from pagetest import open_default_page


def explanation_of(name: str) -> str:
    """The scenario file's explanation, read from the file itself."""
    with (Path(__file__).resolve().parents[1] / "scenarios" / f"{name}.toml").open("rb") as handle:
        return tomllib.load(handle)["explanation"].strip()


@pytest.mark.parametrize("present", [False, True], ids=["laptop", "presenting"])
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_explorer_hides_the_answer_until_reveal(name, present):
    hand = ANSWERS[name]
    params = {"scenario": name} | ({"present": "1"} if present else {})
    at = open_default_page(params)  # the explorer is the default page
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
    at = open_default_page({"scenario": name})
    before = apptest_text(at)
    for statement in ("Z = 0", "alpha = 1", "α = 1", "no-rejection", "0/0"):
        assert statement not in before
    at.button(key="ex_reveal").click().run()
    after = apptest_text(at)
    assert "Z = 0" in after and "α = 1" in after and "0/0 is never evaluated" in after
    assert explanation_of(name) not in before and explanation_of(name) in after
