"""Block decoding: draft K tokens, verify left to right, correct at the first rejection.

One block from the verified history ``prev`` (the last committed token, ``START`` at first):

1. the draft proposes K tokens autoregressively, x1 ~ q(.|prev), x2 ~ q(.|x1), ...;
2. each draft is tested in order against the target at the verified history: keep x_i with
   probability min(1, p(x_i|h)/q(x_i|h)), with its own acceptance uniform;
3. at the first rejection (position i) the replacement is drawn once, with fresh randomness, from
   the residual r = max(0, p - q)/Z of p(.|h) and q(.|h) at that position; every later draft is
   discarded (it assumed the rejected token) and the next block starts from the corrected prefix;
4. if all K drafts pass, one bonus token is drawn from p(.|x_K).

The same engine runs every :mod:`lab.core.variants` mistake, both exactly and by simulation:

- :func:`speculative_law` enumerates the exact law (Fractions) of the first L committed tokens;
  :func:`target_law` is the target's own law of L tokens; their total variation distance
  (:func:`lab.core.distance.total_variation`) is exactly 0 for the correct algorithm, for every model, K and L;
- :func:`run_block` samples one block and returns a :class:`BlockTrace` (the Blocks page steps
  through it); :func:`simulate_blocks` repeats it to check the exact law by chi-square.

Randomness: three independent numpy streams (proposal, acceptance, correction) from
:func:`lab.core.sampling.make_streams`; the bonus token uses the correction stream.
A row with Z = 0 (p = q) never rejects, so its residual is never formed (no 0/0).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from lab.core.distance import total_variation
from lab.core.distributions import LabInputError
from lab.core.markov import START, MarkovModel
from lab.core.sampling import ChiSquareResult, Streams, chi_square_test, float_cdf, make_streams
from lab.core.variants import CORRECT, Row, Variant, get_variant, rules

ZERO = Fraction(0)
ONE = Fraction(1)

MAX_BLOCK = 8
MAX_LENGTH = 8
MAX_SEQUENCES = 200_000  # enumeration guard: V ** L sequences at most


class BlockInputError(LabInputError):
    """A block size, length or step count outside what the lab accepts."""


def check_block_args(model: MarkovModel, block: int, length: int) -> None:
    if not isinstance(block, int) or block < 1:
        raise BlockInputError(f"block size K must be a whole number >= 1 (got {block!r})")
    if block > MAX_BLOCK:
        raise BlockInputError(f"block size K = {block} is above the lab's limit of {MAX_BLOCK}")
    if not isinstance(length, int) or length < 1:
        raise BlockInputError(f"length L must be a whole number >= 1 (got {length!r})")
    if length > MAX_LENGTH:
        raise BlockInputError(f"length L = {length} is above the lab's limit of {MAX_LENGTH}")
    if len(model.vocab) ** length > MAX_SEQUENCES:
        raise BlockInputError(
            f"length L = {length} gives {len(model.vocab)}^{length} sequences, too many to enumerate "
            f"(limit {MAX_SEQUENCES}); choose a smaller L"
        )


# --- exact laws -------------------------------------------------------------------------------

Law = dict[tuple[int, ...], Fraction]


def target_law(model: MarkovModel, length: int) -> Law:
    """The target's own law of its first ``length`` tokens (products of conditionals), zeros dropped."""
    law: Law = {(): ONE}
    for _ in range(length):
        nxt: Law = {}
        for seq, prob in law.items():
            row = model.p(seq[-1] if seq else START)
            for token, mass in enumerate(row):
                if mass:
                    nxt[seq + (token,)] = prob * mass
        law = nxt
    return law


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


def speculative_law(model: MarkovModel, block: int, length: int, variant: Variant | str = CORRECT) -> Law:
    """Exact law of the first ``length`` committed tokens under block decoding with K = ``block``."""
    variant = get_variant(variant)
    check_block_args(model, block, length)
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


@dataclass(frozen=True)
class LawComparison:
    model: MarkovModel
    block: int
    length: int
    variant: Variant
    target: Law
    speculative: Law
    distance: Fraction

    def rows(self) -> list[tuple[tuple[int, ...], Fraction, Fraction]]:
        """(sequence, target, speculative) for every sequence either law reaches, in vocabulary order."""
        keys = sorted(set(self.target) | set(self.speculative))
        return [(k, self.target.get(k, ZERO), self.speculative.get(k, ZERO)) for k in keys]


def compare_laws(model: MarkovModel, block: int, length: int, variant: Variant | str = CORRECT) -> LawComparison:
    variant = get_variant(variant)
    spec = speculative_law(model, block, length, variant)
    target = target_law(model, length)
    return LawComparison(model, block, length, variant, target, spec, total_variation(target, spec))


# --- sampling ---------------------------------------------------------------------------------

_CDF_CACHE: dict[Row, list[float]] = {}


def cdf(row: Row) -> list[float]:
    """:func:`lab.core.sampling.float_cdf` of an exact row, as a list (bisect is fastest on one), cached."""
    cached = _CDF_CACHE.get(row)
    if cached is None:
        cached = _CDF_CACHE[row] = float_cdf(row).tolist()
    return cached


def draw(row: Row, u: float) -> int:
    """Inverse CDF: the first token whose CDF exceeds u (u in [0, 1); zero-mass tokens never drawn)."""
    return bisect.bisect_right(cdf(row), u)


@dataclass(frozen=True)
class DraftTest:
    """One drafted token and what the verifier did with it."""

    position: int  # 0-based position in the block
    token: int  # the drafted token
    draft_probability: Fraction  # the probability the draft sampled it with
    p: Fraction  # p(token | verified history)
    q: Fraction  # q(token | verified history), the one the test uses
    accept_probability: Fraction  # min(1, p/q)
    u: float | None  # the acceptance uniform (None: discarded, never tested)
    status: str  # "accepted", "rejected" or "discarded"
    test_context: int  # the verified history's last token
    residual: Row | None = None  # on rejection: the law the replacement was drawn from
    replacement: int | None = None
    correction_u: float | None = None


@dataclass(frozen=True)
class BlockTrace:
    variant: Variant
    prev: int
    block: int
    drafts: tuple[int, ...]
    tests: tuple[DraftTest, ...]
    rejection: int | None  # position of the first rejection, None if all K passed
    bonus: int | None
    bonus_u: float | None
    committed: tuple[int, ...]

    @property
    def discarded(self) -> tuple[int, ...]:
        return tuple(t.token for t in self.tests if t.status == "discarded")

    @property
    def events(self) -> int:
        """Steps to reveal the block: the drafts, then each test, then the ending (bonus or summary)."""
        return len(self.tests) + 2

    def next_reveal(self, revealed: int) -> int:
        """The Step button: 0 shows the drafts, i shows the first i tests, len(tests) + 1 the ending.
        After the first rejection the discarded drafts need no step of their own (unless the variant
        keeps testing them)."""
        last = len(self.tests) + 1
        if revealed >= last:
            return last
        if 1 <= revealed <= len(self.tests) and self.tests[revealed - 1].status == "rejected":
            if not self.variant.keep_testing:
                return last
        return revealed + 1


def run_block(
    model: MarkovModel,
    block: int,
    prev: int,
    streams: Streams,
    variant: Variant | str = CORRECT,
    record: bool = True,
) -> BlockTrace | tuple[int, ...]:
    """Sample one block from history ``prev``; a :class:`BlockTrace`, or the committed tokens only
    (``record=False``, for fast simulation)."""
    variant = get_variant(variant)
    drafts: list[int] = []
    draft_probs: list[Fraction] = []
    ctx = prev
    for _ in range(block):  # the draft runs ahead on its own tokens
        q_row = model.q(ctx)
        proposal = rules(variant, "draft", model.p(ctx), q_row)
        x = draw(proposal, streams.proposal.random())
        drafts.append(x)
        draft_probs.append(proposal[x])
        ctx = x
    committed: list[int] = []
    tests: list[DraftTest] = []
    test_ctx = prev
    rejection = None
    for i, x in enumerate(drafts):
        if rejection is not None and not variant.keep_testing:
            if record:
                tests.append(DraftTest(i, x, draft_probs[i], ZERO, ZERO, ZERO, None, "discarded", test_ctx))
            continue
        p_row, q_row = model.p(test_ctx), model.q(test_ctx)
        keep = rules(variant, "accept", p_row, q_row, x)
        u = streams.acceptance.random()
        if u < keep:  # u in [0, 1): keep == 1 always passes, keep == 0 never does
            committed.append(x)
            if record:
                tests.append(DraftTest(i, x, draft_probs[i], p_row[x], q_row[x], keep, u, "accepted", test_ctx))
            test_ctx = x
            continue
        law = rules(variant, "inverse_cdf", p_row, q_row, x)
        w = u if variant.reuses_acceptance_uniform else streams.correction.random()
        y = draw(law, w)
        committed.append(y)
        if record:
            tests.append(DraftTest(i, x, draft_probs[i], p_row[x], q_row[x], keep, u, "rejected", test_ctx, law, y, w))
        test_ctx = y
        if rejection is None:
            rejection = i
    bonus = bonus_u = None
    if rejection is None:
        bonus_u = streams.correction.random()
        bonus = draw(model.p(test_ctx), bonus_u)
        committed.append(bonus)
    if not record:
        return tuple(committed)
    return BlockTrace(variant, prev, block, tuple(drafts), tuple(tests), rejection, bonus, bonus_u, tuple(committed))


@dataclass(frozen=True)
class BlockSimulation:
    model: MarkovModel
    block: int
    length: int
    variant: Variant
    sequences: int
    seed: int
    counts: dict[tuple[int, ...], int]
    blocks: int
    tokens: int  # committed by all blocks, before cutting sequences to their first L tokens
    target: Law
    law: Law  # the variant's own exact law
    fit_target: ChiSquareResult
    fit_law: ChiSquareResult

    @property
    def mean_tokens_per_block(self) -> float:
        return self.tokens / self.blocks


def simulate_blocks(
    model: MarkovModel, block: int, length: int, sequences: int, seed: int, variant: Variant | str = CORRECT
) -> BlockSimulation:
    """Generate ``sequences`` independent sequences by block decoding until each has ``length``
    tokens; count their first ``length`` tokens and test the counts against the exact laws."""
    variant = get_variant(variant)
    check_block_args(model, block, length)
    if sequences < 1:
        raise BlockInputError(f"the number of steps must be >= 1 (got {sequences})")
    streams = make_streams(seed)
    counts: dict[tuple[int, ...], int] = defaultdict(int)
    blocks = tokens = 0
    for _ in range(sequences):
        seq: tuple[int, ...] = ()
        while len(seq) < length:
            chunk = run_block(model, block, seq[-1] if seq else START, streams, variant, record=False)
            blocks += 1
            tokens += len(chunk)
            seq += chunk
        counts[seq[:length]] += 1
    target = target_law(model, length)
    law = speculative_law(model, block, length, variant)
    return BlockSimulation(
        model,
        block,
        length,
        variant,
        sequences,
        seed,
        dict(counts),
        blocks,
        tokens,
        target,
        law,
        chi_square_test(counts, target),
        chi_square_test(counts, law),
    )
