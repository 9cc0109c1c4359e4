"""AppTest for the Numerics and Pitfalls pages."""

from __future__ import annotations

import numpy as np
import pytest
from pagetest import chart_traces, markdown_text, open_expander, open_linked_page, plain

NUMERICS = "lab/views/pages/numerics.py"
PITFALLS = "lab/views/pages/pitfalls.py"


def open_page(page: str):
    return open_linked_page(page, timeout=60)


# --- Numerics -------------------------------------------------------------------------------------------


def table_rows(at, header_start: str) -> list[list[str]]:
    """The rows of the markdown table whose header begins with ``header_start`` (escapes removed)."""
    shown = [m.value.replace("\\", "") for m in at.markdown]
    text = next(t for t in shown if header_start in t)
    lines = [line for line in text.split("\n") if line.startswith("|")]
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    body = []
    for line in lines[start + 2 :]:
        body.append([cell.strip() for cell in line.strip("| ").split(" | ")])
    return body


def test_numerics_page_renders_table_chart_and_branches():
    at = open_page(NUMERICS)
    rows = table_rows(at, "| gap = exact Z | float64 Z |")
    assert [row[0] for row in rows] == [f"1e-{k}" for k in range(6, 17)]
    float32 = table_rows(at, "| gap = exact Z | float32 Z |")
    assert [row[1] for row in float32][2:] == ["0 (branch lost)"] * 9  # from gap 1e-8 on
    traces = chart_traces(at)
    # float32 keeps 24 bits: from gap 1e-8 its Z rounds to 0 (argument in tests/test_numerics.py)
    lost = traces["float32: float Z = 0, branch lost"]["x"]
    assert lost == pytest.approx([10.0**-k for k in range(8, 17)])
    assert sorted(traces["float32 error of r"]["x"]) == pytest.approx([1e-7, 1e-6])
    assert all(y > 1e-3 for y in traces["float32 error of r"]["y"])
    warnings = " ".join(w.value for w in at.warning)
    assert "p-rounded-up" in warnings and "q-rounded-up" in warnings
    assert any("same-floats" in s.value for s in at.success)
    text = " ".join(m.value for m in at.markdown)
    assert "residual_rtol" in text and "no tolerance" in text


def test_numerics_lecture_order_one_table_of_findings_and_build_details_apart():
    at = open_page(NUMERICS)
    headings = [h.value for h in at.header]
    assert headings[0].startswith("Processed distributions")  # what an ML lecturer shows first
    assert headings.index("dtype, backend and the stated tolerance") == len(headings) - 1
    # the nine float32 gaps whose branch is lost are nine rows of one table, the finding explained once
    findings = table_rows(at, "| gap = exact Z | dtype | float Z |")
    lost = "rejection lost: rounding the inputs closed the gap"
    assert [(row[0], row[1], row[4]) for row in findings] == [
        ("1e-8", "float32", lost + "; the test rejects while Z = 0"),
        *((f"1e-{k}", "float32", lost) for k in range(9, 17)),
    ]
    text = "\n".join(m.value.replace("\\", "") for m in at.markdown)
    assert text.count("rejection lost: rounding the inputs closed the gap —") == 1
    assert not any(m.value.startswith("- gap") for m in at.markdown)
    build = next(e for e in at.expander if e.label.startswith("Build details"))
    assert "byteorder" in " ".join(m.value for m in build.markdown) or "byte" in " ".join(
        m.value for m in build.markdown
    )
    assert not at.dataframe  # wide data frames cut their columns off at 1280 px and on a phone: tables wrap


def test_numerics_gap_slider_changes_the_family():
    at = open_page(NUMERICS)
    at.slider(key="numerics_gaps").set_value((6, 7)).run()
    assert not at.exception
    assert [row[0] for row in table_rows(at, "| gap = exact Z | float64 Z |")] == ["1e-6", "1e-7"]


def test_numerics_processing_defaults_and_mismatch():
    at = open_page(NUMERICS)
    traces = chart_traces(at)
    # target logits A=2, B=1, C=0.5, D=-1 with top-2: p' = softmax(2, 1) on A, B = (e/(e+1), 1/(e+1), 0, 0)
    e = np.e
    assert traces["processed target p'"]["y"] == pytest.approx([e / (e + 1), 1 / (e + 1), 0, 0], abs=1e-12)
    correct = traces["propose q′, check q′ (correct)"]["y"]
    assert correct == pytest.approx(traces["target p′"]["y"], abs=1e-12)
    mismatch = traces["propose q′, check q (unprocessed-draft)"]["y"]
    assert max(abs(a - b) for a, b in zip(mismatch, traces["target p′"]["y"])) > 0.01


def test_numerics_processed_table_holds_the_processed_target():
    at = open_page(NUMERICS)
    shown = [m.value.replace("\\", "") for m in at.markdown]  # the page's Markdown escapes removed
    table = next(text for text in shown if text.startswith("| token | p′ (target, processed) |"))
    rows = [line.strip("| ").split(" | ") for line in table.split("\n")[2:]]
    e = np.e  # default target logits A=2, B=1, C=0.5, D=-1 with top-2: p' = (e/(e+1), 1/(e+1), 0, 0)
    assert [row[0] for row in rows] == ["A", "B", "C", "D"]
    assert [float(row[1]) for row in rows] == pytest.approx([e / (e + 1), 1 / (e + 1), 0, 0], rel=1e-5)


def test_numerics_bad_logits_keep_the_last_valid_state():
    at = open_page(NUMERICS)
    before = chart_traces(at)["processed target p'"]["y"]
    at.text_input(key="numerics_target_logits").set_value("A=2, B=oops, C=0, D=1").run()
    assert not at.exception
    assert any("'B'" in e.value and "not a number" in e.value for e in at.error)
    assert chart_traces(at)["processed target p'"]["y"] == before


def test_numerics_temperature_zero_is_greedy():
    at = open_page(NUMERICS)
    at.number_input(key="numerics_temperature").set_value(0.0).run()
    assert not at.exception
    assert chart_traces(at)["processed target p'"]["y"] == [1.0, 0.0, 0.0, 0.0]


# --- Pitfalls -------------------------------------------------------------------------------------------


def test_pitfalls_predict_then_reveal_grades_the_guess():
    at = open_page(PITFALLS)
    assert any("Make your guesses" in i.value for i in at.info)
    assert len(at.get("plotly_chart")) == 0 and not at.dataframe  # the spoilers are drawn once opened
    choice = "bernoulli-residual::1::1::resample-from-p"
    at.radio(key=f"pit_guess_biased::{choice}").set_value("yes, biased").run()
    at.selectbox(key=f"pit_guess_gain::{choice}").set_value("A").run()
    at.button(key="pit_reveal").click().run()
    assert not at.exception
    # a sentence per graded answer, in plain words (not "2/2 — Biased? right")
    assert [plain(s.value) for s in at.success] == [
        "Both answers right. You said biased: right, its law is 3/50 away from the target's in total variation. "
        "You said A gains mass: right, it does."
    ]
    # resample-from-p on the worked example, by hand: (7/50, 27/50, 8/25), TV 3/50
    table = at.dataframe[0].value
    assert list(table["resample-from-p"]) == ["7/50 (0.14)", "27/50 (0.54)", "8/25 (0.32)"]
    assert any(m.value == "3/50" for m in at.metric)
    # the spoiler of this choice: every variant's exact distance, drawn once its expander is open
    open_expander(at, "pit_every")
    spoiler = at.dataframe[-1].value
    rows = dict(zip(spoiler["variant"], spoiler["TV distance"]))
    assert rows["correct"] == "0" and rows["resample-from-p"] == "3/50 (0.06)"
    assert len(at.get("plotly_chart")) == 2  # the revealed law and the spoiler's distances


def test_pitfalls_says_when_a_mistake_is_harmless_only_after_the_reveal():
    """When a mistake is harmless says why it is biased elsewhere: it is the answer to the guess, not its preamble."""
    from lab.teaching.pitfalls import CARDS

    at = open_page(PITFALLS)
    harmless = CARDS["resample-from-p"].harmless_when
    assert harmless not in markdown_text(at) and "When it is harmless" not in markdown_text(at)
    at.button(key="pit_reveal").click().run()
    assert "**When it is harmless:** " + harmless in markdown_text(at)


def test_pitfalls_wording_matches_each_cards_evidence():
    at = open_page(PITFALLS)
    subtitle = plain(at.caption[0].value)
    assert "have shipped" not in subtitle and "(Fractions)" not in subtitle and "exact fractions" in subtitle
    assert "the others are easy to make, with no report cited" in subtitle
    # resample-from-p (the first card) cites no report; zero-out-rejected cites one
    assert "no report is cited for this one" in plain(markdown_text(at))
    at.selectbox(key="pit_variant").set_value("zero-out-rejected").run()
    text = plain(markdown_text(at))
    assert "Reported publicly:** SafeAILab/EAGLE" in text and "no report is cited" not in text


def test_pitfalls_wrong_guess_is_graded_wrong():
    at = open_page(PITFALLS)
    at.selectbox(key="pit_variant").set_value("zero-out-rejected").run()
    choice = "bernoulli-residual::1::1::zero-out-rejected"
    at.radio(key=f"pit_guess_biased::{choice}").set_value("no, exact").run()
    at.selectbox(key=f"pit_guess_gain::{choice}").set_value("A").run()
    at.button(key="pit_reveal").click().run()
    # zero-out-rejected gives (1/10, 17/30, 1/3): biased, C gains; A does not
    assert [plain(w.value) for w in at.warning] == [
        "Neither answer right yet. You said exact: not quite, its law is 1/30 away from the target's in total "
        "variation. You said A gains mass: not quite, it does not; C gains the most."
    ]


def test_pitfalls_model_change_resets_block_and_length():
    at = open_page(PITFALLS)
    at.selectbox(key="pit_model").set_value("markov-three").run()
    assert not at.exception
    assert (at.number_input(key="pit_block").value, at.number_input(key="pit_length").value) == (2, 2)


def test_pitfalls_too_long_keeps_the_last_valid_state():
    at = open_page(PITFALLS)
    at.selectbox(key="pit_model").set_value("eight-words").run()
    at.number_input(key="pit_length").set_value(8).run()
    assert not at.exception
    assert any("too many" in e.value for e in at.error)
    # the last valid choice (eight-words, one step) stays on screen
    assert any("K = 1, L = 1 · outcomes: 8 tokens" in c.value for c in at.caption)


def test_pitfalls_single_step_view_of_the_worked_example():
    at = open_page(PITFALLS)
    assert not at.dataframe
    open_expander(at, "pit_every_step")
    table = at.dataframe[-1].value
    rows = dict(zip(table["variant"], table["TV distance"]))
    # hand-derived in tests/test_pitfalls.py
    assert rows["correct"] == "0"
    assert rows["epsilon-floor"].startswith("2/2005")
    assert rows["zero-out-rejected"].startswith("1/30")
    assert rows["keep-testing-after-rejection"] == "0"
    at.selectbox(key="pit_step_scenario").set_value("one-hot-draft").run()
    rows = dict(zip(at.dataframe[-1].value["variant"], at.dataframe[-1].value["TV distance"]))
    assert rows["zero-out-rejected"] == "0"  # exact when q is one-hot


def test_pitfalls_largest_exact_choice_and_the_named_limit():
    # eight-words at K = 8: L = 4 lists all 8^4 = 4,096 sequences (the epsilon floor reaches every one);
    # L = 5 would list 8^5 = 32,768, above the limit: the page names it and keeps the L = 4 laws.
    at = open_page(PITFALLS)
    at.selectbox(key="pit_model").set_value("eight-words").run()
    at.number_input(key="pit_block").set_value(8).run()
    at.number_input(key="pit_length").set_value(4).run()
    assert not at.exception and not at.error
    assert any("K = 8, L = 4 · outcomes: 4096 sequences" in c.value for c in at.caption)
    at.number_input(key="pit_length").set_value(5).run()
    assert not at.exception
    (message,) = [plain(e.value) for e in at.error]
    assert "32,768 sequences, too many for an exact law (limit 4,096" in message
    assert message.endswith("Showing the last valid choice.")
    assert any("K = 8, L = 4 · outcomes: 4096 sequences" in c.value for c in at.caption)


# --- several candidates ---------------------------------------------------------------------------------


def test_several_candidates_predict_then_reveal():
    """The mistakes of several drafts: nothing of the law before the reveal; then the exact law on the example
    (hand-derived in tests/test_drafts.py: no-update gives (7/50, 27/50, 8/25), TV 3/50), graded."""
    at = open_page(PITFALLS)
    assert "Several candidates and token trees" in [h.value for h in at.header]
    at.selectbox(key="pit_draft_variant").set_value("no-update").run()
    assert not any("no-update law" in d.value.columns for d in at.dataframe)
    assert "27/50" not in markdown_text(at) and "When it is harmless" not in markdown_text(at)
    at.radio(key="pit_draft_guess::no-update").set_value("yes, biased").run()
    at.button(key="pit_draft_reveal").click().run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "no-update law" in d.value.columns)
    assert list(table["no-update law"]) == ["7/50 (0.14)", "27/50 (0.54)", "8/25 (0.32)"]
    assert any("Right: it is biased here." in s.value for s in at.success)
    assert "3/50 (0.06)" in markdown_text(at) and "When it is harmless" in markdown_text(at)


def test_several_candidates_rules_table_shows_the_best_acceptance():
    at = open_expander(open_page(PITFALLS), "pit_rules")
    rows = next(d.value for d in at.dataframe if "best any verifier can do" in d.value.columns)
    # hand-derived: 4/5, 47/50, 7/10 kept; best 17/20 with two independent drafts, p(C) = 7/10 for the top 2
    assert list(rows["a candidate is kept"]) == ["4/5 (0.8)", "47/50 (0.94)", "7/10 (0.7)"]
    best = list(rows["best any verifier can do"])
    assert best[0] == "17/20 (0.85)" and best[2] == "7/10 (0.7)"

