"""AppTest for the residual explorer and the binomial lab: set controls, press Reset / Reveal /
Reveal, and check the displayed values and chart data against hand-derived numbers."""

from __future__ import annotations

import pytest
from pagetest import chart_traces as traces
from pagetest import charts, markdown_text, metric, open_explorer, open_linked_page, plain, predictors

EXPLORER = "lab/views/pages/explorer.py"
BINOMIAL = "lab/views/pages/binomial_lab.py"


def open_page(page: str, params: dict[str, str] | None = None):
    """Open ``page`` as a link with ``params`` would."""
    if page == EXPLORER:
        return open_explorer(params, timeout=30)
    return open_linked_page(page, params, timeout=30)


# --- residual explorer ------------------------------------------------------------------------


def edit_table(at, button: str = "ex_apply", **typed):
    """Type into the editor's boxes (``ex_p_1="0.7"``), then press one of its form's buttons: the table is
    applied as a whole, only on a press."""
    for key, value in typed.items():
        at.text_input(key=key).set_value(value)
    at.button(key=button).click().run()
    assert not at.exception


def test_explorer_hides_the_answer_until_reveal():
    at = open_page(EXPLORER)
    assert not at.text_input  # the token table is drawn only while editing
    at.toggle(key="ex_edit").set_value(True).run()
    assert [t.value for t in at.text_input] == ["A", "1/10", "1/2", "B", "3/5", "3/10", "C", "3/10", "1/5"]
    at.toggle(key="ex_edit").set_value(False).run()
    assert at.selectbox(key="ex_scenario").value == "bernoulli-residual"
    t = traces(at)
    assert t["target p"]["y"] == [0.1, 0.6, 0.3] and t["draft q"]["y"] == [0.5, 0.3, 0.2]
    assert t["target p"]["text"] == ["1/10", "3/5", "3/10"]
    assert "exact residual r" not in t and "correction Z·r" not in t
    assert [s.label for s in at.slider] == ["Predict r(A)", "Predict r(B)", "Predict r(C)", "Predict Z"]
    assert not at.metric


def test_explorer_reveal_scores_the_prediction():
    at = open_page(EXPLORER)
    at.slider(key="ex_r_1").set_value(0.5)
    at.slider(key="ex_r_2").set_value(0.5)
    at.slider(key="ex_z").set_value(0.5).run()
    at.button(key="ex_reveal").click().run()
    assert not at.exception
    # alpha = 1/10 + 3/10 + 1/5 = 3/5, Z = 2/5; r = (0, 3/4, 1/4); TV = (0 + 1/4 + 1/4) / 2 = 1/4
    assert metric(at, "α") == "3/5 (0.6)" and metric(at, "Z = 1 − α") == "2/5 (0.4)"
    text = markdown_text(at)
    assert "α = 3/5 (0.6), Z = 2/5 (0.4)" in text
    assert "your Z: 1/2 (0.5), error 1/10 (0.1)" in text
    assert "exact r = 1/4 (0.25)" in text
    t = traces(at)
    assert t["exact residual r"]["y"] == [0.0, 0.75, 0.25]
    assert t["your prediction"]["y"] == [0.0, 0.5, 0.5]
    assert t["accepted min(p, q)"]["y"] == [0.1, 0.3, 0.2]
    assert t["correction Z·r"]["y"] == pytest.approx([0.0, 0.3, 0.1])
    assert t["target p"]["y"] == [0.1, 0.6, 0.3]
    score, table = (df.value for df in at.dataframe)
    assert list(score["error"]) == ["0", "-1/4", "1/4"]
    assert list(table["Z·r"]) == ["0", "3/10", "1/10"]
    assert list(table["min(p, q) + Z·r"]) == ["1/10", "3/5", "3/10"]
    assert list(table["= p?"]) == ["yes"] * 3


def test_explorer_perfect_prediction_scores_zero():
    at = open_page(EXPLORER)
    at.slider(key="ex_r_1").set_value(0.75)
    at.slider(key="ex_r_2").set_value(0.25).run()
    at.button(key="ex_reveal").click().run()
    text = markdown_text(at)
    assert "exact r = 0 (0 is perfect" in text
    assert "Your r is exact: every bar matches." in text and "Largest error" not in text
    at.slider(key="ex_r_1").set_value(0.7).run()  # off by 1/20 at B (and the total is 19/20)
    text = markdown_text(at)
    assert "Largest error at token B." in text and "is exact" not in text


def test_explorer_table_is_applied_as_a_whole_and_normalised_exactly():
    at = open_page(EXPLORER, {"edit": "1"})
    at.text_input(key="ex_p_1").set_value("0.7").run()  # typed, not applied: no error while typing
    assert not at.error and traces(at)["target p"]["y"] == [0.1, 0.6, 0.3]
    edit_table(at, ex_p_1="0.7")
    error = plain(at.error[0].value)
    assert "sum to 11/10" in error and "press Normalise p" in error
    edit_table(at, "ex_normalise_p")  # 1/10, 7/10, 3/10 over 11/10: 1/11, 7/11, 3/11 exactly
    assert not at.error
    assert [at.text_input(key=f"ex_p_{i}").value for i in range(3)] == ["1/11", "7/11", "3/11"]
    assert traces(at)["target p"]["text"] == ["1/11", "7/11", "3/11"]
    edit_table(at, "ex_normalise_q", ex_q_0="1", ex_q_1="2", ex_q_2="1")  # weights: 1/4, 1/2, 1/4
    assert [at.text_input(key=f"ex_q_{i}").value for i in range(3)] == ["1/4", "1/2", "1/4"]
    assert traces(at)["draft q"]["text"] == ["1/4", "1/2", "1/4"] and not at.error
    assert at.query_params["q"] == "1/4,1/2,1/4"
    edit_table(at, "ex_normalise_q", ex_q_1="two")  # an unreadable value: named, nothing changes
    assert "'B'" in plain(at.error[0].value) and "Normalise q not applied" in plain(at.error[0].value)
    assert traces(at)["draft q"]["text"] == ["1/4", "1/2", "1/4"]
    edit_table(at, "ex_normalise_p", ex_p_0="0", ex_p_1="0", ex_p_2="0")
    assert "every value is zero" in plain(at.error[0].value)


def test_explorer_table_boxes_have_no_counter_and_a_long_name_gets_a_message():
    at = open_page(EXPLORER, {"edit": "1"})
    assert [t.proto.max_chars for t in at.text_input] == [0] * 9  # no "3/40" under a box
    edit_table(at, ex_name_0="x" * 41)
    error = plain(at.error[0].value)
    assert "row 1" in error and "longer than 40 characters" in error
    assert traces(at)["target p"]["x"] == ["A", "B", "C"]  # the last valid table stays


def test_explorer_bad_input_names_the_token_and_keeps_the_last_valid_state():
    at = open_page(EXPLORER, {"edit": "1"})
    edit_table(at, ex_p_1="abc")
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and "'B'" in errors[0] and "not a number" in errors[0]
    assert traces(at)["target p"]["y"] == [0.1, 0.6, 0.3]  # the last valid p stays on screen
    edit_table(at, ex_p_1="0.7")
    assert "sum to 11/10" in plain(at.error[0].value)
    edit_table(at, ex_p_2="1/5")  # 1/10 + 7/10 + 1/5 = 1: valid again
    assert not at.error
    assert traces(at)["target p"]["y"] == [0.1, 0.7, 0.2]


def test_explorer_changing_p_after_reveal_hides_it_and_reset_restores():
    at = open_page(EXPLORER, {"edit": "1"})
    at.button(key="ex_reveal").click().run()
    assert "exact residual r" in traces(at)
    edit_table(at, ex_p_0="0.2", ex_p_1="0.5")
    assert "exact residual r" not in traces(at) and not at.metric
    assert any("hidden again" in i.value for i in at.info)
    at.button(key="ex_reset").click().run()
    assert at.text_input(key="ex_p_0").value == "1/10" and at.text_input(key="ex_p_1").value == "3/5"
    assert traces(at)["target p"]["y"] == [0.1, 0.6, 0.3]


def test_explorer_equal_distributions_take_the_no_rejection_branch():
    at = open_page(EXPLORER)
    at.selectbox(key="ex_scenario").set_value("equal-distributions").run()
    at.button(key="ex_reveal").click().run()
    assert metric(at, "Z = 1 − α") == "0" and metric(at, "α") == "1"
    assert any("no rejection" in i.value and "0/0 is never evaluated" in i.value for i in at.info)
    t = traces(at)
    assert "exact residual r" not in t  # no residual is drawn
    assert t["correction Z·r"]["y"] == [0.0] * len(t["target p"]["y"])
    assert t["accepted min(p, q)"]["y"] == t["target p"]["y"]


def test_explorer_disjoint_support_shows_r_equal_to_p():
    at = open_page(EXPLORER)
    at.selectbox(key="ex_scenario").set_value("disjoint-support").run()
    at.button(key="ex_reveal").click().run()
    assert metric(at, "α") == "0" and metric(at, "Z = 1 − α") == "1"
    assert any("Disjoint supports" in i.value and "r = p" in i.value for i in at.info)
    t = traces(at)
    assert t["exact residual r"]["y"] == [0.5, 0.5, 0.0, 0.0] == t["target p"]["y"]
    assert t["accepted min(p, q)"]["y"] == [0.0] * 4


def test_explorer_add_and_remove_tokens():
    at = open_page(EXPLORER, {"edit": "1"})
    edit_table(at, "ex_add")
    assert at.text_input(key="ex_name_3").value == "D"
    edit_table(at, ex_p_2="1/5", ex_p_3="1/10")
    assert not at.error
    assert traces(at)["target p"]["x"] == ["A", "B", "C", "D"]
    assert "Predict r(D)" in [s.label for s in at.slider]
    at.checkbox(key="ex_remove_0").check()
    edit_table(at, ex_p_1="7/10")  # A removed: B 7/10, C 1/5, D 1/10; q: 3/10, 1/5, 0 -> 1/2
    assert [t.value for t in at.text_input][::3] == ["B", "C", "D"]
    assert "sum to 1/2" in plain(at.error[0].value) and "q:" in plain(at.error[0].value)


def test_explorer_state_comes_from_the_url_and_bad_links_are_reported():
    at = open_page(
        EXPLORER,
        {"tokens": "x,y", "p": "1/4,3/4", "q": "1/2,1/2", "r": "0,1", "z": "0.25", "reveal": "1"},
    )
    # p = (1/4, 3/4), q = (1/2, 1/2): Z = 1/4, r = (0, 1); the link's prediction is exact: TV 0
    assert at.slider(key="ex_r_1").value == 1.0 and at.slider(key="ex_z").value == 0.25
    assert metric(at, "Z = 1 − α") == "1/4 (0.25)"
    assert traces(at)["exact residual r"]["y"] == [0.0, 1.0]
    bad = open_page(EXPLORER, {"scenario": "nope", "tokens": "A,B", "p": "1/2,oops", "q": "1/2,1/2"})
    warnings = " ".join(plain(w.value) for w in bad.warning)
    assert "unknown scenario 'nope'" in warnings and "'B'" in warnings and "not a number" in warnings
    assert traces(bad)["target p"]["y"] == [0.1, 0.6, 0.3]


def test_explorer_writes_its_state_to_the_url():
    at = open_page(EXPLORER)
    at.selectbox(key="ex_scenario").set_value("disjoint-support").run()
    at.slider(key="ex_r_0").set_value(0.5).run()
    at.button(key="ex_reveal").click().run()
    assert at.query_params["scenario"] == "disjoint-support"
    assert at.query_params["r"] == "0.5,0,0,0"
    assert at.query_params["reveal"] == "1"


def test_explorer_token_names_are_text_not_markdown():
    at = open_page(EXPLORER, {"tokens": "[x](http://e),B", "p": "1/2,1/2", "q": "1/2,1/2"})
    assert at.slider[0].label == r"Predict r(\[x\]\(http\://e\))"
    assert not any("http://e" in m.value and "\\" not in m.value for m in at.markdown)
    bad = open_page(EXPLORER, {"scenario": "![i](http://e/i.png)"})
    assert r"\!\[i\]\(http\://e/i\.png\)" in bad.warning[0].value  # an image in a link stays text


# --- binomial lab -----------------------------------------------------------------------------


def test_binomial_defaults_hide_the_bars():
    at = open_page(BINOMIAL)
    assert at.number_input(key="bl_p").label == "lab success p" and at.number_input(key="bl_p").value == 0.5
    assert at.number_input(key="bl_n").label == "n" and at.number_input(key="bl_n").value == 5
    labels = [n.label for n in at.number_input][2:]
    assert labels == [f"Predict P({k})" for k in range(6)]
    assert not traces(at)  # before Reveal no chart: the bars are the student's, drawn by the predictor only
    bars = predictors(at)["bl_bars"]
    assert bars["labels"] == [f"P({k})" for k in range(6)] and bars["values"] == [0.0] * 6


def test_binomial_worked_example_through_the_guide():
    at = open_page(BINOMIAL)
    assert "Reproduce the worked example" in [h.value for h in at.header]
    at.button(key="bl_reset").click().run()
    at.number_input(key="bl_p").set_value(0.75).run()
    at.number_input(key="bl_n").set_value(1).run()
    assert [n.label for n in at.number_input][2:] == ["Predict B", "Predict C"]
    at.number_input(key="bl_pred_0").set_value(0.7)
    at.number_input(key="bl_pred_1").set_value(0.3).run()
    assert at.button(key="bl_sum").disabled
    at.button(key="bl_reveal").click().run()
    t = traces(at)  # at the worked example the bars are named as the residual's
    assert t["exact probability"]["x"] == ["r(B)", "r(C)"] and t["exact probability"]["y"] == [0.75, 0.25]
    assert t["exact probability"]["text"] == ["3/4", "1/4"]
    # at the worked example the bars are r(B), r(C): no mean or sd, only the distance from your bars
    assert [m.label for m in at.metric] == ["distance from your bars (TV)"]
    assert metric(at, "distance") == "1/20 (0.05)"  # (|0.7 - 0.75| + |0.3 - 0.25|) / 2
    text = markdown_text(at)
    assert "A has zero residual mass" in text and "this lab does not run speculative sampling itself" in text
    assert "4. Reveal — done" in text and "5. Multiply" in text and "target — done" not in text
    at.text_input(key="bl_zr_B").set_value("3/10")  # Z·r(B) = 2/5 × 3/4
    at.text_input(key="bl_zr_C").set_value("0.1")  # Z·r(C) = 2/5 × 1/4
    at.button(key="bl_products_check").click().run()
    text = markdown_text(at)
    assert "B: 3/10 + Z × 3/4 = 3/10 + 3/10 = **3/5**" in text
    assert "C: 1/5 + Z × 1/4 = 1/5 + 1/10 = **3/10**" in text
    assert any("A 1/10, B 3/5, C 3/10" in s.value for s in at.success)
    stack = charts(at)["bl_worked_chart"]
    assert stack["target p"]["y"] == [0.1, 0.6, 0.3]
    assert stack["Z × displayed bar"]["y"] == pytest.approx([0.0, 0.3, 0.1])
    assert stack["accepted min(p, q)"]["y"] == [0.1, 0.3, 0.2]
    assert at.query_params["lab_p"] == "0.75" and at.query_params["inspect"] == "1"


def test_binomial_reveal_n3_and_change_hides():
    at = open_page(BINOMIAL)
    at.number_input(key="bl_n").set_value(3).run()
    at.button(key="bl_reveal").click().run()
    # Binomial(3, 1/2): 1/8, 3/8, 3/8, 1/8; mean 3/2, sd sqrt(3/4) = 0.866
    assert traces(at)["exact probability"]["y"] == [0.125, 0.375, 0.375, 0.125]
    assert metric(at, "mean") == "3/2 (1.5)" and metric(at, "sd") == "0.866"
    at.number_input(key="bl_p").set_value(0.4).run()
    assert not traces(at)  # hidden again: no chart with the exact bars
    assert any("hidden again" in i.value for i in at.info)


def test_binomial_reset_restores_defaults():
    at = open_page(BINOMIAL)
    at.number_input(key="bl_p").set_value(0.3).run()
    at.number_input(key="bl_n").set_value(2).run()
    at.button(key="bl_reset").click().run()
    assert at.number_input(key="bl_p").value == 0.5 and at.number_input(key="bl_n").value == 5
    assert "1. Start from a clean lab (Reset) — done" in markdown_text(at)


def test_binomial_state_from_url_and_bad_links():
    at = open_page(BINOMIAL, {"lab_p": "3/4", "n": "1", "pred": "0.75,0.25", "inspect": "1"})
    assert at.number_input(key="bl_p").value == 0.75 and at.number_input(key="bl_n").value == 1
    assert traces(at)["exact probability"]["y"] == [0.75, 0.25]
    assert metric(at, "distance") == "0"
    bad = open_page(BINOMIAL, {"lab_p": "2", "n": "40", "pred": "x,0,0,0,0,0"})
    warnings = " ".join(plain(w.value) for w in bad.warning)
    assert (
        "outside [0, 1]" in warnings
        and "outside 1 to 26" in warnings
        and "prediction of 0: 'x' is not a number" in warnings
    )
    assert bad.number_input(key="bl_p").value == 0.5 and bad.number_input(key="bl_n").value == 5


def test_presenting_keeps_present_in_the_url_and_reveals_only_on_the_button():
    at = open_page(EXPLORER, {"present": "1", "reveal": "1", "r": "0,0.75,0.25"})
    assert "exact residual r" not in traces(at)  # no reveal from a link while presenting
    at.button(key="ex_reveal").click().run()
    assert traces(at)["exact residual r"]["y"] == [0.0, 0.75, 0.25]
    assert at.query_params["present"] == "1" and at.query_params["reveal"] == "1"
    lab = open_page(BINOMIAL, {"present": "1", "lab_p": "0.75", "n": "1", "inspect": "1"})
    assert not traces(lab)  # no chart with the exact bars: not revealed by the link
    assert lab.query_params["present"] == "1"


def test_explorer_edits_survive_closing_the_editor_and_go_into_the_link():
    at = open_page(EXPLORER, {"edit": "1"})
    edit_table(at, ex_p_0="0.2", ex_p_1="1/2")  # 1/5 + 1/2 + 3/10 = 1
    at.toggle(key="ex_edit").set_value(False).run()
    assert not at.text_input
    assert traces(at)["target p"]["y"] == [0.2, 0.5, 0.3]
    assert at.query_params["p"] == "1/5,1/2,3/10" and at.query_params["tokens"] == "A,B,C"
    at.toggle(key="ex_edit").set_value(True).run()
    assert at.text_input(key="ex_p_0").value == "0.2" and at.text_input(key="ex_p_1").value == "1/2"


def test_explorer_add_token_at_the_limit_says_why_instead_of_disabling_itself():
    names = [chr(ord("A") + i) for i in range(26)]  # MAX_TOKENS = 26 tokens, p = q = 1/26 each
    even = ",".join(["1/26"] * 26)
    at = open_page(EXPLORER, {"edit": "1", "tokens": ",".join(names), "p": even, "q": even})
    assert not at.button(key="ex_add").disabled  # a button that disabled itself would drop focus to the body
    edit_table(at, "ex_add")
    assert "Add token not applied: the table already has the most tokens, 26." in plain(at.error[0].value)
    assert at.text_input(key="ex_name_25").value == "Z" and "ex_name_26" not in at.session_state
