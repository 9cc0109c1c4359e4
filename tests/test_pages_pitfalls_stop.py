"""AppTest for the Pitfalls page's mistakes at the stop token."""

from __future__ import annotations

from pagetest import open_linked_page, plain

from lab.core.blocks import compare_laws
from lab.core.markov import load_model

PITFALLS = "lab/views/pages/pitfalls.py"


def choose(at, model: str, variant: str):
    at.selectbox(key="pit_model").set_value(model).run()
    at.selectbox(key="pit_variant").set_value(variant).run()
    return at


def test_the_stop_mistakes_are_offered_and_revealed_on_a_stop_model():
    at = open_linked_page(PITFALLS, timeout=60)
    options = set(at.selectbox(key="pit_variant").options)
    assert "Drafting past the stop token (draft-past-stop)" in options
    assert "A bonus token after the stop token (bonus-after-stop)" in options
    choose(at, "markov-ab-end", "draft-past-stop")
    assert (at.number_input(key="pit_block").value, at.number_input(key="pit_length").value) == (2, 4)
    caption = " ".join(plain(c.value) for c in at.caption)
    assert "Each output ends with <end> or is cut at L = 4 tokens (<end> counted as one of them)" in caption
    assert any("Drafting past the stop token" in h.value for h in at.header)
    assert "no report is cited for this one" in " ".join(m.value for m in at.markdown)
    choice = "markov-ab-end::2::4::draft-past-stop"
    assert f"pit_guess_gain::{choice}" in [s.key for s in at.selectbox]
    at.button(key="pit_reveal").click().run()
    assert not at.exception
    expected = compare_laws(load_model("markov-ab-end"), 2, 4, "draft-past-stop").distance
    assert any(m.value == str(expected) for m in at.metric)  # 29/96, as the CLI's mistakes table
    table = at.dataframe[0].value
    assert "a <end> a" in list(table["outcome"])  # a token after the stop token


def test_a_stop_mistake_on_a_model_without_a_stop_token_says_so():
    at = open_linked_page(PITFALLS, timeout=60)
    choose(at, "markov-three", "bonus-after-stop")
    assert any("has no stop token, so this mistake changes nothing here" in c.value for c in at.caption)
