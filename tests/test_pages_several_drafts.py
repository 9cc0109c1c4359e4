"""AppTest for the Several drafts page: the hand case revealed, nothing given away before Reveal, typed p and q and
links refused by name, the tree stepped through and its exact law."""

from __future__ import annotations

from fractions import Fraction as F

from pagetest import markdown_text, open_linked_page, plain

PAGE = "lab/views/pages/several_drafts.py"


def open_page(params: dict[str, str] | None = None):
    return open_linked_page(PAGE, params, timeout=60)


def set_bars(at, values) -> None:
    for i, v in enumerate(values):
        at.slider(key=f"sd_pred_{i}").set_value(v)


def test_the_hand_case_revealed_exactly():
    """p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5), two drafts with replacement. By hand: min(p, q) = (1/10, 3/10,
    1/5), so the first candidate is kept with α = 3/5 and rejected with Z = 2/5; max(0, p - q) = (0, 3/10, 1/10),
    so p₂ = (0, 3/4, 1/4). The second is kept with Σ min(p₂, q) = 3/10 + 1/5 = 1/2: acceptance 3/5 + 2/5 · 1/2 =
    4/5. The correction, reached with 1/5, draws from max(0, p₂ - q)/Z₂ = (0, 9/20, 1/20)/(1/2) = (0, 9/10, 1/10)."""
    at = open_page()
    set_bars(at, (0.0, 0.75, 0.25))
    at.number_input(key="sd_pred_acc").set_value(0.8)
    at.run()
    at.button(key="sd_reveal").click().run()
    assert not at.exception
    assert [plain(s.value) for s in at.success] == [
        "Right: p₂ = (A 0, B 3/4, C 1/4). Right: a candidate is kept with probability 4/5 (0.8) (you said 0.80)."
    ]
    text = plain(markdown_text(at))
    assert "| candidate 2 | 2/5 | 0 | 3/4 | 1/4 |" in text
    assert "| correction | 1/5 | 0 | 9/10 | 1/10 |" in text
    # kept at candidate 2: 2/5 · min(p₂, q) = 2/5 · (0, 3/10, 1/5) = (0, 3/25, 2/25); correction 1/5 · (0, 9/10, 1/10)
    assert "| B | 3/10 | 3/25 | 9/50 | 3/5 |" in text
    assert "gives **p exactly**" in text
    assert "17/20 (0.85)" in text  # the best with two independent drafts: p(A) + 1 - q(A)² = 1/10 + 3/4
    at.button(key="sd_step").click().run()  # another run after the reveal: the graded prediction stays
    assert [plain(s.value) for s in at.success][0].startswith("Right: p₂ = (A 0, B 3/4, C 1/4). Right:")


def test_nothing_is_given_away_before_reveal():
    at = open_page()
    text = markdown_text(at) + " ".join(str(c.proto.spec) for c in at.get("plotly_chart"))
    for spoiler in ("B 3/4", "pᵢ(", "17/20", "| candidate 2 |", "| correction |", "4/5 (0.8)"):
        assert spoiler not in text, spoiler
    assert not any("kept at candidate" in str(c.proto.spec) for c in at.get("plotly_chart"))


def test_a_wrong_prediction_is_graded():
    at = open_page()
    set_bars(at, (0.1, 0.6, 0.3))  # p itself: the second candidate tested against p (the mistake)
    at.number_input(key="sd_pred_acc").set_value(0.6)
    at.run()
    at.button(key="sd_reveal").click().run()
    assert [plain(w.value) for w in at.warning] == [
        "Not quite: p₂ = (A 0, B 3/4, C 1/4). Not quite: a candidate is kept with probability 4/5 (0.8) (you said "
        "0.60)."
    ]


def test_typed_p_and_q_and_their_refusals():
    at = open_page({"sd_p": "x=1/2,y=1/2", "sd_q": "x=1,y=0", "sd_k": "3", "sd_rule": "top-k"})
    assert not at.exception and not at.error
    at.button(key="sd_reveal").click().run()
    text = plain(markdown_text(at))
    # top-k over two tokens with K = 3: refused by name, nothing else lost
    assert any("above the vocabulary" in plain(e.value) for e in at.error), [e.value for e in at.error]
    at.number_input(key="sd_k").set_value(2).run()
    at.button(key="sd_reveal").click().run()
    text = plain(markdown_text(at))
    # top 2 of q = (x, y): x kept with p(x) = 1/2; then p without x = (0, 1): y kept surely. No correction.
    assert "| candidate 2 | 1/2 | 0 | 1 |" in text
    at.text_input(key="sd_p").set_value("x=1/2,y=1/3").run()
    assert any("sum to 5/6" in plain(e.value) and "last valid" in plain(e.value) for e in at.error)
    at.text_input(key="sd_p").set_value("").run()
    assert any("target p: the box is empty" in plain(e.value) for e in at.error)


def test_hostile_link_values_are_named():
    at = open_page({"sd_k": "9", "sd_rule": "beam", "sd_widths": "9,9"})
    warnings = " ".join(plain(w.value) for w in at.warning)
    assert "Candidates K" in warnings and "Rule" in warnings and "Tree widths" in warnings
    assert not at.exception


def test_the_tree_stepped_through_and_its_exact_law():
    at = open_page({"sd_tree_model": "markov-three", "sd_widths": "2,2", "sd_seed": "1"})
    text = plain(markdown_text(at))
    assert "(not tested)" in text and "Committed:" not in text
    for _ in range(8):
        at.button(key="sd_step").click().run()
    text = plain(markdown_text(at))
    assert "Committed: **" in text and "not tested" in text  # the siblings after a kept one stay untested
    # the exact law of 3 tokens equals the target's: markov-three's P(x y x) = 1/2 · 3/4 · 2/5 = 3/20
    assert "| x y x | 3/20 | 3/20 |" in text and "distance **0**" in text
    assert F(1, 2) * F(3, 4) * F(2, 5) == F(3, 20)
