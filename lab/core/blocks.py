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

- :func:`speculative_law` builds the exact law (Fractions) of the first L committed tokens prefix by
  prefix (a forward pass over the verified history and the position in the block, see
  :func:`block_chain`), with work bounded by the number of sequences, not of draft paths;
  :func:`target_law` is the target's own law of L tokens; their total variation distance
  (:func:`lab.core.distance.total_variation`) is exactly 0 for the correct algorithm, for every model, K and L;
- :func:`run_block` samples one block and returns a :class:`BlockTrace` (the Blocks page steps
  through it); :func:`block_outputs` samples whole outputs (the same draws, nothing recorded), which
  :func:`simulate_blocks` counts to check the exact law by chi-square.

Both the exact chain and the sampler move the same :class:`lab.core.variants.BlockState` by the same
rules (:meth:`Variant.after_kept`, :meth:`Variant.after_replaced`, :meth:`Variant.block_ended`): a
block-level mistake is a :class:`Variant` subclass that changes one of them.

Randomness: three independent numpy streams (proposal, acceptance, correction) from
:func:`lab.core.sampling.make_streams`; the bonus token uses the correction stream.
A row with Z = 0 (p = q) never rejects, so its residual is never formed (no 0/0).
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from lab.core.distance import total_variation
from lab.core.distributions import LabInputError
from lab.core.errors import said
from lab.core.markov import START, MarkovModel
from lab.core.sampling import ChiSquareResult, Streams, chi_square_test, float_cdf, make_streams
from lab.core.variants import CORRECT, DONE, FRESH, BlockState, Row, Variant, get_variant, rules

ZERO = Fraction(0)
ONE = Fraction(1)

# Bounded work: every exact law the pages (and, by default, the command line) ask for must finish
# well within a second of server CPU, because all students share one process. The forward pass costs
# about one step per (sequence, hidden state), so the limit is on how many sequences the law can
# reach; ``allow_large`` (the command line's --allow-large) lifts every limit to the LARGE_ values.
MAX_BLOCK = 8
MAX_LENGTH = 8
MAX_OUTCOMES = 4_096
LARGE_MAX_BLOCK = 32
LARGE_MAX_LENGTH = 16
LARGE_MAX_OUTCOMES = 200_000  # memory: a page of ten laws this size would fill about half a gigabyte
MAX_SIM_SEQUENCES = 20_000  # simulated sequences: one Python loop per block, kept within the 1 s budget
LARGE_MAX_SIM_SEQUENCES = 1_000_000


class BlockInputError(LabInputError):
    """A block size, length or step count outside what the lab accepts."""


class TooLargeError(BlockInputError):
    """A request within the controls' ranges whose exact law would be too large to compute quickly."""


def check_block_args(model: MarkovModel, block: int, length: int, allow_large: bool = False) -> None:
    max_block = LARGE_MAX_BLOCK if allow_large else MAX_BLOCK
    max_length = LARGE_MAX_LENGTH if allow_large else MAX_LENGTH
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise BlockInputError(f"block size K must be a whole number >= 1 (got {block!r})")
    if block > max_block:
        raise TooLargeError(said("block size K = {block} is above the lab's limit of {limit}", block=block,
                                 limit=max_block))
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise BlockInputError(f"length L must be a whole number >= 1 (got {length!r})")
    if length > max_length:
        raise TooLargeError(said("length L = {length} is above the lab's limit of {limit}", length=length,
                                 limit=max_length))


def outcome_limit(allow_large: bool = False) -> int:
    return LARGE_MAX_OUTCOMES if allow_large else MAX_OUTCOMES


def too_many_message(model: MarkovModel, length: int, outcomes: int, limit: int) -> str:
    return said(
        "length L = {length} on {model} ({size} tokens) gives up to {outcomes} sequences, too many for an exact law "
        "(limit {limit}, so that one request stays within about a second of the shared server's time); choose a "
        "smaller L", length=length, model=model.name, size=len(model.vocab), outcomes=f"{outcomes:,}",
        limit=f"{limit:,}",
    )


def check_outcomes(model: MarkovModel, chain: BlockChain, length: int, allow_large: bool = False) -> int:
    """How many sequences the law or the target's law can reach (a comparison lists both supports);
    TooLargeError above the limit."""
    limit = outcome_limit(allow_large)
    reach = {t: set(ys) for t, ys in chain.emitted().items()}
    for t in model.contexts:
        if t != model.stop:  # the target's outputs end at the stop token
            reach.setdefault(t, set()).update(y for y, mass in enumerate(model.p(t)) if mass)
    can_end = model.stop is not None
    outcomes = count_outcomes({t: frozenset(ys) for t, ys in reach.items()}, length, can_end)
    if outcomes > limit:
        raise TooLargeError(too_many_message(model, length, outcomes, limit))
    return outcomes


# --- exact laws -------------------------------------------------------------------------------

Law = dict[tuple[int, ...], Fraction]


def target_law(model: MarkovModel, length: int) -> Law:
    """The target's own law of complete outputs of at most ``length`` tokens (products of conditionals),
    zeros dropped. Without a stop token every output is the first ``length`` tokens; with one, an output
    ends with the stop token (which counts as one of the ``length`` tokens) or is cut at ``length``."""
    law: Law = {(): ONE}
    ended: Law = {}
    for _ in range(length):
        nxt: Law = {}
        for seq, prob in law.items():
            row = model.p(seq[-1] if seq else START)
            for token, mass in enumerate(row):
                if mass:
                    (ended if token == model.stop else nxt)[seq + (token,)] = prob * mass
        law = nxt
    if model.stop is None:
        return law
    law.update(ended)
    return dict(sorted(law.items()))


# The block engine as a hidden chain. After each committed token the future depends on the committed
# prefix only through its last token t (the verified history) and a small hidden state, a
# :class:`BlockState` (drafts done, the draft's own context, replaced, stopped), which the variant's
# block-level rules move (the sampler below moves it by the same rules). DONE: the output is complete
# (the stop token was committed): no move leaves it. The maximum length L cuts the last block short.
# The law of complete outputs is built prefix by prefix: each prefix carries the mass of every hidden
# state it can be in (a forward pass), so the work grows with the number of prefixes, not with the
# number of draft paths.

Hidden = BlockState  # the chain's name for it


@dataclass(frozen=True)
class BlockChain:
    """Every (history, hidden state) the engine reaches, with its moves as whole numbers.

    ``moves[(t, h)]`` lists (committed token y, next hidden state, weight * scale): the weights are
    the exact Fractions of one step, all scaled by ``scale`` (their common denominator), so the
    forward pass adds and multiplies Python integers and divides once per sequence at the end.
    """

    scale: int
    moves: dict[tuple[int, Hidden], tuple[tuple[int, Hidden, int], ...]]  # its states as plain tuples (see block_chain)

    def emitted(self) -> dict[int, frozenset[int]]:
        """For each history, the tokens some hidden state can commit next (for counting outcomes)."""
        out: dict[int, set[int]] = defaultdict(set)
        for (t, _), moves in self.moves.items():
            out[t].update(y for y, _, _ in moves)
        return {t: frozenset(ys) for t, ys in out.items()}

    @property
    def can_end(self) -> bool:
        """Whether some move completes the output before the maximum length (a stop token)."""
        return any(after == DONE for moves in self.moves.values() for _, after, _ in moves)


class InverseCdf:
    """The samplers' one CDF cache: each row's float64 CDF (:func:`lab.core.sampling.float_cdf`, as a list:
    bisect is fastest on one), remembered under a small key (rows of Fractions hash slowly). One lives with
    each sampling run, so it is bounded by the model (at most three tables per history and token)."""

    def __init__(self):
        self.tables: dict[object, list[float]] = {}

    def draw(self, key, row: Row, u: float) -> int:
        """Inverse CDF of ``row`` at u: the first token whose CDF exceeds u (u in [0, 1); zero-mass tokens are
        never drawn)."""
        table = self.tables.get(key)
        if table is None:
            table = self.tables[key] = float_cdf(row).tolist()
        return bisect.bisect_right(table, u)


class _Rules:
    """A variant's rules at each history, looked up by integer keys (rows of Fractions hash slowly):
    the exact forward pass and the sampler both read them here (bounded by the model, gone with the rule set)."""

    def __init__(self, model: MarkovModel, variant: Variant):
        self.model, self.variant = model, variant
        self.drafts: dict[tuple[int, int], Row] = {}
        self.tests: dict[tuple[int, int], tuple[Fraction, Row | None]] = {}
        self.thresholds: dict[tuple[int, int], float] = {}
        self.laws: dict[tuple[int, int], Row] = {}
        self.draw = InverseCdf().draw  # the sampler's inverse CDFs
        self.moves: dict[tuple, BlockState] = {}  # the sampler's transitions, remembered (it makes them per draft)

    def kept(self, state: BlockState, x: int, block: int) -> BlockState:
        """The variant's :meth:`Variant.after_kept`, remembered."""
        key = (state, x, block)
        after = self.moves.get(key)
        if after is None:
            after = self.moves[key] = self.variant.after_kept(state, x, self.model.stop, block)
        return after

    def replaced(self, state: BlockState, x: int, y: int, block: int) -> BlockState:
        """The variant's :meth:`Variant.after_replaced`, remembered."""
        key = (state, x, y, block)
        after = self.moves.get(key)
        if after is None:
            after = self.moves[key] = self.variant.after_replaced(state, x, y, self.model.stop, block)
        return after

    def draft(self, t: int, draft_ctx: int) -> Row:
        key = (t, draft_ctx)
        if key not in self.drafts:
            self.drafts[key] = rules(self.variant, "draft", self.model.p(t), self.model.q(draft_ctx))
        return self.drafts[key]

    def test(self, t: int, x: int) -> tuple[Fraction, Row | None]:
        """(keep probability of x at history t, the replacement's law if x can be rejected)."""
        key = (t, x)
        if key not in self.tests:
            p_row, q_row = self.model.p(t), self.model.q(t)
            keep = rules(self.variant, "accept", p_row, q_row, x)
            replacement = None if keep == 1 else rules(self.variant, "correction", p_row, q_row, x)
            self.tests[key] = (keep, replacement)
        return self.tests[key]

    def passes(self, t: int, x: int, u: float) -> bool:
        """u < keep probability, exactly: the float comparison decides unless u is within 1e-12 of it."""
        key = (t, x)
        if key not in self.thresholds:
            self.thresholds[key] = float(self.test(t, x)[0])
        threshold = self.thresholds[key]
        if abs(u - threshold) > 1e-12:
            return u < threshold
        return u < self.test(t, x)[0]

    def sampled_law(self, t: int, x: int) -> Row:
        """The law whose CDF the sampler inverts for a replacement of x at history t."""
        key = (t, x)
        if key not in self.laws:
            self.laws[key] = rules(self.variant, "inverse_cdf", self.model.p(t), self.model.q(t), x)
        return self.laws[key]


def _step_moves(model: MarkovModel, block: int, variant: Variant, rule_set: _Rules, t: int, state: Hidden) -> dict:
    """The exact moves (y, next state) -> probability from history ``t`` in ``state``: every draft, test and
    replacement the sampler could make, weighted, each moved by the variant's block-level rules."""
    stop = model.stop
    out: dict[tuple[int, Hidden], Fraction] = defaultdict(Fraction)
    if state.drafted == block:  # all drafts passed: one bonus token from p at the verified history, and the block ends
        for y, mass in enumerate(model.p(t)):
            if mass:
                out[(y, variant.block_ended(state, y, stop))] += mass
        return out
    for x, drafted in enumerate(rule_set.draft(t, t if state.draft_context is None else state.draft_context)):
        if not drafted:
            continue
        keep, replacement = rule_set.test(t, x)
        if keep:
            out[(x, variant.after_kept(state, x, stop, block))] += drafted * keep
        if replacement is None:
            continue
        weight = drafted * (1 - keep)
        for y, mass in enumerate(replacement):
            if mass:
                out[(y, variant.after_replaced(state, x, y, stop, block))] += weight * mass
    return out


def block_chain(model: MarkovModel, block: int, variant: Variant | str = CORRECT) -> BlockChain:
    """Explore every (history, hidden state) reachable from the first position, with exact moves."""
    variant = get_variant(variant)
    rule_set = _Rules(model, variant)
    exact: dict[tuple[int, Hidden], dict] = {}
    todo = [(START, FRESH)]
    while todo:
        state = todo.pop()
        if state in exact:
            continue
        exact[state] = moves = _step_moves(model, block, variant, rule_set, *state)
        todo.extend((y, after) for y, after in moves if after != DONE and (y, after) not in exact)
    scale = math.lcm(*(w.denominator for moves in exact.values() for w in moves.values()), 1)
    # Stored as plain tuples (equal to the named states), one object per state: CPython's collector stops
    # tracking a plain tuple of plain values, never a NamedTuple, and so skips the forward pass's thousands of
    # per-prefix dicts keyed by them (bench/bench_block_law.py shows the difference); one object per state
    # lets the forward pass match keys by identity.
    one: dict[Hidden, tuple] = {}
    return BlockChain(
        scale,
        {
            (t, one.setdefault(hidden, tuple(hidden))): tuple(
                (y, one.setdefault(after, tuple(after)), int(w * scale))
                for (y, after), w in sorted(moves.items(), key=_move_order)
                if w
            )
            for (t, hidden), moves in exact.items()
        },
    )


def _move_order(item) -> tuple:
    (y, (j, d, rejected, stopped)), _ = item
    return (y, j, -1 if d is None else d, rejected, stopped)


def count_outcomes(emitted: dict[int, frozenset[int]], length: int, can_end: bool = False) -> int:
    """How many sequences of ``length`` tokens the moves can commit (paths from the first position):
    an upper bound on the law's support, counted in L * V^2 steps without building the law. When an
    output can end before ``length`` (a stop token), every shorter path counts too."""
    ways = {START: 1}
    shorter = 0
    for _ in range(length):
        nxt: dict[int, int] = defaultdict(int)
        for t, n in ways.items():
            for y in emitted.get(t, ()):
                nxt[y] += n
        ways = nxt
        shorter += sum(ways.values())
    return shorter if can_end else sum(ways.values())


def forward_law(chain: BlockChain, length: int) -> Law:
    """The law of complete outputs of at most ``length`` committed tokens: a forward pass over prefixes
    (an output is complete when its prefix reaches DONE, or when it has ``length`` tokens)."""
    level: dict[tuple[int, ...], dict[Hidden, int]] = {(): {FRESH: 1}}
    moves = chain.moves
    totals: dict[tuple[int, ...], int] = defaultdict(int)  # masses over scale ** length
    for n in range(1, length + 1):
        last = n == length
        lift = chain.scale ** (length - n)  # an output ending here: its mass over scale ** length
        nxt: dict[tuple[int, ...], dict[Hidden, int]] = {}
        for prefix, masses in level.items():
            t = prefix[-1] if prefix else START
            for hidden, mass in masses.items():
                for y, after, weight in moves[(t, hidden)]:
                    if last:  # the last token: only the total mass of each sequence is needed
                        totals[prefix + (y,)] += mass * weight
                    elif after == DONE:
                        totals[prefix + (y,)] += mass * weight * lift
                    else:
                        child = nxt.setdefault(prefix + (y,), {})
                        child[after] = child.get(after, 0) + mass * weight
        level = nxt
    denominator = chain.scale**length
    return {seq: Fraction(mass, denominator) for seq, mass in sorted(totals.items()) if mass}


def speculative_law(
    model: MarkovModel, block: int, length: int, variant: Variant | str = CORRECT, allow_large: bool = False
) -> Law:
    """Exact law of the first ``length`` committed tokens under block decoding with K = ``block``."""
    variant = get_variant(variant)
    check_block_args(model, block, length, allow_large)
    chain = block_chain(model, block, variant)
    check_outcomes(model, chain, length, allow_large)
    return forward_law(chain, length)


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


def compare_laws(
    model: MarkovModel, block: int, length: int, variant: Variant | str = CORRECT, allow_large: bool = False
) -> LawComparison:
    variant = get_variant(variant)
    spec = speculative_law(model, block, length, variant, allow_large)
    target = target_law(model, length)
    return LawComparison(model, block, length, variant, target, spec, total_variation(target, spec))


# --- sampling ---------------------------------------------------------------------------------


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
    ends_output: bool = False  # the output is complete after this block (it committed the stop token)
    reached_length: bool = False  # the block filled the output to its maximum length L

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


class _Played(NamedTuple):
    """One sampled block, before it is dressed as a trace."""

    drafts: tuple[int, ...]
    committed: tuple[int, ...]
    rejection: int | None
    bonus: int | None
    bonus_u: float | None
    full: bool
    ended: bool  # the rules ended the output with this block


def _play_block(
    model: MarkovModel,
    block: int,
    prev: int,
    streams: Streams,
    variant: Variant,
    rule_set: _Rules,
    room: int | None,
    tests: list[DraftTest] | None,
) -> _Played:
    """Sample one block; each test goes into ``tests`` (None: not recorded, for fast simulation). The state
    moves by the same block-level rules as the exact chain: a draft is tested while the state says this
    block has tested every draft before it."""
    stop = model.stop
    limit = block if room is None else min(block, room)
    drafts: list[int] = []
    draft_probs: list[Fraction] = []
    ctx = prev
    for _ in range(limit):  # the draft runs ahead on its own tokens
        proposal = rule_set.draft(ctx, ctx)
        x = rule_set.draw(("draft", ctx), proposal, streams.proposal.random())
        drafts.append(x)
        draft_probs.append(proposal[x])
        ctx = x
        if x == stop and not variant.drafts_past_stop:  # nothing is drafted after a proposed stop token
            break
    committed: list[int] = []
    state = FRESH
    test_ctx = prev
    rejection = None
    for i, x in enumerate(drafts):
        if state.drafted != i:  # the block ended (a rejection, or a committed stop token): discarded
            if tests is not None:
                tests.append(DraftTest(i, x, draft_probs[i], ZERO, ZERO, ZERO, None, "discarded", test_ctx))
            continue
        u = streams.acceptance.random()
        if rule_set.passes(test_ctx, x, u):  # u in [0, 1): keep == 1 always passes, keep == 0 never does
            committed.append(x)
            if tests is not None:
                p_row, q_row, keep = model.p(test_ctx), model.q(test_ctx), rule_set.test(test_ctx, x)[0]
                tests.append(DraftTest(i, x, draft_probs[i], p_row[x], q_row[x], keep, u, "accepted", test_ctx))
            test_ctx = x
            state = rule_set.kept(state, x, block)
            continue
        law = rule_set.sampled_law(test_ctx, x)
        w = u if variant.reuses_acceptance_uniform else streams.correction.random()
        y = rule_set.draw(("correction", test_ctx, x), law, w)
        committed.append(y)
        if tests is not None:
            p_row, q_row, keep = model.p(test_ctx), model.q(test_ctx), rule_set.test(test_ctx, x)[0]
            tests.append(DraftTest(i, x, draft_probs[i], p_row[x], q_row[x], keep, u, "rejected", test_ctx, law, y, w))
        test_ctx = y
        if rejection is None:
            rejection = i
        state = rule_set.replaced(state, x, y, block)
    bonus = bonus_u = None
    full = room is not None and len(committed) >= room
    if state.drafted == block and not full:  # every draft passed: the bonus token from p
        bonus_u = streams.correction.random()
        bonus = rule_set.draw(("bonus", test_ctx), model.p(test_ctx), bonus_u)
        committed.append(bonus)
        state = variant.block_ended(state, bonus, stop)
    ended = state == DONE or state.stopped  # stopped: a mistake went on past the stop token, to the block's end
    return _Played(tuple(drafts), tuple(committed), rejection, bonus, bonus_u, full, ended)


def run_block(
    model: MarkovModel,
    block: int,
    prev: int,
    streams: Streams,
    variant: Variant | str = CORRECT,
    room: int | None = None,
) -> BlockTrace:
    """Sample one block from history ``prev`` and return its :class:`BlockTrace` (every draft and test).

    ``room``: how many more tokens the output may hold (the maximum length cuts the block: at most
    ``room`` drafts, and no bonus once the output is full). The draft drafts nothing after a proposed stop
    token; a kept or corrected stop token ends the block with no bonus (the output is complete)."""
    variant = get_variant(variant)
    tests: list[DraftTest] = []
    played = _play_block(model, block, prev, streams, variant, _Rules(model, variant), room, tests)
    committed = played.committed
    return BlockTrace(
        variant, prev, block, played.drafts, tuple(tests), played.rejection, played.bonus, played.bonus_u,
        committed, played.ended,
        played.full or (room is not None and len(committed) >= room),
    )  # fmt: skip


@dataclass
class BlockWork:
    """What a run of block decoding did: blocks run and tokens they committed (before the cut at L)."""

    blocks: int = 0
    tokens: int = 0


def block_outputs(
    model: MarkovModel,
    block: int,
    length: int,
    sequences: int,
    streams: Streams,
    variant: Variant | str = CORRECT,
    work: BlockWork | None = None,
):
    """``sequences`` outputs of block decoding, one after another from ``streams``: blocks are run until an
    output has ``length`` tokens or a block ended it (the stop token); each output is cut to ``length``.
    (Callers check the sizes first: see :func:`simulate_blocks`.)"""
    variant = get_variant(variant)
    rule_set = _Rules(model, variant)
    work = BlockWork() if work is None else work
    for _ in range(sequences):
        seq: tuple[int, ...] = ()
        while len(seq) < length:
            last = seq[-1] if seq else START
            played = _play_block(model, block, last, streams, variant, rule_set, None, None)
            chunk = played.committed
            work.blocks += 1
            work.tokens += len(chunk)
            seq += chunk
            if played.ended:  # the output is complete (the stop token was committed)
                break
        yield seq[:length]


def check_sequences(sequences, allow_large: bool = False) -> int:
    """A number of simulated outputs within the lab's limit (TooLargeError above it)."""
    if isinstance(sequences, bool) or not isinstance(sequences, int) or sequences < 1:
        raise BlockInputError(f"the number of steps must be >= 1 (got {sequences})")
    limit = LARGE_MAX_SIM_SEQUENCES if allow_large else MAX_SIM_SEQUENCES
    if sequences > limit:
        raise TooLargeError(f"{sequences:,} simulated sequences is above the lab's limit of {limit:,}")
    return sequences


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
    model: MarkovModel,
    block: int,
    length: int,
    sequences: int,
    seed: int,
    variant: Variant | str = CORRECT,
    allow_large: bool = False,
) -> BlockSimulation:
    """Generate ``sequences`` independent outputs by block decoding until each has ``length`` tokens or
    ended with the stop token; count them (cut to ``length``) and test the counts against the exact laws."""
    variant = get_variant(variant)
    check_block_args(model, block, length, allow_large)
    check_sequences(sequences, allow_large)
    law = speculative_law(model, block, length, variant, allow_large)  # checks the law's size first
    counts: dict[tuple[int, ...], int] = defaultdict(int)
    work = BlockWork()
    for seq in block_outputs(model, block, length, sequences, make_streams(seed), variant, work):
        counts[seq] += 1
    blocks, tokens = work.blocks, work.tokens
    target = target_law(model, length)
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
