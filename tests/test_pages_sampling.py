"""AppTest for the Sampling lab and Blocks pages: controls (and their URL parameters), the Run and
Step buttons, and the displayed figures against hand-derived values."""

from __future__ import annotations

import itertools
import re

import pytest
from pagetest import chart_traces, markdown_text, metrics, open_linked_page, plain

from lab.core.blocks import run_block
from lab.core.markov import START, all_model_names, load_model
from lab.core.sampling import make_streams
from lab.models.blocks import BlocksModel

SAMPLING = "lab/views/pages/sampling.py"
BLOCKS = "lab/views/pages/blocks.py"


def open_page(page: str, params: dict[str, str] | None = None):
    return open_linked_page(page, params, timeout=60)


# --- Sampling lab -------------------------------------------------------------------------------


def test_sampling_results_wait_for_run():
    at = open_page(SAMPLING)
    assert not at.metric and not at.get("plotly_chart")  # predict first: nothing shown yet
    table = next(m.value.replace("\\", "") for m in at.markdown if m.value.startswith("| token | target p |"))
    rows = [line.strip("| ").split(" | ") for line in table.split("\n")[2:]]
    # the worked example: p = (1/10, 3/5, 3/10); Z·r = max(0, p − q) = (0, 3/10, 1/10) gives q = (1/2, 3/10, 1/5)
    assert rows == [["A", "1/10", "1/2"], ["B", "3/5", "3/10"], ["C", "3/10", "1/5"]]
    at.slider(key="sl_guess").set_value(0.4).run()
    at.button(key="sl_run").click().run()
    assert not at.exception
    shown = metrics(at)
    assert shown["your guess"] == "0.40"
    assert shown["exact Z"] == "2/5 (0.4)"  # worked example: Z = 3/10 + 1/10
    share = float(shown["corrected share"])
    assert abs(share - 0.4) < 0.03  # 10,000 steps: sd 0.005, band 6 sigma
    traces = chart_traces(at)
    assert traces["target p"]["y"] == pytest.approx([0.1, 0.6, 0.3])


def test_sampling_convergence_is_a_median_curve_with_its_guide_and_your_run():
    at = open_page(SAMPLING)
    at.button(key="sl_run").click().run()
    assert not at.exception
    traces = chart_traces(at)
    curve = traces["median distance over seeded runs"]
    assert curve["x"] == [100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000]  # today: 100, 1000, 10000
    assert all(a > b for a, b in zip(curve["y"], curve["y"][1:]))  # it falls at every N
    guide = traces["c / √N"]["y"]
    assert guide[0] / guide[-1] == pytest.approx(3000**0.5)  # 3000 times the steps: 1/√3000 of the distance
    assert traces["your run"]["x"] == [10_000]
    chart = next(c for c in at.get("plotly_chart") if "your run" in c.proto.spec)
    assert "over 31 seeded runs" in chart.proto.alt and "N = 300,000" in chart.proto.alt


def test_sampling_stale_results_are_hidden():
    at = open_page(SAMPLING)
    at.button(key="sl_run").click().run()
    assert at.metric
    at.number_input(key="sl_steps").set_value(20_000).run()
    assert not at.metric
    assert any("changed" in i.value for i in at.info)


def test_sampling_controls_from_the_url():
    at = open_page(SAMPLING, {"sl_scenario": "disjoint-support", "sl_steps": "5000", "sl_seed": "9"})
    assert at.selectbox(key="sl_scenario").value == "disjoint-support"
    assert at.number_input(key="sl_steps").value == 5000
    at.button(key="sl_run").click().run()
    shown = metrics(at)
    assert shown["exact Z"] == "1"  # disjoint supports: every proposal is rejected
    assert float(shown["corrected share"]) == 1.0


def test_sampling_equal_distributions_never_correct():
    at = open_page(SAMPLING, {"sl_scenario": "equal-distributions"})
    at.button(key="sl_run").click().run()
    shown = metrics(at)
    assert shown["exact Z"] == "0" and float(shown["corrected share"]) == 0.0
    assert "no step is ever rejected" in markdown_text(at)


def test_sampling_bad_url_value_is_ignored():
    at = open_page(SAMPLING, {"sl_steps": "lots", "sl_scenario": "no-such-scenario"})
    assert at.number_input(key="sl_steps").value == 10_000
    assert at.selectbox(key="sl_scenario").value == "bernoulli-residual"


# --- Blocks -------------------------------------------------------------------------------------


def test_blocks_exact_law_distance_zero():
    at = open_page(BLOCKS)
    assert metrics(at)["total variation distance"] == "0"
    law = at.dataframe[-1].value
    assert list(law["target"]) == list(law["speculative"])
    # markov-three: P(x y z) = 1/2 * 3/4 * 1/5 = 3/40
    assert law.loc[law["sequence"] == "x y z", "target"].item() == "3/40"


def shows_every_part(model, seed: int) -> bool:
    """The first block (K = 3) keeps a draft, rejects one (with its replacement) and discards one."""
    statuses = [t.status for t in run_block(model, 3, START, make_streams(seed)).tests]
    return {"accepted", "rejected", "discarded"} <= set(statuses)


def test_blocks_default_seed_is_the_first_whose_block_shows_a_rejection_and_its_replacement():
    model = load_model(BlocksModel().model)
    first = next(seed for seed in itertools.count() if shows_every_part(model, seed))
    assert BlocksModel().seed == first != 1  # seed 1's block keeps all three drafts
    at = open_page(BLOCKS)
    assert at.number_input(key="bk_seed").value == first
    at.button(key="bk_all").click().run()
    text = markdown_text(at)
    assert "**kept**" in text and "**rejected**; the replacement" in text and "is discarded" in text
    assert any(h.value.startswith("The residual at position") for h in at.get("subheader") + at.get("header"))


def visible_text(at) -> str:
    """Every word the page shows: markdown, captions, metric labels, widget labels, chart titles and hovers."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [m.label for m in at.metric]
    parts += [w.label for kind in ("number_input", "slider", "selectbox") for w in at.get(kind)]
    parts += [c.proto.spec + c.proto.alt for c in at.get("plotly_chart")]
    return "\n".join(parts)


def test_blocks_call_the_drafts_per_block_k_and_explain_gamma_once():
    text = visible_text(open_page(BLOCKS))
    assert text.count("γ") == 1 and "is written γ" in text  # where the speed-up formula cites the paper
    assert "gamma" not in text.lower() and "best K (0 to 15)" in text and "(1 − α^(K+1))/(1 − α)" in text


def clauses(text: str) -> list[str]:
    return [" ".join(c.split()) for c in re.split(r"[.:;()]", text.lower()) if len(c.split()) >= 4]


@pytest.mark.parametrize("name", all_model_names())
def test_a_model_note_does_not_repeat_its_title_or_itself(name):
    model = load_model(name)
    parts = clauses(f"{model.title}. {model.note or ''}")
    repeats = [(a, b) for i, a in enumerate(parts) for j, b in enumerate(parts) if i != j and a in b]
    assert not repeats


def test_blocks_mistake_from_the_url():
    # keep-testing on markov-three, K = 2, L = 2: distance 1/40 (tests/test_variants.py enumerates it)
    at = open_page(BLOCKS, {"bk_variant": "keep-testing-after-rejection", "bk_k": "2", "bk_l": "2"})
    assert metrics(at)["total variation distance"] == "1/40"
    assert at.warning and "Mistake shown" in at.warning[0].value


def test_blocks_step_through_and_restart():
    at = open_page(BLOCKS, {"bk_seed": "3", "bk_k": "4"})
    assert at.session_state["bk_steps"].revealed == 0
    assert "The draft proposed 4 tokens" in markdown_text(at)
    at.button(key="bk_step").click().run()
    assert at.session_state["bk_steps"].revealed == 1
    assert "Draft 1:" in markdown_text(at)
    at.button(key="bk_all").click().run()
    assert "The block commits" in markdown_text(at)
    complete = at.session_state["bk_steps"].revealed
    assert not at.button(key="bk_step").disabled  # no button disables itself (focus would fall to the page)
    at.button(key="bk_step").click().run()
    assert at.session_state["bk_steps"].revealed == complete  # a complete block: Step changes nothing
    at.button(key="bk_restart").click().run()
    assert at.session_state["bk_steps"].revealed == 0
    at.button(key="bk_next_seed").click().run()
    assert at.number_input(key="bk_seed").value == 4
    assert not at.exception


def test_blocks_speedup_by_hand():
    at = open_page(BLOCKS)
    # alpha 0.8, c 0.1: gamma 5 -> 3.68928/1.5 = 2.4595, gamma 6 -> 3.951424/1.6 = 2.4696,
    # gamma 7 -> 4.1611392/1.7 = 2.4477: best gamma 6
    shown = metrics(at)
    assert shown["best K (0 to 15)"] == "6"
    assert shown["walltime improvement"] == "2.470×"
    assert shown["tokens per block at best K"] == "3.951"
    at = open_page(BLOCKS, {"bk_alpha": "0.5", "bk_c": "0.5"})
    # gamma 0 -> 1, gamma 1 -> 1.5/1.5 = 1, gamma 2 -> 1.75/2: speculation does not pay, best gamma 0
    assert metrics(at)["best K (0 to 15)"] == "0"
    at = open_page(BLOCKS, {"bk_alpha": "1.0", "bk_c": "0.1"})
    # alpha = 1: (gamma + 1)/(0.1 gamma + 1) rises with every gamma: no best gamma (not the cap 15)
    assert metrics(at)["best K (0 to 15)"] == "none"
    assert any("no best k" in c.value.lower() for c in at.caption)


def test_blocks_long_laws_and_the_named_limit():
    # markov-three: x is followed by y or z, y by anything, z by x only, so the number of sequences
    # doubles with each token after the first three: 3 * 2^7 = 384 sequences of 8 tokens, distance 0
    at = open_page(BLOCKS, {"bk_model": "markov-three", "bk_k": "8", "bk_l": "8"})
    assert not at.error
    assert metrics(at)["total variation distance"] == "0"
    assert len(at.dataframe[-1].value) == 384
    # eight-words, L = 5: 8^5 = 32,768 sequences, above the limit: named, and the rest of the page stays
    at = open_page(BLOCKS, {"bk_model": "eight-words", "bk_k": "8", "bk_l": "5"})
    (message,) = [plain(e.value) for e in at.error]
    assert "32,768 sequences, too many for an exact law (limit 4,096" in message
    assert "The draft proposed 8 tokens" in markdown_text(at)
    assert metrics(at)["best K (0 to 15)"] == "6"


@pytest.mark.parametrize(
    "page, module, loader",
    [(SAMPLING, "lab.core.scenarios", "load_scenario"), (BLOCKS, "lab.core.markov", "load_model")],
)
def test_a_data_file_broken_on_disk_is_named_and_the_page_stops_there(monkeypatch, page, module, loader):
    import importlib

    from lab.core.distributions import LabInputError

    def broken(name, *args, **kwargs):
        raise LabInputError(f"scenarios/{name}.toml: line 3: p must be a number")

    monkeypatch.setattr(importlib.import_module(module), loader, broken)
    at = open_page(page)
    assert not at.exception
    chosen = at.session_state["sl_scenario" if page == SAMPLING else "bk_model"]
    assert [plain(e.value) for e in at.error] == [f"scenarios/{chosen}.toml: line 3: p must be a number"]
    assert not at.get("plotly_chart") and not at.metric  # nothing drawn from a file that could not be read
