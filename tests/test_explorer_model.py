"""The explorer's table parsing, URL state and scoring, and the worked example (hand-derived)."""

from fractions import Fraction as F

import pytest

from lab.core.distributions import snap_to_step
from lab.core.formatting import exact_text, markdown_escape, markdown_table, short_label
from lab.core.residual import residual_exact
from lab.models.explorer import (
    MAX_TOKENS,
    ExplorerInputError,
    TokenRow,
    decode_prediction,
    decode_table,
    encode_prediction,
    encode_table,
    next_token_name,
    normalise_column,
    parse_rows,
    reconstruction_rows,
    score_prediction,
    slider_columns,
)
from lab.teaching.worked_example import (
    GuideState,
    bar_names,
    check_products,
    display_values,
    guide_steps,
    lab_result,
    outcome_labels,
    prediction_labels,
    worked_sum,
)

SEED_ROWS = [TokenRow("A", "1/10", "1/2"), TokenRow("B", "0.6", "3/10"), TokenRow("C", "3/10", "0.2")]


def test_rows_parse_fractions_and_decimals_exactly():
    p, q = parse_rows(SEED_ROWS)
    assert p.values == (F(1, 10), F(3, 5), F(3, 10))
    assert q.values == (F(1, 2), F(3, 10), F(1, 5))


@pytest.mark.parametrize(
    "rows, token, words",
    [
        ([TokenRow("A", "x", "1/2"), TokenRow("B", "1", "1/2")], "A", "is not a number"),
        ([TokenRow("A", "1/2", "1/2"), TokenRow("B", "-1/2", "1/2"), TokenRow("C", "1", "0")], "B", "negative"),
        ([TokenRow("A", "1/2", "1/2"), TokenRow("A", "1/2", "1/2")], "A", "more than once"),
        ([TokenRow("A", "1/0", "1")], "A", "divides by zero"),
        ([TokenRow("A", "nan", "1")], "A", "not finite"),
    ],
)
def test_bad_rows_name_the_token_and_the_problem(rows, token, words):
    with pytest.raises(ExplorerInputError) as info:
        parse_rows(rows)
    assert info.value.token == token
    assert f"'{token}'" in str(info.value) and words in str(info.value)


def test_bad_table_shapes():
    with pytest.raises(ExplorerInputError, match="row 2: a token name is empty"):
        parse_rows([TokenRow("A", "1", "1"), TokenRow("  ", "0", "0")])
    with pytest.raises(ExplorerInputError, match="no tokens"):
        parse_rows([])
    with pytest.raises(ExplorerInputError, match="at most 26"):
        parse_rows([TokenRow(f"T{i}", "0", "0") for i in range(MAX_TOKENS + 1)])
    with pytest.raises(ExplorerInputError, match="sum to 11/10"):
        parse_rows([TokenRow("A", "0.6", "1/2"), TokenRow("B", "1/2", "1/2")])


def test_table_round_trips_through_the_url_and_bad_links_are_rejected():
    p, q = parse_rows(SEED_ROWS)
    params = encode_table(p, q)
    assert params == {"tokens": "A,B,C", "p": "1/10,3/5,3/10", "q": "1/2,3/10,1/5"}
    assert parse_rows(decode_table(**params)) == (p, q)
    with pytest.raises(ExplorerInputError, match="2 token names but 3 values"):
        decode_table("A,B", "1/2,1/4,1/4", "1/2,1/2")
    with pytest.raises(ExplorerInputError, match="'B'.*not a number"):
        decode_table("A,B", "1/2,<b>x</b>", "1/2,1/2")


def test_predictions_in_the_url_are_validated():
    assert decode_prediction("0,3/4,0.25", "ABC") == (F(0), F(3, 4), F(1, 4))
    assert encode_prediction([0.0, 0.75, 0.25]) == "0,0.75,0.25"
    with pytest.raises(ExplorerInputError, match=r"r\(B\): 3/2 is outside 0 to 1"):
        decode_prediction("0,1.5,0", "ABC")
    with pytest.raises(ExplorerInputError, match="2 predicted values for 3 tokens"):
        decode_prediction("0,1", "ABC")
    assert snap_to_step(F(1, 3)) == F(33, 100)


def test_score_is_total_variation_distance_with_per_token_errors():
    result = residual_exact(*parse_rows(SEED_ROWS))  # r = (0, 3/4, 1/4), Z = 2/5
    score = score_prediction(result, [0.0, 0.5, 0.5], 0.5)
    assert score.errors == (F(0), F(-1, 4), F(1, 4))
    assert score.tv == F(1, 4)  # (0 + 1/4 + 1/4) / 2
    assert score.z_error == F(1, 10)
    assert score_prediction(result, [0, F(3, 4), F(1, 4)]).tv == 0
    # the farthest possible guess: all mass on A, where r has none
    assert score_prediction(result, [1.0, 0.0, 0.0]).tv == 1


def test_score_refuses_the_no_rejection_branch():
    result = residual_exact(*parse_rows([TokenRow("A", "1/2", "1/2"), TokenRow("B", "1/2", "1/2")]))
    assert result.residual is None
    with pytest.raises(ExplorerInputError, match="Z = 0"):
        score_prediction(result, [0.5, 0.5])


def test_reconstruction_rows_reach_p():
    rows = reconstruction_rows(residual_exact(*parse_rows(SEED_ROWS)))
    assert [r["correction"] for r in rows] == [F(0), F(3, 10), F(1, 10)]
    assert [r["total"] for r in rows] == [F(1, 10), F(3, 5), F(3, 10)]


def test_next_token_name():
    assert next_token_name(["A", "B"]) == "C"
    assert next_token_name(["B"]) == "A"
    assert next_token_name([chr(c) for c in range(65, 91)]) == "T27"


def test_text_helpers():
    # a link, an image and HTML come out as literal characters, each markdown character escaped
    assert markdown_escape("[x](http://e)") == r"\[x\]\(http\://e\)"
    assert markdown_escape("![i](u) <b>*a*</b>") == r"\!\[i\]\(u\) \<b\>\*a\*\</b\>"
    # 1/3**19 = 1/1162261467 is too long for a bar label: 8.6037e-10 to 3 digits
    assert short_label(F(3, 4)) == "3/4" and short_label(F(1, 3**19)) == "8.6e-10"
    assert exact_text(F(1, 10**50)) == "1-digit / 51-digit fraction"
    # a table: a pipe in a cell is escaped (it would end the cell), a line break becomes a space
    assert markdown_table(("token", "p"), [("a|b", "1/2"), ("*x*\ny", 0.5)]) == (
        "| token | p |\n| --- | --- |\n| a\\|b | 1/2 |\n| \\*x\\* y | 0\\.5 |"
    )


def test_lab_bars_b_then_c_and_labels():
    result = lab_result(0.75, 1)
    assert display_values(result) == (F(3, 4), F(1, 4))
    assert outcome_labels(1) == ("B", "C") and prediction_labels(1) == ("Predict B", "Predict C")
    assert outcome_labels(3) == ("0", "1", "2", "3")
    assert display_values(lab_result(0.5, 3)) == (F(1, 8), F(3, 8), F(3, 8), F(1, 8))


def test_seed_worked_sum_recovers_the_target():
    worked = worked_sum({"B": F(3, 4), "C": F(1, 4)})
    assert worked.z == F(2, 5)
    assert [(r.token, r.accepted, r.correction, r.total) for r in worked.rows] == [
        ("A", F(1, 10), F(0), F(1, 10)),
        ("B", F(3, 10), F(3, 10), F(3, 5)),
        ("C", F(1, 5), F(1, 10), F(3, 10)),
    ]
    assert worked.recovers_target and not worked.rows[0].in_display
    assert not worked_sum({"B": F(1, 2), "C": F(1, 2)}).recovers_target


def test_guide_steps_follow_the_state_in_any_order():
    z = F(2, 5)

    def done(clean, lab_p, n, predicted, revealed, typed, summed):
        return [s.done for s in guide_steps(GuideState(clean, lab_p, n, predicted, revealed, typed, summed), z)]

    assert done(False, 0.75, 1, True, True, True, True) == [False, True, True, True, True, True]
    assert done(True, 0.5, 10, False, False, False, False) == [True, False, False, False, False, False]
    assert done(True, 0.75, 1, True, False, False, False) == [True, True, True, False, False, False]
    assert done(True, 0.75, 1, False, True, False, False) == [True, True, False, True, False, False]  # no gating
    assert done(True, 0.7, 1, True, True, False, False) == [True, False, True, False, False, False]
    assert all(done(True, 0.75, 1, True, True, True, True))
    steps = guide_steps(GuideState(True, 0.5, 5, False, False, False, False), z)
    assert [s.missing for s in steps[1:4]] == [
        "set lab success p to 0.75 and set n to 1",
        "set n to 1 first",
        "set lab success p to 0.75 and set n to 1, then press Reveal",
    ]
    assert "Z = 2/5" in steps[4].text and "Z·r(B) and Z·r(C)" in steps[4].text


def test_typed_products_are_checked_exactly_and_name_no_answer():
    worked = worked_sum({"B": F(3, 4), "C": F(1, 4)})  # Z·r(B) = 2/5 · 3/4 = 3/10, Z·r(C) = 2/5 · 1/4 = 1/10
    for b, c in (("3/10", "1/10"), ("0.3", "0.10"), ("30%", ".1"), (" 6/20 ", "1e-1")):
        assert check_products({"B": b, "C": c}, worked).right, (b, c)
    wrong = check_products({"B": "0.31", "C": ""}, worked)
    assert not wrong.right and len(wrong.messages) == 2
    assert wrong.messages[0].startswith("Z·r(B): '0.31' is not Z × r(B)") and "3/10" not in wrong.messages[0]
    assert wrong.messages[1] == "Z·r(C): type a value"
    assert "not a number" in check_products({"B": "abc", "C": "1/10"}, worked).messages[0]
    assert bar_names(0.75, 1) == ("r(B)", "r(C)") and bar_names(0.7, 1) == ("B", "C") and bar_names(0.75, 2)[0] == "0"


def test_normalise_column_divides_by_the_sum_exactly_and_keeps_the_rest_as_typed():
    rows = [TokenRow("A", "1", "0.5"), TokenRow("B", "2", "1/2"), TokenRow("C", "0.5", "0")]
    assert normalise_column(rows, "p") == [  # 1 + 2 + 1/2 = 7/2: 2/7, 4/7, 1/7
        TokenRow("A", "2/7", "0.5"),
        TokenRow("B", "4/7", "1/2"),
        TokenRow("C", "1/7", "0"),
    ]
    assert [r.q for r in normalise_column(rows, "q")] == ["1/2", "1/2", "0"]  # already 1: the values as fractions
    or_q = normalise_column([TokenRow("A", "1/2", "3"), TokenRow("B", "1/2", "1")], "q")
    assert [r.q for r in or_q] == ["3/4", "1/4"]
    with pytest.raises(ExplorerInputError, match="'B'"):
        normalise_column([TokenRow("A", "1", "1"), TokenRow("B", "-1", "1")], "p")
    with pytest.raises(ExplorerInputError, match="every value is zero"):
        normalise_column([TokenRow("A", "0", "1")], "p")
    with pytest.raises(ExplorerInputError, match="row 2"):
        normalise_column([TokenRow("A", "1", "1"), TokenRow("", "1", "1")], "p")


@pytest.mark.parametrize(
    ("count", "per_row"), [(1, 1), (2, 2), (3, 3), (4, 2), (5, 3), (6, 3), (7, 3), (8, 2), (9, 3), (26, 2)]
)
def test_prediction_sliders_fill_even_rows(count, per_row):
    assert slider_columns(count) == per_row


def test_typed_rows_become_p_and_q_and_an_old_answer_is_hidden_again():
    from lab.models.explorer import ANSWER_HIDDEN_AGAIN, ExplorerModel, TokenRow

    model = ExplorerModel()
    model.preds = [0.25] * len(model.rows)
    model.reveal()
    assert model.is_revealed and model.hide_answer_if_changed() == ""  # the same p and q: nothing to hide
    # two tokens typed by hand: p = (1/2, 1/2), q = (1/4, 3/4); the predictions keep their first two values
    refused = model.use_typed_rows([TokenRow("x", "1/2", "1/4"), TokenRow("y", "0.5", "3/4")])
    assert refused == ""
    assert model.valid[0].values == (F(1, 2), F(1, 2)) and model.valid[1].values == (F(1, 4), F(3, 4))
    assert model.preds == [0.25, 0.25]
    assert model.hide_answer_if_changed() == ANSWER_HIDDEN_AGAIN and model.revealed is None and not model.is_revealed
    assert model.hide_answer_if_changed() == ""  # said once
    # a table that does not parse names its token; the last valid p and q stay, the typed text is kept
    refused = model.use_typed_rows([TokenRow("x", "1/2", "1/4"), TokenRow("y", "abc", "3/4")])
    assert refused.startswith("Not applied: ") and "y" in refused and "abc" in refused
    assert refused.endswith("The last valid p and q stay on screen.")
    assert model.valid[0].values == (F(1, 2), F(1, 2)) and model.rows[1].p == "abc"
    # three tokens: one more prediction, at 0
    assert (
        model.use_typed_rows([TokenRow("x", "1/2", "1/4"), TokenRow("y", "1/4", "1/2"), TokenRow("z", "1/4", "1/4")])
        == ""
    )
    assert model.preds == [0.25, 0.25, 0.0]
    assert model.set_predictions([0.25, 0.25, 0.0], 0.0) is False and model.set_predictions([0.5, 0.25, 0.0], 0.0)


def test_a_press_of_the_table_form_removes_normalises_and_adds():
    from lab.models.explorer import MAX_TOKENS, ExplorerModel, TokenRow

    model = ExplorerModel()
    rows = [TokenRow("A", "1", "2"), TokenRow("B", "2", "1"), TokenRow("C", "1", "1")]
    # remove B, then normalise p exactly: (1, 1) / 2 = (1/2, 1/2); q stays as typed
    assert model.submit_table(rows, {1}, "normalise-p") == ""
    assert [(r.name, r.p, r.q) for r in model.rows] == [("A", "1/2", "2"), ("C", "1/2", "1")]
    # every row ticked: one row always stays; add puts a new token at p = q = 0
    assert model.submit_table(rows, {0, 1, 2}, "add") == ""
    assert [(r.name, r.p, r.q) for r in model.rows][0] == ("A", "1", "2") and len(model.rows) == 2
    assert (model.rows[1].p, model.rows[1].q) == ("0", "0") and model.rows[1].name not in ("A",)
    # at the limit, add says why and keeps the table
    full = [TokenRow(f"t{i}", "0", "0") for i in range(MAX_TOKENS)]
    assert model.submit_table(full, set(), "add").startswith("Add token not applied")
    assert len(model.rows) == MAX_TOKENS
    # a column that cannot be normalised (it sums to 0) is named, and the typed table stays
    problem = model.submit_table([TokenRow("A", "0", "1"), TokenRow("B", "0", "1")], set(), "normalise-p")
    assert problem.startswith("Normalise p not applied: ") and [r.p for r in model.rows] == ["0", "0"]
