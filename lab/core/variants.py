"""The per-position rules of speculative sampling, and the named mistakes people make with them.

A :class:`Variant` answers four questions at one position, given the target row ``p`` and the
draft row ``q`` (tuples of Fractions over the whole vocabulary) of the *verified* history:

- ``draft(q)``: the distribution the draft actually samples its proposal from;
- ``accept_probability(p, q, x)``: the chance the proposal ``x`` is kept (the test uses ``q``);
- ``correction(p, q, x)``: the exact law of the replacement after ``x`` was rejected;
- ``inverse_cdf_law(p, q, x)``: the distribution whose CDF the sampler inverts to draw that
  replacement, with a fresh uniform (or, for ``reuse-uniform``, the acceptance test's uniform).

plus the block-level rules, which move a :class:`BlockState` after each committed token:
``after_kept``, ``after_replaced`` and ``block_ended``. The correct ones read three switches:
``keep_testing`` (after a replacement, go on testing the later drafts), ``drafts_past_stop`` (draft and test
on after a proposed stop token) and ``bonus_after_stop`` (a bonus token after a kept stop token). The last
two make the mistakes at the stop token (``draft-past-stop``, ``bonus-after-stop``): they change nothing on a
model without one (``stop_only``). A new mistake is a subclass that overrides one of these methods (or sets
one switch); its card, with the words a reader sees, lives in :mod:`lab.teaching.pitfalls`.

The block engine (:mod:`lab.core.blocks`: its exact chain and its sampler) and the one-step simulator
(:mod:`lab.core.sampling`) run every variant through these same methods, exactly (Fractions) and by
simulation (float64).

``correct`` is the algorithm itself (draft = q, accept min(1, p/q), replacement from
r = max(0, p - q) / Z, first rejection ends the block). Every other entry of :data:`VARIANTS`
is a mistake; each changes the output law on a model whose draft rows have 3+ positive entries (a
stop-token mistake: on a model with a stop token that the draft can propose where the target may keep it).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from lab.core.distributions import LabInputError
from lab.core.residual import exact_z_and_residual

Row = tuple[Fraction, ...]
ZERO = Fraction(0)
ONE = Fraction(1)
EPSILON = Fraction(1, 1000)


class VariantError(LabInputError):
    """An unknown variant name."""


def normalized(weights) -> Row:
    total = sum(weights, ZERO)
    return tuple(Fraction(w) / total for w in weights)


def residual_row(p: Row, q: Row) -> Row | None:
    """r = max(0, p - q) / Z over the whole vocabulary; None when Z = 0 (no 0/0, no floor)."""
    return exact_z_and_residual(p, q)[1]


def top_tokens(q: Row, count: int = 2) -> tuple[int, ...]:
    """Indices of q's ``count`` most likely tokens with positive mass (ties: vocabulary order)."""
    order = sorted((i for i, v in enumerate(q) if v > 0), key=lambda i: (-q[i], i))
    return tuple(sorted(order[:count]))


def one_hot(size: int, index: int) -> Row:
    return tuple(ONE if i == index else ZERO for i in range(size))


class BlockState(NamedTuple):
    """Where a block stands after a committed token, beside the verified history (its last token t): the
    hidden state of the block engine (lab.core.blocks), which the exact chain and the sampler both move by
    the rules :meth:`Variant.after_kept`, :meth:`Variant.after_replaced` and :meth:`Variant.block_ended`."""

    drafted: int  # drafts of this block tested so far; == K: every draft passed and the bonus from p is next
    draft_context: int | None  # the draft's own context; None: the same as t (always, in the correct algorithm)
    replaced: bool  # a replacement was committed in this block (only keep-testing goes on; no bonus then)
    stopped: bool  # a mistake committed the stop token in this block and went on (the output ends with the block)


FRESH = BlockState(0, None, False, False)  # a new block: no draft yet, drafting from the verified history
DONE = BlockState(-1, None, False, True)  # the output ended (the stop token was committed): no move from here


def settle(state: BlockState, block: int) -> BlockState:
    """A block that tested all K drafts after a replacement ends without a bonus: a fresh block (or the end
    of the output, if a mistake went on past a committed stop token in it)."""
    if state.drafted == block and state.replaced:
        return DONE if state.stopped else FRESH
    return state


class Variant:
    """The correct algorithm; subclasses override one rule each to make a named mistake."""

    name = "correct"
    keep_testing = False  # block-level: test later drafts after a replacement
    drafts_past_stop = False  # block-level: draft and test on after a proposed stop token, emit what is kept
    bonus_after_stop = False  # block-level: a bonus token after a kept stop token that ended the draft run
    stop_only = False  # a mistake only a model with a stop token can show
    reuses_acceptance_uniform = False  # the replacement inverts inverse_cdf_law at the test's uniform
    one_step_differs = False  # whether a single step (K = 1, L = 1) already shows the mistake

    def draft(self, q: Row) -> Row:
        return q

    def accept_probability(self, p: Row, q: Row, x: int) -> Fraction:
        """min(1, p(x)/q(x)). q(x) = 0 only happens when a variant tests a token the row's draft
        never proposes (keep-testing-after-rejection): then keep x iff p(x) > 0 (ratio infinite)."""
        if q[x] == 0:
            return ONE if p[x] > 0 else ZERO
        return min(ONE, p[x] / q[x])

    def correction(self, p: Row, q: Row, x: int) -> Row:
        """Law of the replacement given that x was rejected at this position."""
        return self.inverse_cdf_law(p, q, x)

    def inverse_cdf_law(self, p: Row, q: Row, x: int) -> Row:
        r = residual_row(p, q)
        # A rejection implies some p(x) < q(x), hence Z > 0. The one exception is a variant testing a
        # token with p(x) = q(x) = 0 in a row where p = q (keep-testing): r is undefined there, so the
        # mistaken sampler falls back to p. The correct algorithm never reaches this line with Z = 0.
        return r if r is not None else p

    # The block-level rules: the state after each committed token. Stop semantics of the correct algorithm:
    # the draft drafts nothing after a proposed stop token; a kept or corrected stop token ends the output
    # (no bonus, later drafts discarded).

    def after_kept(self, state: BlockState, x: int, stop: int | None, block: int) -> BlockState:
        """Draft x passed its test and is committed (it becomes both contexts)."""
        if x != stop:
            return settle(BlockState(state.drafted + 1, None, state.replaced, state.stopped), block)
        if self.drafts_past_stop:  # the mistake: the drafts after the stop token are still tested
            return settle(BlockState(state.drafted + 1, None, state.replaced, True), block)
        if self.bonus_after_stop:  # the mistake: the draft run ended at the stop token, all kept: a bonus
            return BlockState(block, None, state.replaced, True)
        return DONE  # the output ends at the stop token: no bonus, nothing after it

    def after_replaced(self, state: BlockState, x: int, y: int, stop: int | None, block: int) -> BlockState:
        """Draft x was rejected and the replacement y committed in its place."""
        if y == stop:  # a corrected stop token ends the output (every variant keeps that rule)
            return DONE
        if self.keep_testing and x != stop:  # the mistake: the drafts made after x are still tested
            return settle(BlockState(state.drafted + 1, None if x == y else x, True, state.stopped), block)
        return self.block_ended(state, y, stop)  # the first rejection ends the block; later drafts discarded

    def block_ended(self, state: BlockState, y: int, stop: int | None) -> BlockState:
        """After the block's last committed token y: the output ends, or a new block starts."""
        return DONE if state.stopped or y == stop else FRESH

    def __repr__(self) -> str:
        return f"<variant {self.name}>"


class ResampleFromP(Variant):
    name = "resample-from-p"
    one_step_differs = True

    def inverse_cdf_law(self, p, q, x):
        return p


class EpsilonFloor(Variant):
    name = "epsilon-floor"
    one_step_differs = True
    floor = EPSILON  # an instance may set another (the sampler check sizes the floor it finds)

    def inverse_cdf_law(self, p, q, x):
        return normalized([max(a - b, self.floor) for a, b in zip(p, q)])


class ZeroOutRejected(Variant):
    name = "zero-out-rejected"
    one_step_differs = True

    def inverse_cdf_law(self, p, q, x):
        # Rejection needs p(x) < q(x) <= 1, so the rest of p has mass 1 - p(x) > 0.
        return normalized([ZERO if i == x else v for i, v in enumerate(p)])


class CandidatesOnly(Variant):
    name = "candidates-only"
    one_step_differs = True

    def inverse_cdf_law(self, p, q, x):
        candidates = top_tokens(q, 2)
        weights = [max(ZERO, p[i] - q[i]) if i in candidates else ZERO for i in range(len(p))]
        if sum(weights, ZERO) == 0:  # r has no mass on the candidates: the mistaken code picks by p among them
            weights = [p[i] if i in candidates else ZERO for i in range(len(p))]
        if sum(weights, ZERO) == 0:
            return p
        return normalized(weights)


class KeepTestingAfterRejection(Variant):
    name = "keep-testing-after-rejection"
    keep_testing = True


class ReuseUniform(Variant):
    name = "reuse-uniform"
    reuses_acceptance_uniform = True
    one_step_differs = True

    def correction(self, p, q, x):
        # Rejected means u >= a = p(x)/q(x), so u is uniform on [a, 1); inverse CDF of r picks token y
        # when u lies in [C(y-1), C(y)). Its probability is the overlap length divided by 1 - a.
        a = p[x] / q[x] if q[x] > 0 else ZERO
        r = self.inverse_cdf_law(p, q, x)
        law = []
        low = ZERO
        for mass in r:
            high = low + mass
            overlap = max(ZERO, min(high, ONE) - max(low, a))
            law.append(overlap / (1 - a))
            low = high
        return tuple(law)


class UnprocessedDraft(Variant):
    name = "unprocessed-draft"
    one_step_differs = True

    def draft(self, q):
        keep = top_tokens(q, 2)
        return normalized([v if i in keep else ZERO for i, v in enumerate(q)])


class GreedyDraft(Variant):
    name = "greedy-draft"
    one_step_differs = True

    def draft(self, q):
        return one_hot(len(q), top_tokens(q, 1)[0])


class DraftPastStop(Variant):
    name = "draft-past-stop"
    drafts_past_stop = True
    stop_only = True


class BonusAfterStop(Variant):
    name = "bonus-after-stop"
    bonus_after_stop = True
    stop_only = True


CORRECT = Variant()
VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        CORRECT,
        ResampleFromP(),
        EpsilonFloor(),
        ZeroOutRejected(),
        CandidatesOnly(),
        KeepTestingAfterRejection(),
        ReuseUniform(),
        UnprocessedDraft(),
        GreedyDraft(),
        DraftPastStop(),
        BonusAfterStop(),
    )
}
VARIANT_NAMES = tuple(VARIANTS)
MISTAKE_NAMES = tuple(name for name in VARIANTS if name != "correct")


def get_variant(name: str | Variant) -> Variant:
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name]
    except KeyError:
        raise VariantError(f"unknown variant {name!r} (known: {', '.join(VARIANT_NAMES)})") from None


@lru_cache(maxsize=65536)
def _cached(variant_name: str, method: str, p: Row, q: Row, x: int | None):
    variant = VARIANTS[variant_name]
    if method == "draft":
        return variant.draft(q)
    if method == "accept":
        return variant.accept_probability(p, q, x)
    if method == "correction":
        return variant.correction(p, q, x)
    return variant.inverse_cdf_law(p, q, x)


def rules(variant: Variant, method: str, p: Row, q: Row, x: int | None = None):
    """Memoised access to a registered variant's rule (exact enumeration calls these many times)."""
    if VARIANTS.get(variant.name) is not variant:
        return {
            "draft": lambda: variant.draft(q),
            "accept": lambda: variant.accept_probability(p, q, x),
            "correction": lambda: variant.correction(p, q, x),
            "inverse_cdf": lambda: variant.inverse_cdf_law(p, q, x),
        }[method]()
    return _cached(variant.name, method, p, q, x)
