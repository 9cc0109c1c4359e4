"""Different text, same law: ordinary sampling and speculative sampling from the same seed.

Ordinary sampling draws each token from the target p by inverse CDF of one uniform. Speculative sampling
(block decoding, :mod:`lab.core.blocks`) spends its uniforms differently: a draft token from q, an acceptance
test, sometimes a correction or a bonus token. Seeded alike, the two samplers turn the same seed into different
texts, run by run; their laws are the same exact law (the target's), which a chi-square test of each side's
counts shows. The speculative argument is about distributions: it never promised the same text.

Randomness: both sides start from :func:`lab.core.sampling.make_streams` of the same seed; ordinary sampling
reads the proposal stream only (the very uniforms the draft reads first), speculative sampling all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.blocks import (
    BlockWork,
    InverseCdf,
    Law,
    block_outputs,
    check_block_args,
    check_sequences,
    speculative_law,
    target_law,
)
from lab.core.distance import total_variation
from lab.core.errors import said
from lab.core.markov import START, MarkovModel
from lab.core.sampling import ChiSquareResult, Streams, chi_square_test, make_streams

SHOWN = 8  # outputs shown side by side

WHY_TEXTS_DIFFER = said(
    "The two samplers use their random draws differently: ordinary sampling turns each uniform into a token "
    "through p, speculative sampling spends its uniforms on draft tokens from q, acceptance tests and "
    "corrections, so the same seed gives different texts; the law is preserved, the text is not."
)


def ordinary_outputs(model: MarkovModel, length: int, sequences: int, streams: Streams):
    """``sequences`` outputs of ordinary sampling from p (inverse CDF of one proposal-stream uniform per token),
    each ending with the stop token or cut at ``length`` tokens."""
    rng, stop = streams.proposal, model.stop
    inverse_cdf = InverseCdf()
    for _ in range(sequences):
        seq: list[int] = []
        prev = START
        while len(seq) < length:
            prev = inverse_cdf.draw(prev, model.p(prev), rng.random())
            seq.append(prev)
            if prev == stop:
                break
        yield tuple(seq)


@dataclass(frozen=True)
class OrdinaryComparison:
    model: MarkovModel
    block: int
    length: int
    sequences: int
    seed: int
    ordinary_first: tuple[tuple[int, ...], ...]  # the first SHOWN outputs of each side
    speculative_first: tuple[tuple[int, ...], ...]
    identical: int  # runs i whose i-th outputs are the same text
    ordinary_counts: dict[tuple[int, ...], int]
    speculative_counts: dict[tuple[int, ...], int]
    law: Law  # the exact law of both (the target's)
    fit_ordinary: ChiSquareResult
    fit_speculative: ChiSquareResult
    blocks: int
    distance: Fraction  # exact total variation between block decoding's law and the target's (0)

    @property
    def identical_share(self) -> float:
        return self.identical / self.sequences


def compare_ordinary(
    model: MarkovModel, block: int, length: int, sequences: int, seed: int, allow_large: bool = False
) -> OrdinaryComparison:
    """Run both samplers ``sequences`` times from ``seed``; sizes are checked before anything is computed."""
    check_block_args(model, block, length, allow_large)
    check_sequences(sequences, allow_large)
    exact = speculative_law(model, block, length, allow_large=allow_large)  # checks the law's size first
    law = target_law(model, length)
    work = BlockWork()
    ordinary = ordinary_outputs(model, length, sequences, make_streams(seed))
    speculative = block_outputs(model, block, length, sequences, make_streams(seed), work=work)
    first_o: list[tuple[int, ...]] = []
    first_s: list[tuple[int, ...]] = []
    counts_o: dict[tuple[int, ...], int] = {}
    counts_s: dict[tuple[int, ...], int] = {}
    identical = 0
    for o, s in zip(ordinary, speculative):
        if len(first_o) < SHOWN:
            first_o.append(o)
            first_s.append(s)
        identical += o == s
        counts_o[o] = counts_o.get(o, 0) + 1
        counts_s[s] = counts_s.get(s, 0) + 1
    return OrdinaryComparison(
        model,
        block,
        length,
        sequences,
        seed,
        tuple(first_o),
        tuple(first_s),
        identical,
        counts_o,
        counts_s,
        law,
        chi_square_test(counts_o, law),
        chi_square_test(counts_s, law),
        work.blocks,
        total_variation(exact, law),
    )
