"""AppTest for the Sampling lab's "different text, same law" section: predict, run both samplers from one seed,
the texts side by side, the share that match, a chi-square for each side, the graded prediction."""

from __future__ import annotations

from pagetest import charts, markdown_text, metrics, open_linked_page, plain

from lab.core.compare import compare_ordinary
from lab.core.markov import load_model

SAMPLING = "lab/views/pages/sampling.py"


def guess_key(params):
    return "sl_cmp_guess::" + "::".join(map(str, params))


def test_predict_then_run_both_samplers():
    at = open_linked_page(SAMPLING, {"sl_cmp_n": "1000", "sl_seed": "4"}, timeout=60)
    assert not any("identical texts" in label for label in metrics(at))  # nothing before the run
    key = guess_key(("markov-sentences-end", 3, 6, 1000, 4))
    at.radio(key=key).set_value("same-law").run()
    at.button(key="sl_cmp_run").click().run()
    assert not at.exception
    expected = compare_ordinary(load_model("markov-sentences-end"), 3, 6, 1000, 4)
    shown = metrics(at)
    assert shown["identical texts"] == f"{expected.identical_share:.1%}"
    assert shown["ordinary: chi-square p-value"] == f"{expected.fit_ordinary.p_value:.3g}"
    assert shown["speculative: chi-square p-value"] == f"{expected.fit_speculative.p_value:.3g}"
    assert float(shown["ordinary: chi-square p-value"]) > 0.001
    assert float(shown["speculative: chi-square p-value"]) > 0.001
    assert any(plain(s.value).startswith("Right: ") and "distance 0" in s.value for s in at.success)
    raw = markdown_text(at)
    assert "\\<end\\>" in raw and "\\\\" not in raw  # each name escaped once: shown as typed
    text = plain(raw)
    assert "the law is preserved, the text is not" in text
    first = expected.ordinary_first[0], expected.speculative_first[0]
    model = load_model("markov-sentences-end")
    assert f"| 1 | {model.sequence_text(first[0])} | {model.sequence_text(first[1])} |" in text
    assert "the cat sat down <end>" in charts(at)["sl_cmp_chart"]["exact law"]["alt"]


def test_a_wrong_prediction_and_a_changed_control_hide_the_results():
    at = open_linked_page(SAMPLING, {"sl_cmp_n": "500", "sl_cmp_model": "markov-ab-end"}, timeout=60)
    key = guess_key(("markov-ab-end", 3, 6, 500, 1))
    at.radio(key=key).set_value("same-text").run()
    at.button(key="sl_cmp_run").click().run()
    assert any(plain(w.value).startswith("Not quite:") and "spend them differently" in w.value for w in at.warning)
    at.number_input(key="sl_cmp_k").set_value(2).run()
    assert not any("identical texts" in label for label in metrics(at))


def test_bad_link_values_are_named_and_refused():
    at = open_linked_page(SAMPLING, {"sl_cmp_n": "999999", "sl_cmp_model": "../etc"}, timeout=60)
    warnings = " ".join(w.value for w in at.warning)
    assert "Outputs per sampler" in warnings and "Model" in warnings
    assert at.number_input(key="sl_cmp_n").value == 2000
    assert at.selectbox(key="sl_cmp_model").value == "markov-sentences-end"
