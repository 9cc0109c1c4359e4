"""Several drafts at one position, and token trees: the exact law of every verification rule, its mistakes,
and the best acceptance any verifier can reach.

At one *node* the target row ``p`` and the draft row ``q`` (whole vocabulary) are given, and K *candidates*
are tested in order. A candidate that is kept is the node's output; when every candidate is rejected the
node's output is a *correction*, one fresh draw. The rules (:data:`RULES`):

- ``with-replacement`` (SpecInfer's multi-step speculative sampling): K independent drafts from q. With
  p₁ = p, candidate xᵢ is kept with probability min(1, pᵢ(xᵢ)/q(xᵢ)); on rejection
  pᵢ₊₁ = max(0, pᵢ − q)/Zᵢ. All K rejected: the correction is a draw from p_{K+1}.
- ``without-replacement``: K distinct drafts, each from the draft with the earlier candidates removed
  (renormalised). On rejecting xᵢ: pᵢ₊₁ = max(0, pᵢ − qᵢ)/Zᵢ with the draft qᵢ that proposed it, then
  qᵢ₊₁ = qᵢ without xᵢ, renormalised.
- ``top-k`` (EAGLE-2/3, SGLang, vLLM): the K most likely tokens of q (ties by vocabulary order), each a
  one-hot draft: cᵢ kept with probability pᵢ(cᵢ); on rejection pᵢ₊₁ = pᵢ without cᵢ, renormalised.

Zᵢ = 0 at a stage means no candidate can be rejected there (pᵢ = qᵢ, or pᵢ(cᵢ) = 1): the next residual is
never formed (no 0/0, no floor). Each correct rule's law is the target's, exactly: :func:`node_law` computes
it, it does not assume it.

The engine is a small graph (:class:`NodeGraph`): each *stage* is the state before candidate i is drawn
(its residual target pᵢ, its draft qᵢ, the law the candidate is drawn from, each candidate's keep
probability and the stage after rejecting it); the last stage holds the correction's law. The exact law
adds masses over the graph; the sampler (:func:`simulate_node`) walks it with three independent numpy
streams (proposal, acceptance, correction), so the same rules run both ways. A mistake
(:data:`DRAFT_MISTAKES`) changes one rule of the graph.

A *tree* of widths (w₁, …, w_d) applies the node rule at each depth with the target and draft conditioned
on the accepted path: the accepted child's subtree is verified next; when all of a node's children are
rejected the correction ends the block; an accepted leaf at depth d adds a bonus token from the target.
Nothing is drafted after a proposed stop token, and a kept or corrected stop token ends the output.
:func:`tree_chain` writes this as the block engine's hidden chain (:class:`lab.core.blocks.BlockChain`, the
hidden state being the depth), so the law of L tokens comes from the same forward pass as block decoding.

α* (:func:`best_acceptance`): for the law of the candidate set a rule draws, no verifier whose output
follows p keeps a candidate more often than min over token sets H of [p(H) + P(some candidate ∉ H)]
(max-flow / min-cut on the couplings of the output with the candidates).
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lab.core.blocks import (
    MAX_SIM_SEQUENCES,
    BlockChain,
    BlockInputError,
    Law,
    TooLargeError,
    check_outcomes,
    forward_law,
    target_law,
)
from lab.core.distance import total_variation
from lab.core.errors import said, said_of
from lab.core.markov import START, MarkovModel
from lab.core.sampling import ChiSquareResult, chi_square_test, float_cdf, make_streams
from lab.core.variants import DONE, FRESH

Row = tuple[Fraction, ...]
ZERO = Fraction(0)
ONE = Fraction(1)

RULES = ("with-replacement", "without-replacement", "top-k")

# Bounded work: a node's graph is built stage by stage; a rule that keeps track of which candidates came
# before (without replacement, and the mistakes that look at the candidate set) has up to V!/(V-K)! stages.
# Each stage tests every token its candidate can be and forms a residual over the vocabulary: its cost is
# counted in token operations (candidates × vocabulary), and a node (or a whole tree) stops at this bound.
MAX_NODE_WORK = 100_000
MAX_CANDIDATES = 16
MAX_TREE_NODES = 64  # candidates in a whole tree (the sum over depths of w₁·…·wᵢ): what a verifier would lay out
MAX_TREE_DEPTH = 8
MAX_BEST_TOKENS = 12  # α* enumerates the subsets of the candidates' support: 2^12 sets at most

# Medusa's typical acceptance (FasterDecoding/Medusa, medusa/model/utils.py): its default settings
TYPICAL_EPSILON = 0.09
TYPICAL_DELTA = 0.3
# SGLang's thresholds below 1 (server arguments speculative_accept_threshold_acc / _single; 1 is exact)
THRESHOLD_BELOW_ONE = Fraction(1, 2)


class DraftsInputError(BlockInputError):
    """Candidates, a rule, a variant or a tree the engine cannot take (the message names it)."""


@dataclass(frozen=True)
class DraftMistake:
    name: str
    rules: tuple[str, ...]  # the rules it is a mistake of
    title: str
    description: str


DRAFT_MISTAKES: dict[str, DraftMistake] = {
    m.name: m
    for m in (
        DraftMistake(
            "no-update",
            ("with-replacement",),
            said("Every candidate tested against p"),
            said("Each candidate is tested with min(1, p/q) against the original target, and the correction comes from "
            "max(0, p - q)/Z: the residual is never updated between candidates, so a token's missing mass is "
            "handed out once per candidate."),
        ),
        DraftMistake(
            "stale-draft",
            ("without-replacement",),
            said("Tests made with the original draft"),
            said("Candidates are drawn without replacement, but each is tested, and each residual formed, with the "
            "original q instead of the renormalised draft that proposed it."),
        ),
        DraftMistake(
            "top-k-with-q",
            ("top-k",),
            said("Top-k candidates tested with q"),
            said("The K most likely tokens of q are tested with min(1, p/q) and residuals max(0, p - q), as if they "
                 "had "
            "been drawn from q. They were chosen, not drawn: each is a one-hot draft (kept with probability p)."),
        ),
        DraftMistake(
            "correction-from-candidates",
            RULES,
            said("Correction among the candidates"),
            said("When every candidate is rejected, the replacement is drawn from p restricted to the candidates "
            "(renormalised) instead of from the residual left by the last rejection, over the whole vocabulary."),
        ),
        DraftMistake(
            "last-residual-only",
            RULES,
            said("Only the last candidate's residual"),
            said("When every candidate is rejected, the replacement comes from max(0, p - q)/Z of the original target "
            "and the last candidate's draft: the residuals the earlier rejections left are forgotten."),
        ),
        DraftMistake(
            "skip-duplicates",
            ("with-replacement",),
            said("A repeated candidate skipped"),
            said("A candidate equal to one already rejected is skipped, so the residual is updated once where the rule "
            "updates it at every independent draft (a repeated draft must be tested, and rejected, again)."),
        ),
        DraftMistake(
            "threshold-acc",
            ("top-k",),
            said("Accumulated threshold below 1 (SGLang)"),
            said("SGLang's one coin per node keeps sibling j when coin <= (p(c1) + ... + p(cj)) / threshold_acc; with "
            "threshold_acc = 1/2 (below 1) candidates are kept more often than p says."),
        ),
        DraftMistake(
            "threshold-single",
            ("top-k",),
            said("Single threshold below 1 (SGLang)"),
            said("SGLang also keeps a sibling whenever its own target probability is at least threshold_single; with "
            "threshold_single = 1/2 (below 1) a likely candidate is always kept."),
        ),
        DraftMistake(
            "typical-acceptance",
            ("top-k",),
            said("Typical acceptance (Medusa)"),
            said("A candidate x is kept when p(x) > min(epsilon, delta * exp(-H(p))) (Medusa's defaults epsilon = "
                 "{epsilon}, delta = {delta}); otherwise the output is drawn from p. Lossy by design: it trades the "
                 "target's law for speed.", epsilon=TYPICAL_EPSILON, delta=TYPICAL_DELTA),
        ),
    )
}
DRAFT_VARIANT_NAMES = ("correct", *DRAFT_MISTAKES)


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise DraftsInputError(f"unknown rule {rule!r}: use one of {', '.join(RULES)}")
    return rule


def check_variant(variant: str, rule: str) -> str:
    if variant == "correct":
        return variant
    mistake = DRAFT_MISTAKES.get(variant)
    if mistake is None:
        raise DraftsInputError(
            f"unknown variant {variant!r} for several drafts: use correct or one of {', '.join(DRAFT_MISTAKES)}"
        )
    if rule not in mistake.rules:
        raise DraftsInputError(f"variant {variant!r} is a mistake of the {' / '.join(mistake.rules)} rule, not {rule}")
    return variant


def check_candidates(candidates: int, rule: str, q: Row) -> int:
    size = len(q)
    if isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1:
        raise DraftsInputError(f"candidates K must be a whole number >= 1 (got {candidates})")
    if candidates > MAX_CANDIDATES:
        raise DraftsInputError(said(
            "candidates K = {candidates} is above the lab's work bound of {limit} per node", candidates=candidates,
            limit=MAX_CANDIDATES,
        ))
    if rule in ("without-replacement", "top-k") and candidates > size:
        raise DraftsInputError(said(
            "candidates K = {candidates} is above the vocabulary's {size} tokens: the {rule} rule draws distinct "
            "candidates", candidates=candidates, size=size, rule=rule,
        ))
    if rule == "without-replacement":
        support = sum(1 for v in q if v)
        if candidates > support:
            raise DraftsInputError(said(
                "candidates K = {candidates} is above the {support} tokens the draft gives mass to: without "
                "replacement it cannot draw that many distinct candidates", candidates=candidates, support=support,
            ))
    return candidates


# --- rows -------------------------------------------------------------------------------------


def _normalized(row) -> Row:
    total = sum(row, ZERO)
    return tuple(v / total for v in row)


def _without(row: Row, token: int) -> Row | None:
    """``row`` with ``token`` set to 0, renormalised; None when nothing is left (never 0/0)."""
    kept = tuple(ZERO if i == token else v for i, v in enumerate(row))
    return _normalized(kept) if any(kept) else None


def _residual(p: Row, q: Row, floor: Fraction = ZERO) -> Row | None:
    """max(0, p − q)/Z over the whole vocabulary; None when Z = 0. ``floor`` f > 0: max(p − q, f) normalised, the
    epsilon floor some code adds (vLLM 0.5.4's clamp(p − q, min=tiny)): never None, and biased."""
    excess = tuple(max(a - b, floor) for a, b in zip(p, q))
    return _normalized(excess) if any(excess) else None


def _one_hot(size: int, token: int) -> Row:
    return tuple(ONE if i == token else ZERO for i in range(size))


def top_k(q: Row, count: int) -> tuple[int, ...]:
    """The ``count`` most likely tokens of q, ties by vocabulary order (zero-mass tokens last, in order)."""
    return tuple(sorted(range(len(q)), key=lambda i: (-q[i], i))[:count])


def entropy(p: Row) -> float:
    """H(p) in nats (float64: Medusa compares with exp(−H))."""
    return -sum(float(v) * math.log(float(v)) for v in p if v)


# --- one node's graph ---------------------------------------------------------------------------


@dataclass
class Stage:
    """The state before candidate ``position`` is drawn (``position`` = K + 1: the correction)."""

    position: int
    p: Row  # the residual target the candidate is tested against
    q: Row  # the draft that proposes it (one-hot for top-k)
    draws: dict[int, Fraction] = field(default_factory=dict)  # candidate -> probability it is the one drawn
    keep: dict[int, Fraction] = field(default_factory=dict)  # candidate -> probability it is kept
    after: dict[int, object] = field(default_factory=dict)  # candidate -> the stage after rejecting it
    correction: Row | None = None  # the last stage: the replacement's law


@dataclass(frozen=True)
class NodeGraph:
    rule: str
    variant: str
    candidates: int
    p: Row
    q: Row
    start: int
    stages: tuple[Stage, ...]  # by number (Stage.after holds numbers: rows of Fractions hash slowly)


class Budget:
    """Token operations left for one request (a node, or every node of a tree)."""

    def __init__(self, limit: int = MAX_NODE_WORK):
        self.left = limit

    def spend(self, cost: int, builder) -> None:
        self.left -= cost
        if self.left < 0:
            raise DraftsInputError(said(
                "{candidates} candidates over {size} tokens with the {rule} rule ({variant}) need more than the "
                "lab's work bound of {limit} token operations", candidates=builder.k, size=builder.size,
                rule=builder.rule, variant=builder.variant, limit=f"{MAX_NODE_WORK:,}",
            ))


class _Builder:
    def __init__(self, p: Row, q: Row, candidates: int, rule: str, variant: str, budget: Budget | None = None,
                 floor: Fraction = ZERO):
        self.p, self.q, self.k, self.rule, self.variant = p, q, candidates, rule, variant
        self.floor = floor
        self.budget = budget or Budget()
        self.by_history = variant in ("skip-duplicates", "correction-from-candidates")  # the candidates so far count
        self.size = len(p)
        self.ids: dict[object, int] = {}  # a stage's key -> its number
        self.stages: list[Stage] = []

    def build(self) -> NodeGraph:
        if self.rule == "top-k":
            self._top_k()
        else:
            self._sampled()
        return NodeGraph(self.rule, self.variant, self.k, self.p, self.q, 0, tuple(self.stages))

    def _add(self, key, stage: Stage) -> tuple[int, bool]:
        """The stage's number, and whether it is new (a known key is not added again: memoised)."""
        known = self.ids.get(key)
        if known is not None:
            return known, False
        # a stage tests each token it can draw and forms one residual; without replacement (or with a history in
        # the key) it also forms a next draft or a next key per token
        per_token = self.size if self.rule == "without-replacement" or self.by_history else 2
        self.budget.spend(per_token * sum(1 for v in stage.q if v), self)
        self.ids[key] = len(self.stages)
        self.stages.append(stage)
        return len(self.stages) - 1, True

    # top-k: the candidates are fixed, so the stages are a chain
    def _top_k(self) -> None:
        p, q, variant = self.p, self.q, self.variant
        cands = top_k(q, self.k)
        rest = tuple(ZERO if i in cands else v for i, v in enumerate(p))
        p_i = p
        taken = ZERO  # SGLang's prob_acc: target mass of the siblings tested so far
        reach = ONE  # (threshold variants) probability that the coin reached this sibling
        threshold_acc = THRESHOLD_BELOW_ONE if variant == "threshold-acc" else ONE
        threshold_single = THRESHOLD_BELOW_ONE if variant == "threshold-single" else ONE
        typical = min(TYPICAL_EPSILON, TYPICAL_DELTA * math.exp(-entropy(p)))
        for i, c in enumerate(cands, start=1):
            stage = Stage(i, p_i, _one_hot(self.size, c), draws={c: ONE})
            self._add(i, stage)
            if variant == "top-k-with-q":
                keep = ONE if not q[c] else min(ONE, p_i[c] / q[c])
                nxt = _residual(p_i, q) if keep < 1 else None
            elif variant in ("threshold-acc", "threshold-single"):
                # one coin u for the node: sibling j is the first kept when u <= S_j / threshold_acc (S_j the
                # target mass of siblings 1..j) or p(c_j) >= threshold_single; given the coin got here, u is
                # uniform above min(1, S_{j-1} / threshold_acc)
                before = min(ONE, taken / threshold_acc)
                taken += p[c]
                if p[c] >= threshold_single or reach == 0:
                    keep = ONE
                else:
                    keep = (min(ONE, taken / threshold_acc) - before) / (1 - before)
                reach *= 1 - keep
                nxt = _without(p_i, c) if keep < 1 else None
            elif variant == "typical-acceptance":
                keep = ONE if float(p[c]) > typical else ZERO
                nxt = p if keep < 1 else None
            else:  # the rule: a one-hot draft is kept with probability p_i(c)
                keep = p_i[c]
                if self.floor:  # max(p_i − one-hot(c), f): p_i without c, and f on c and every zero
                    nxt = _residual(p_i, _one_hot(self.size, c), self.floor) if keep < 1 else None
                else:
                    nxt = _without(p_i, c) if keep < 1 else None
            stage.keep[c] = keep
            if nxt is None:  # this candidate is always kept: no later stage, no correction
                return
            stage.after[c] = i  # the next stage's number (stage i + 1 is number i)
            p_i = nxt
        if variant in ("threshold-acc", "threshold-single"):
            correction = _normalized(rest)  # relu(p - draft_probs), the rejected siblings' mass removed
        elif variant == "typical-acceptance":
            correction = p
        elif variant == "correction-from-candidates":
            on = tuple(v if i in cands else ZERO for i, v in enumerate(p))
            correction = _normalized(on) if any(on) else p_i
        elif variant == "last-residual-only":
            correction = _without(p, cands[-1]) or p_i
        else:
            correction = p_i
        self._add(self.k + 1, Stage(self.k + 1, p_i, q, correction=correction))

    # with and without replacement: candidates are drawn, so stages branch on what was drawn
    def _sampled(self):
        start = self._key(1, self.p, self.q, (), None)
        self._add(start, Stage(1, self.p, self.q))
        todo = [(start, 0, ())]
        while todo:
            key, number, history = todo.pop()
            stage = self.stages[number]
            if stage.position > self.k:
                stage.correction = self._correction(key, stage, history)
                continue
            self._expand(stage, history, todo)

    def _key(self, position: int, p_i: Row, q_i: Row, history: tuple[int, ...], last_q: Row | None):
        extra = None
        if self.by_history:
            extra = frozenset(history)
        elif self.variant == "last-residual-only" and position > self.k:
            extra = last_q
        return (position, p_i, q_i, extra)

    def _expand(self, stage: Stage, history: tuple[int, ...], todo: list) -> None:
        p, q, variant, rule = self.p, self.q, self.variant, self.rule
        p_i, q_i = stage.p, stage.q
        target = p if variant == "no-update" else p_i
        tested_q = q if variant == "stale-draft" else q_i
        residual = None  # max(0, target − tested_q)/Z: the same for every rejected candidate, formed once
        known: dict[tuple[int, int], int] = {}  # (id of next p, id of next q) -> stage number, without a history
        for x, drawn in enumerate(q_i):
            if not drawn:
                continue
            stage.draws[x] = drawn
            if variant == "skip-duplicates" and x in history:  # skipped: no test, no update
                stage.keep[x] = ZERO
                nxt_p = p_i
            else:
                keep = min(ONE, target[x] / tested_q[x]) if tested_q[x] else ONE
                stage.keep[x] = keep
                if keep == 1:
                    continue
                if residual is None:
                    residual = _residual(target, tested_q, self.floor)
                if residual is None:  # cannot happen when keep < 1 (Z > 0 then); kept as the no-0/0 guard
                    stage.keep[x] = ONE
                    continue
                nxt_p = residual
            nxt_q = q_i
            if rule == "without-replacement" and stage.position < self.k:
                nxt_q = _without(q_i, x)
            shared = (id(nxt_p), id(nxt_q)) if not self.by_history else None
            after = known.get(shared) if shared else None
            if after is None:
                key = self._key(stage.position + 1, nxt_p, nxt_q, history + (x,), q_i)
                after, new = self._add(key, Stage(stage.position + 1, nxt_p, nxt_q))
                if shared:
                    known[shared] = after
                if new:
                    todo.append((key, after, history + (x,)))
            stage.after[x] = after

    def _correction(self, key, stage: Stage, history: tuple[int, ...]) -> Row:
        p, variant = self.p, self.variant
        if variant == "no-update":
            return _residual(p, self.q) or p  # Z = 0: nothing was ever rejected (never reached)
        if variant == "correction-from-candidates":
            on = tuple(v if i in history else ZERO for i, v in enumerate(p))
            return _normalized(on) if any(on) else stage.p
        if variant == "last-residual-only":
            return _residual(p, key[3]) or stage.p  # the key holds the last candidate's draft
        return stage.p


def node_graph(
    p: Row,
    q: Row,
    candidates: int,
    rule: str = "with-replacement",
    variant: str = "correct",
    budget: Budget | None = None,
    floor: Fraction = ZERO,
) -> NodeGraph:
    """``floor`` f > 0 (the correct rule only): every residual is max(p − q, f) normalised, an epsilon floor."""
    rule = check_rule(rule)
    variant = check_variant(variant, rule)
    if len(p) != len(q):
        raise DraftsInputError(f"p has {len(p)} tokens and q has {len(q)}")
    if floor and variant != "correct":
        raise DraftsInputError("an epsilon floor is laid on the correct rule only")
    check_candidates(candidates, rule, q)
    p, q = tuple(map(Fraction, p)), tuple(map(Fraction, q))
    return _Builder(p, q, candidates, rule, variant, budget, Fraction(floor)).build()


# --- one node's exact law -------------------------------------------------------------------------


@dataclass(frozen=True)
class StageReach:
    position: int
    reach: Fraction  # probability that the node gets to this stage
    p: Row
    q: Row


@dataclass(frozen=True)
class NodeLaw:
    rule: str
    variant: str
    candidates: int
    p: Row
    q: Row
    kept: Row  # probability that the output is this token, kept as a candidate
    corrected: Row  # probability that the output is this token, drawn by the correction
    stages: tuple[StageReach, ...]
    kept_by_position: tuple[Row, ...] = ()  # kept at candidate 1, 2, …: with ``corrected`` they add up to the law


    @property
    def law(self) -> Row:
        return tuple(a + b for a, b in zip(self.kept, self.corrected))

    @property
    def acceptance(self) -> Fraction:
        """Probability that some candidate is kept."""
        return sum(self.kept, ZERO)

    @property
    def tv_distance(self) -> Fraction:
        return total_variation(self.law, self.p)


def _order(graph: NodeGraph) -> list:
    return sorted(range(len(graph.stages)), key=lambda number: graph.stages[number].position)


def node_law(p: Row, q: Row, candidates: int, rule: str = "with-replacement", variant: str = "correct",
             floor: Fraction = ZERO) -> NodeLaw:
    """The exact law of one node's output (Fractions), with each stage's residual target and reach; ``floor``: the
    correct rule with every residual floored at f (what the check names an epsilon floor)."""
    graph = node_graph(p, q, candidates, rule, variant, floor=floor)
    return law_of_graph(graph)


def law_of_graph(graph: NodeGraph) -> NodeLaw:
    size = len(graph.p)
    reach: dict[int, Fraction] = defaultdict(Fraction)
    reach[graph.start] = ONE
    kept = [ZERO] * size
    corrected = [ZERO] * size
    by_position = [[ZERO] * size for _ in range(graph.candidates)]
    seen: dict[tuple[int, Row, Row], Fraction] = {}
    for key in _order(graph):
        mass = reach.get(key, ZERO)
        if not mass:
            continue
        stage = graph.stages[key]
        where = (stage.position, stage.p, stage.q)
        seen[where] = seen.get(where, ZERO) + mass
        if stage.correction is not None:
            for y, v in enumerate(stage.correction):
                corrected[y] += mass * v
            continue
        for x, drawn in stage.draws.items():
            keep = stage.keep[x]
            kept[x] += mass * drawn * keep
            by_position[stage.position - 1][x] += mass * drawn * keep
            if keep < 1:
                reach[stage.after[x]] += mass * drawn * (1 - keep)
    stages = tuple(StageReach(pos, r, p_i, q_i) for (pos, p_i, q_i), r in seen.items())
    return NodeLaw(
        graph.rule,
        graph.variant,
        graph.candidates,
        graph.p,
        graph.q,
        tuple(kept),
        tuple(corrected),
        stages,
        tuple(map(tuple, by_position)),
    )


@dataclass(frozen=True)
class MoreDrafts:
    candidates: int
    acceptance: Fraction  # the rule's probability that some candidate is kept
    best: Fraction | None  # α* for the same candidates (None above MAX_BEST_TOKENS)


def acceptance_by_candidates(p: Row, q: Row, rule: str, most: int = 4) -> tuple[MoreDrafts, ...]:
    """The correct rule's acceptance and α* for K = 1 … ``most`` (fewer where the rule cannot draw K candidates, or
    where the work bound stops it): how much each further candidate buys."""
    rows = []
    for k in range(1, most + 1):
        try:
            rows.append(MoreDrafts(k, node_law(p, q, k, rule).acceptance, best_acceptance(p, q, k, rule).value))
        except DraftsInputError:  # more candidates than the rule can draw, or above the work bound: stop here
            break
    return tuple(rows)


# --- the best any verifier can do ------------------------------------------------------------------


def candidate_support(q: Row, candidates: int, rule: str) -> tuple[int, ...]:
    """The tokens some candidate can be: the top k for top-k, q's support otherwise."""
    if rule == "top-k":
        return tuple(sorted(top_k(q, candidates)))
    return tuple(x for x, v in enumerate(q) if v)


def _inside(q: Row, candidates: int, rule: str, support: tuple[int, ...]) -> list[Fraction]:
    """P(every candidate lies in H) for each H ⊆ support (a bitmask over ``support``)."""
    n = len(support)
    if rule == "top-k":  # deterministic: the set is the whole support
        return [ONE if h == (1 << n) - 1 else ZERO for h in range(1 << n)]
    q_of = [ZERO] * (1 << n)  # q(H), one addition per set (its lowest bit removed)
    for h in range(1, 1 << n):
        low = (h & -h).bit_length() - 1
        q_of[h] = q_of[h & (h - 1)] + q[support[low]]
    if rule == "with-replacement":  # K independent draws all in H
        return [v**candidates for v in q_of]
    # without replacement: the law of the set drawn (masks of at most K tokens), then sums over subsets
    sets: dict[int, Fraction] = {0: ONE}
    for _ in range(candidates):
        nxt: dict[int, Fraction] = defaultdict(Fraction)
        for mask, mass in sets.items():
            share = mass / (1 - q_of[mask])
            for i in range(n):
                if not mask >> i & 1:
                    nxt[mask | 1 << i] += share * q[support[i]]
        sets = nxt
    inside = [ZERO] * (1 << n)
    for mask, mass in sets.items():
        inside[mask] = mass
    for bit in range(n):  # sum over subsets (zeta transform)
        step = 1 << bit
        for h in range(1 << n):
            if h & step:
                inside[h] += inside[h ^ step]
    return inside


@dataclass(frozen=True)
class Best:
    value: Fraction | None  # None when the candidates range over more than MAX_BEST_TOKENS (reason says so)
    tokens: tuple[int, ...]  # a set H reaching the minimum
    reason: str | None = None


def best_acceptance(p: Row, q: Row, candidates: int, rule: str) -> Best:
    """α* = min over token sets H of p(H) + P(some candidate ∉ H), H within the candidates' support
    (a token no candidate can be only adds p(token)): every H of at most MAX_BEST_TOKENS tokens."""
    rule = check_rule(rule)
    check_candidates(candidates, rule, q)
    support = candidate_support(q, candidates, rule)
    n = len(support)
    if n > MAX_BEST_TOKENS:
        return Best(
            None,
            (),
            f"the candidates range over {n} tokens, above the {MAX_BEST_TOKENS} for which the lab enumerates every "
            "token set",
        )
    inside = _inside(tuple(map(Fraction, q)), candidates, rule, support)
    p_of = [ZERO] * (1 << n)
    for h in range(1, 1 << n):
        low = (h & -h).bit_length() - 1
        p_of[h] = p_of[h & (h - 1)] + Fraction(p[support[low]])
    best_h = min(range(1 << n), key=lambda h: (p_of[h] + 1 - inside[h], h))
    return Best(p_of[best_h] + 1 - inside[best_h], tuple(support[i] for i in range(n) if best_h >> i & 1))


# --- sampling one node -------------------------------------------------------------------------


class _Walker:
    """Float64 tables of a node graph, for the sampler: each stage's proposal CDF and keep thresholds."""

    def __init__(self, graph: NodeGraph):
        self.graph = graph
        self.tables: dict[object, tuple] = {}

    def table(self, key):
        found = self.tables.get(key)
        if found is None:
            stage = self.graph.stages[key]
            if stage.correction is not None:
                found = ("correction", float_cdf(stage.correction).tolist())
            else:
                tokens = sorted(stage.draws)
                cdf = float_cdf(tuple(stage.draws[x] for x in tokens)).tolist()
                found = ("stage", tokens, cdf, {x: stage.keep[x] for x in tokens})
            self.tables[key] = found
        return found

    def run(self, streams) -> tuple[int, bool]:
        """One node: (output token, kept as a candidate)."""
        key = self.graph.start
        while True:
            table = self.table(key)
            if table[0] == "correction":
                return bisect.bisect_right(table[1], float(streams.correction.random())), False
            _, tokens, cdf, keep = table
            x = tokens[min(bisect.bisect_right(cdf, float(streams.proposal.random())), len(tokens) - 1)]
            threshold = keep[x]
            u = float(streams.acceptance.random())
            if threshold == 1 or (
                threshold and (u < threshold if abs(u - float(threshold)) > 1e-12 else Fraction(u) < threshold)
            ):
                return x, True
            key = self.graph.stages[key].after[x]


@dataclass(frozen=True)
class NodeSimulation:
    law: NodeLaw
    steps: int
    seed: int
    counts: tuple[int, ...]
    kept: int  # steps in which a candidate was kept

    def fit(self, which: str = "target") -> ChiSquareResult:
        law = self.law.p if which == "target" else self.law.law
        return chi_square_test(dict(enumerate(self.counts)), dict(enumerate(law)))


def simulate_node(
    p: Row,
    q: Row,
    candidates: int,
    rule: str,
    steps: int,
    seed: int,
    variant: str = "correct",
    allow_large: bool = False,
) -> NodeSimulation:
    if steps < 1:
        raise DraftsInputError(f"steps N must be a whole number >= 1 (got {steps})")
    limit = MAX_SIM_SEQUENCES if not allow_large else 50 * MAX_SIM_SEQUENCES  # one Python walk per node
    if steps > limit:
        raise TooLargeError(f"--steps {steps} is above the limit of {limit:,} nodes")
    graph = node_graph(p, q, candidates, rule, variant)
    walker = _Walker(graph)
    streams = make_streams(seed)
    counts = np.zeros(len(graph.p), dtype=np.int64)
    kept = 0
    for _ in range(steps):
        y, was_kept = walker.run(streams)
        counts[y] += 1
        kept += was_kept
    return NodeSimulation(law_of_graph(graph), steps, seed, tuple(int(c) for c in counts), kept)


# --- trees --------------------------------------------------------------------------------------


def parse_tree(text: str) -> tuple[int, ...]:
    """``2,2`` -> (2, 2): the number of children at each depth (widths), each >= 1."""
    words = [w.strip() for w in str(text).split(",")]
    widths = []
    for word in words:
        if not word.isdigit() or len(word) > 3:
            raise DraftsInputError(f"tree width {word!r} is not a whole number >= 1 (write the widths as 2,2)")
        widths.append(int(word))
    return check_tree(tuple(widths))


def check_tree(widths: tuple[int, ...]) -> tuple[int, ...]:
    if not widths or any(w < 1 for w in widths):
        raise DraftsInputError(f"tree widths {','.join(map(str, widths))} must each be a whole number >= 1")
    if len(widths) > MAX_TREE_DEPTH:
        raise DraftsInputError(f"a tree of depth {len(widths)} is above the lab's bound of {MAX_TREE_DEPTH} levels")
    nodes, level = 0, 1
    for w in widths:
        level *= w
        nodes += level
    if nodes > MAX_TREE_NODES:
        raise DraftsInputError(said(
            "tree {widths} has {nodes} candidates, above the lab's work bound of {limit}",
            widths=",".join(map(str, widths)), nodes=nodes, limit=MAX_TREE_NODES,
        ))
    return widths


def _depth(j: int) -> tuple:
    """The chain's hidden state at depth j: the block engine's state tuple, drafts done = j."""
    return tuple(FRESH._replace(drafted=j))


@dataclass
class TreeRules:
    model: MarkovModel
    widths: tuple[int, ...]
    rule: str
    variant: str
    graphs: dict[tuple[int, int], NodeGraph] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)  # shared by every node of the tree

    def graph(self, t: int, width: int) -> NodeGraph:
        key = (t, width)
        if key not in self.graphs:
            try:
                self.graphs[key] = node_graph(
                    self.model.p(t), self.model.q(t), width, self.rule, self.variant, self.budget
                )
            except DraftsInputError as exc:
                context = said("start") if t == START else self.model.vocab[t]
                problem = said("after {context}: {problem}", context=context, problem=said_of(exc))
                raise DraftsInputError(problem) from None
        return self.graphs[key]


def tree_chain(model: MarkovModel, widths: tuple[int, ...], rule: str, variant: str = "correct") -> BlockChain:
    """Tree verification as a hidden chain: state (history t, depth j). At depth j < d the node rule with
    w_{j+1} candidates on (p(t), q(t)): a kept candidate x moves to (x, j + 1), a correction y to (y, 0);
    at depth d a bonus token from p(t) moves to (y, 0). A committed stop token ends the output (DONE)."""
    check_tree(widths)
    check_rule(rule)
    check_variant(variant, rule)
    rules = TreeRules(model, widths, rule, variant)
    done = tuple(DONE)
    stop = model.stop
    exact: dict[tuple[int, tuple], dict[tuple[int, tuple], Fraction]] = {}
    todo = [(START, _depth(0))]
    while todo:
        state = todo.pop()
        if state in exact:
            continue
        t, hidden = state
        j = hidden[0]
        out: dict[tuple[int, tuple], Fraction] = defaultdict(Fraction)
        if j == len(widths):
            for y, mass in enumerate(model.p(t)):
                if mass:
                    out[(y, done if y == stop else _depth(0))] += mass
        else:
            law = law_of_graph(rules.graph(t, widths[j]))
            for x, mass in enumerate(law.kept):
                if mass:
                    out[(x, done if x == stop else _depth(j + 1))] += mass
            for y, mass in enumerate(law.corrected):
                if mass:
                    out[(y, done if y == stop else _depth(0))] += mass
        exact[state] = out
        todo.extend(after for after in out if after[1] != done and after not in exact)
    scale = math.lcm(*(w.denominator for moves in exact.values() for w in moves.values()), 1)
    return BlockChain(
        scale,
        {
            state: tuple((y, after, int(w * scale)) for (y, after), w in sorted(moves.items()) if w)
            for state, moves in exact.items()
        },
    )


@dataclass(frozen=True)
class TreeComparison:
    model: MarkovModel
    widths: tuple[int, ...]
    rule: str
    variant: str
    length: int
    target: Law
    speculative: Law

    @property
    def distance(self) -> Fraction:
        return total_variation(self.target, self.speculative)

    def rows(self):
        for seq in sorted(set(self.target) | set(self.speculative)):
            yield seq, self.target.get(seq, ZERO), self.speculative.get(seq, ZERO)


def tree_law(
    model: MarkovModel,
    widths: tuple[int, ...],
    length: int,
    rule: str,
    variant: str = "correct",
    allow_large: bool = False,
) -> TreeComparison:
    """The exact law of the first ``length`` tokens under tree verification, beside the target's."""
    if length < 1:
        raise DraftsInputError(f"length L must be a whole number >= 1 (got {length})")
    chain = tree_chain(model, widths, rule, variant)
    check_outcomes(model, chain, length, allow_large)
    return TreeComparison(model, widths, rule, variant, length, target_law(model, length), forward_law(chain, length))


@dataclass(frozen=True)
class TreeSimulation:
    comparison: TreeComparison
    sequences: int
    seed: int
    counts: dict[tuple[int, ...], int]
    blocks: int
    tokens: int

    def fit(self, which: str = "target") -> ChiSquareResult:
        law = self.comparison.target if which == "target" else self.comparison.speculative
        return chi_square_test(self.counts, law)


def simulate_tree(
    model: MarkovModel,
    widths: tuple[int, ...],
    length: int,
    rule: str,
    sequences: int,
    seed: int,
    variant: str = "correct",
    allow_large: bool = False,
) -> TreeSimulation:
    """N outputs of at most ``length`` tokens sampled by tree verification (each node walks its graph)."""
    if sequences < 1:
        raise DraftsInputError(f"sequences N must be a whole number >= 1 (got {sequences})")
    limit = MAX_SIM_SEQUENCES if not allow_large else 50 * MAX_SIM_SEQUENCES
    if sequences > limit:
        raise TooLargeError(f"--steps {sequences} is above the limit of {limit:,} simulated sequences")
    comparison = tree_law(model, widths, length, rule, variant, allow_large)
    rules = TreeRules(model, widths, rule, variant)
    walkers: dict[tuple[int, int], _Walker] = {}
    bonus: dict[int, list[float]] = {}
    streams = make_streams(seed)
    counts: dict[tuple[int, ...], int] = defaultdict(int)
    blocks = 0
    for _ in range(sequences):
        out: list[int] = []
        t, depth = START, 0
        while len(out) < length:
            if depth == 0:
                blocks += 1
            if depth == len(widths):
                if t not in bonus:
                    bonus[t] = float_cdf(model.p(t)).tolist()
                y, depth = bisect.bisect_right(bonus[t], float(streams.correction.random())), 0
            else:
                key = (t, widths[depth])
                if key not in walkers:
                    walkers[key] = _Walker(rules.graph(t, widths[depth]))
                y, was_kept = walkers[key].run(streams)
                depth = depth + 1 if was_kept else 0
            out.append(y)
            t = y
            if y == model.stop:
                break
        counts[tuple(out)] += 1
    tokens = sum(len(k) * v for k, v in counts.items())
    return TreeSimulation(comparison, sequences, seed, dict(counts), blocks, tokens)


# --- one sampled tree, to step through --------------------------------------------------------------------


@dataclass(frozen=True)
class TreeNode:
    """A drafted token and the children the draft proposed after it (none past a proposed stop token)."""

    token: int
    children: tuple[TreeNode, ...]


@dataclass(frozen=True)
class TreeTest:
    depth: int  # 1 for the root's children
    context: int  # the verified history the candidate is tested at
    candidate: int
    target: Row  # the residual target this candidate is tested against
    keep: Fraction  # the probability it is kept
    u: float  # the acceptance uniform
    kept: bool


@dataclass(frozen=True)
class TreeTrace:
    """One tree drafted and verified from a seed: the whole drafted tree, each test in order, and how it ended
    ("correction": every child of a node rejected; "bonus": an accepted leaf; "stop": a kept stop token)."""

    widths: tuple[int, ...]
    rule: str
    root: TreeNode
    tests: tuple[TreeTest, ...]
    committed: tuple[int, ...]
    ending: str
    last_law: Row  # the law the last token was drawn from (the correction, the bonus), or tested against (kept)


def _draft_children(model: MarkovModel, t: int, width: int, rule: str, depth: int, widths, streams) -> tuple:
    """The children the draft proposes after history ``t``: by the rule (top-k: q's most likely; otherwise draws
    from q, without replacement removing each drawn token), each with its own subtree."""
    q = model.q(t)
    if rule == "top-k":
        tokens = top_k(q, width)
    else:
        tokens, left = [], list(q)
        for _ in range(width):
            cdf = float_cdf(_normalized(left)).tolist()
            x = min(bisect.bisect_right(cdf, float(streams.proposal.random())), len(q) - 1)
            while not left[x]:  # float rounding at a CDF's edge: the nearest token with mass below
                x -= 1
            tokens.append(x)
            if rule == "without-replacement":
                left[x] = ZERO
                if not any(left):
                    break
    children = []
    for x in tokens:
        grand = ()
        if depth + 1 < len(widths) and x != model.stop:
            grand = _draft_children(model, x, widths[depth + 1], rule, depth + 1, widths, streams)
        children.append(TreeNode(x, grand))
    return tuple(children)


def sample_tree_trace(
    model: MarkovModel, widths: tuple[int, ...], rule: str, seed: int, variant: str = "correct"
) -> TreeTrace:
    """Draft a whole tree from the first position (proposal stream), then verify it as the rule says (acceptance
    stream; the correction or the bonus from the correction stream), recording every test."""
    check_tree(widths)
    rules = TreeRules(model, widths, check_rule(rule), check_variant(variant, rule))
    streams = make_streams(seed)
    root = TreeNode(START, _draft_children(model, START, widths[0], rule, 0, widths, streams))
    node, t, depth = root, START, 0
    tests: list[TreeTest] = []
    committed: list[int] = []
    while True:
        if depth == len(widths):  # an accepted leaf: the bonus from the target
            law = model.p(t)
            committed.append(bisect.bisect_right(float_cdf(law).tolist(), float(streams.correction.random())))
            ending = "bonus"
            break
        graph = rules.graph(t, widths[depth])
        stage = graph.stages[graph.start]
        kept_child = None
        for child in node.children:
            keep = stage.keep.get(child.token, ZERO)
            u = float(streams.acceptance.random())
            kept = keep == 1 or (keep > 0 and Fraction(u) < keep)
            tests.append(TreeTest(depth + 1, t, child.token, stage.p, keep, u, kept))
            if kept:
                kept_child = child
                break
            stage = graph.stages[stage.after[child.token]]
        if kept_child is None:  # every child rejected (or a node with no child): the correction ends the block
            law = stage.correction if stage.correction is not None else stage.p
            committed.append(bisect.bisect_right(float_cdf(law).tolist(), float(streams.correction.random())))
            ending = "correction"
            break
        committed.append(kept_child.token)
        if kept_child.token == model.stop:
            law, ending = stage.p, "stop"
            break
        node, t, depth = kept_child, kept_child.token, depth + 1
    if committed and committed[-1] == model.stop and ending != "stop":
        ending = "stop"
    return TreeTrace(widths, rule, root, tuple(tests), tuple(committed), ending, law)
