"""AppTest for the Blocks page's "committed" row: it lists every token the block commits (kept drafts, the
replacement or the bonus, a stop token), in order, equal to the trace's bookkeeping (run_block's ``committed``,
the tokens the exact law counts), for many seeds and K; and by hand for seed 3 and a block ending at <end>."""

from __future__ import annotations

from pagetest import charts, open_linked_page

from lab.core.blocks import run_block
from lab.core.formatting import plotly_text
from lab.core.markov import START, load_model
from lab.core.sampling import make_streams

BLOCKS = "lab/views/pages/blocks.py"


def committed_row(at) -> list[str]:
    """The chart's bottom row (y = 0), left to right, as drawn (a name like <end> is escaped for plotly)."""
    boxes = [
        (x, text)
        for trace in charts(at)["bk_trace"].values()
        for x, y, text in zip(trace["x"], trace["y"], trace["text"])
        if y == 0
    ]
    return [text for _, text in sorted(boxes, key=lambda box: box[0])]


def shown_in_full(at):
    at.button(key="bk_all").click().run()
    assert not at.exception
    return committed_row(at)


def test_seed_3_commits_the_kept_draft_and_the_replacement():
    at = open_linked_page(BLOCKS, {"bk_seed": "3"}, timeout=60)  # markov-three, K = 3
    model = load_model("markov-three")
    first, second, third = run_block(model, 3, START, make_streams(3)).tests
    # seed 3: the first draft is kept, the second rejected and replaced from the residual, the third discarded
    assert (first.status, second.status, third.status) == ("accepted", "rejected", "discarded")
    assert shown_in_full(at) == [model.vocab[first.token], model.vocab[second.replacement]] == ["y", "x"]


def test_a_block_that_ends_at_the_stop_token_shows_it_committed():
    model = load_model("markov-ab-end")
    seed = next(
        s
        for s in range(200)
        if (t := run_block(model, 3, START, make_streams(s), room=4)).ends_output and t.rejection is None
    )
    at = open_linked_page(BLOCKS, {"bk_model": "markov-ab-end", "bk_k": "3", "bk_l": "4", "bk_seed": str(seed)})
    row = shown_in_full(at)
    assert row and row[-1] == plotly_text("<end>")  # the kept <end> is committed: the row is not empty


def test_the_committed_row_equals_the_trace_for_many_seeds_and_k():
    cases = (  # (model, algorithm, L or None when the model never stops)
        ("markov-ab-end", "correct", 6),
        ("markov-three", "correct", None),
        ("markov-three", "keep-testing-after-rejection", None),  # a mistake: later drafts still tested, committed
    )
    for name, variant, length in cases:
        params = {"bk_model": name, "bk_variant": variant, **({"bk_l": str(length)} if length else {})}
        at = open_linked_page(BLOCKS, params, timeout=60)
        model = load_model(name)
        for k in (1, 2, 4):
            at.number_input(key="bk_k").set_value(k).run()
            for seed in range(0, 21, 4):
                at.number_input(key="bk_seed").set_value(seed).run()
                trace = run_block(model, k, START, make_streams(seed), variant, room=length)
                drawn = shown_in_full(at)
                assert drawn == [plotly_text(model.vocab[t]) for t in trace.committed], (name, variant, k, seed)
