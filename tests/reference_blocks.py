"""The reference exact law of block decoding: the lab's first implementation, which enumerates every
draft path of every block (kept verbatim; exponential in K and L, so only for small models in tests).

lab/core/blocks.py builds the same law prefix by prefix (a dynamic programme over the verified
history and the position in the block); tests/test_blocks_dp.py checks both give identical Fractions.

Models with a stop token go through :func:`stop_enumerated_law`, written apart from the engine the way a
decoder runs: first every draft run of the block (the draft stops at a proposed stop token unless the
variant drafts past it), then every way the verifier can treat that run, one draft after another.
"""

from __future__ import annotations

import itertools
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
    if model.stop is not None:
        return stop_enumerated_law(model, block, length, variant)
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


def draft_runs(model: MarkovModel, block: int, prev: int, variant: Variant):
    """Every draft run of one block from ``prev`` with its probability: x1 ~ q(.|prev), x2 ~ q(.|x1), ...,
    K drafts, fewer when a proposed stop token ends the run (unless the variant drafts past it)."""
    runs = []

    def extend(run: tuple[int, ...], prob: Fraction) -> None:
        ends = len(run) == block or (run and run[-1] == model.stop and not variant.drafts_past_stop)
        if ends:
            runs.append((run, prob))
            return
        ctx = run[-1] if run else prev
        proposal = rules(variant, "draft", model.p(ctx), model.q(ctx))
        for x, mass in enumerate(proposal):
            if mass:
                extend(run + (x,), prob * mass)

    extend((), ONE)
    return runs


def stop_block_law(model: MarkovModel, block: int, prev: int, variant: Variant) -> dict:
    """(committed tokens, output ended) -> probability for one block from ``prev``."""
    stop = model.stop
    out: dict = defaultdict(Fraction)

    def verify(run, i, ctx, committed, prob, rejected, stop_seen):
        # stop_seen: a stop token was committed by a mistake that goes on after it (the output ends with the block)
        if i == len(run):
            if rejected:  # keep-testing after a replacement: no bonus
                out[(committed, stop_seen)] += prob
                return
            for y, mass in enumerate(model.p(ctx)):  # all drafts kept: a bonus token from p
                if mass:
                    out[(committed + (y,), stop_seen or y == stop)] += prob * mass
            return
        x = run[i]
        p_row, q_row = model.p(ctx), model.q(ctx)
        keep = rules(variant, "accept", p_row, q_row, x)
        if keep:
            kept = committed + (x,)
            if x == stop and not (variant.drafts_past_stop or variant.bonus_after_stop):
                out[(kept, True)] += prob * keep  # the output ends at the stop token
            else:
                verify(run, i + 1, x, kept, prob * keep, rejected, stop_seen or x == stop)
        if keep == 1:
            return
        replacement = rules(variant, "correction", p_row, q_row, x)
        for y, mass in enumerate(replacement):
            if not mass:
                continue
            weight = prob * (1 - keep) * mass
            if y == stop:
                out[(committed + (y,), True)] += weight
            elif variant.keep_testing:  # the mistake: later drafts still tested, after the replacement
                verify(run, i + 1, y, committed + (y,), weight, True, stop_seen)
            else:  # the first rejection ends the block
                out[(committed + (y,), stop_seen)] += weight

    for run, prob in draft_runs(model, block, prev, variant):
        verify(run, 0, prev, (), prob, False, False)
    return {key: prob for key, prob in out.items() if prob}


def stop_enumerated_law(model: MarkovModel, block: int, length: int, variant: Variant | str = CORRECT) -> Law:
    """Exact law of complete outputs (ended with the stop token, or cut at ``length`` tokens)."""
    variant = get_variant(variant)
    law: Law = defaultdict(Fraction)

    def generate(prefix: tuple[int, ...], prob: Fraction) -> None:
        prev = prefix[-1] if prefix else START
        for (chunk, ended), chunk_prob in stop_block_law(model, block, prev, variant).items():
            seq = prefix + chunk
            if len(seq) >= length:
                law[seq[:length]] += prob * chunk_prob
            elif ended:
                law[seq] += prob * chunk_prob
            else:
                generate(seq, prob * chunk_prob)

    generate((), ONE)
    return dict(law)


def brute_force_target(model: MarkovModel, length: int) -> Law:
    """The target's law of the first ``length`` tokens, by multiplying its conditionals over every sequence (zeros
    left out): written apart from lab.core.blocks.target_law."""
    law = {}
    for seq in itertools.product(range(len(model.vocab)), repeat=length):
        prob, prev = ONE, START
        for token in seq:
            prob *= model.target[prev + 1][token]
            prev = token
        if prob:
            law[seq] = prob
    return law
