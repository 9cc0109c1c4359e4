"""The reference exact law of block decoding: the lab's first implementation, which enumerates every
draft path of every block (kept verbatim; exponential in K and L, so only for small models in tests).

lab/core/blocks.py builds the same law prefix by prefix (a dynamic programme over the verified
history and the position in the block); tests/test_blocks_dp.py checks both give identical Fractions.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from lab.core.markov import START, MarkovModel
from lab.core.variants import CORRECT, Variant, get_variant, rules

ONE = Fraction(1)
Law = dict[tuple[int, ...], Fraction]


def chunk_law(model: MarkovModel, block: int, prev: int, limit: int, variant: Variant = CORRECT) -> Law:
    """Exact law of the tokens one block commits from history ``prev``, cut to the first ``limit``.

    Cutting is harmless: the block commits its tokens in order, so what happens after the first
    ``limit`` committed tokens cannot change them.
    """
    out: Law = defaultdict(Fraction)
    vocab_size = len(model.vocab)

    def visit(position: int, draft_ctx: int, test_ctx: int, committed: tuple[int, ...], prob: Fraction, rejected):
        if len(committed) >= limit:
            out[committed[:limit]] += prob
            return
        p_row, q_row = model.p(test_ctx), model.q(test_ctx)
        if position == block:
            if rejected:  # only keep-testing variants get here after a rejection: no bonus
                out[committed] += prob
            else:  # all K drafts passed: one bonus token from p at the verified history
                for token in range(vocab_size):
                    if p_row[token]:
                        out[committed + (token,)] += prob * p_row[token]
            return
        proposal = rules(variant, "draft", p_row, model.q(draft_ctx))
        for x in range(vocab_size):
            if not proposal[x]:
                continue
            keep = rules(variant, "accept", p_row, q_row, x)
            if keep:
                visit(position + 1, x, x, committed + (x,), prob * proposal[x] * keep, rejected)
            if keep == 1:
                continue
            replacement = rules(variant, "correction", p_row, q_row, x)
            weight = prob * proposal[x] * (1 - keep)
            for y in range(vocab_size):
                if not replacement[y]:
                    continue
                if variant.keep_testing:  # the mistake: later drafts (made after x) are still tested
                    visit(position + 1, x, y, committed + (y,), weight * replacement[y], True)
                else:  # the first rejection ends the block; later drafts are discarded
                    out[committed + (y,)] += weight * replacement[y]

    # In the correct algorithm draft and test contexts coincide: the verified history.
    visit(0, prev, prev, (), ONE, False)
    return {seq: prob for seq, prob in out.items() if prob}


def enumerated_law(model: MarkovModel, block: int, length: int, variant: Variant | str = CORRECT) -> Law:
    """Exact law of the first ``length`` committed tokens under block decoding with K = ``block``."""
    variant = get_variant(variant)
    memo: dict[tuple[int, int], Law] = {}

    def law_from(prev: int, remaining: int) -> Law:
        if remaining == 0:
            return {(): ONE}
        key = (prev, remaining)
        if key not in memo:
            result: Law = defaultdict(Fraction)
            for chunk, prob in chunk_law(model, block, prev, remaining, variant).items():
                for rest, rest_prob in law_from(chunk[-1], remaining - len(chunk)).items():
                    result[chunk + rest] += prob * rest_prob
            memo[key] = dict(result)
        return memo[key]

    return law_from(START, length)
