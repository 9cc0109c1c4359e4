"""AppTest for the Blocks page with a model that stops: the rules on the page, a block that ends at the stop
token, the maximum length cutting a block, and the law over complete outputs."""

from __future__ import annotations

from pagetest import charts, markdown_text, metrics, open_linked_page, plain

from lab.core.blocks import run_block
from lab.core.markov import START, load_model
from lab.core.sampling import make_streams

BLOCKS = "lab/views/pages/blocks.py"


def open_blocks(params):
    return open_linked_page(BLOCKS, params, timeout=60)


def test_the_rules_and_the_law_over_complete_outputs():
    at = open_blocks({"bk_model": "markov-ab-end", "bk_k": "3", "bk_l": "4"})
    info = plain(at.info[0].value).replace("**", "")
    assert "An output ends with <end>, or is cut at L = 4 tokens (<end> counted as one of them)" in info
    assert "no bonus token, later drafts discarded; L cuts a block short" in info
    assert any("Exact law of complete outputs (at most 4 tokens)" in h.value for h in at.header)
    assert metrics(at)["total variation distance"] == "0"
    law = at.dataframe[-1].value
    # scenarios/markov-ab-end.toml: a <end> = p(a|start) p(<end>|a) = 2/3 * 1/2 = 1/3; b <end> = 1/3 * 1/4
    assert law.loc[law["output"] == "a <end>", "target"].item() == "1/3"
    assert law.loc[law["output"] == "b <end>", "target"].item() == "1/12"
    assert list(law["target"]) == list(law["speculative"])
    outputs = list(law["output"])
    assert all(o.endswith("<end>") or len(o.split(" ")) == 4 for o in outputs)
    drawn = charts(at)["bk_law_chart"]
    assert "a <end>: 1/3 and 1/3" in drawn["target"]["alt"]
    assert "a &lt;end&gt;" in drawn["target"]["x"]  # plotly reads tags: the name is drawn as typed
    assert len(drawn["block decoding"]["y"]) == len(outputs)


def test_find_a_block_that_ends_at_the_stop_token():
    at = open_blocks({"bk_model": "markov-sentences-end", "bk_k": "4", "bk_l": "8", "bk_seed": "1"})
    at.button(key="bk_find_stop").click().run()
    seed = at.number_input(key="bk_seed").value
    assert seed > 1
    model = load_model("markov-sentences-end")
    trace = run_block(model, 4, START, make_streams(seed), room=8)
    assert trace.ends_output and trace.committed[-1] == model.stop and trace.bonus is None
    at.button(key="bk_all").click().run()
    text = plain(markdown_text(at))
    assert "The output is complete: it ended at <end>." in text
    assert "<end> ends the output: no bonus token, nothing after it." in text or "The replacement is <end>" in text
    assert not at.exception


def test_the_maximum_length_cuts_the_block():
    model = load_model("markov-ab-end")
    seed = next(
        s
        for s in range(200)
        if (t := run_block(model, 6, START, make_streams(s), room=2)).rejection is None and not t.ends_output
    )
    at = open_blocks({"bk_model": "markov-ab-end", "bk_k": "6", "bk_l": "2", "bk_seed": str(seed)})
    at.button(key="bk_all").click().run()
    text = plain(markdown_text(at))
    assert "The draft proposed 2 tokens" in text and "leaves room for 2 tokens only" in text
    assert "All 2 drafts passed and the output has its L = 2 tokens: no bonus token." in text
    assert "The output is complete: it is cut at L = 2 tokens." in text


def test_a_stop_mistake_on_the_page():
    at = open_blocks({"bk_model": "markov-ab-end", "bk_k": "2", "bk_l": "4", "bk_variant": "bonus-after-stop"})
    assert metrics(at)["total variation distance"] == "29/96"  # as `python -m lab mistakes markov-ab-end`
    at = open_blocks({"bk_variant": "draft-past-stop"})  # markov-three never stops
    assert metrics(at)["total variation distance"] == "0"
    assert any("no stop token, so this mistake changes nothing here" in c.value for c in at.caption)
