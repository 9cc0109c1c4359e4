"""The mistakes of several drafts and token trees: one card each (what the mistaken code does, the correct
lines, where it shipped or was argued, when it is harmless), and their exact laws on a model.

The rules and the mistakes themselves live in :mod:`lab.core.drafts`; this module holds the words a reader
sees and the report the command line (``python -m lab mistakes … --candidates K`` / ``--tree``) and the
Pitfalls page print.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.distributions import LabInputError
from lab.core.drafts import (
    DRAFT_MISTAKES,
    RULES,
    DraftsInputError,
    best_acceptance,
    check_candidates,
    node_law,
    tree_law,
)
from lab.core.markov import START, load_model
from lab.i18n import N_
from lab.teaching.pitfalls import Report

# The worked example of several drafts: hand-derived, acceptance 4/5 with replacement, 47/50 without,
# 7/10 for the top 2; the best any verifier can do with two independent drafts is 17/20.
EXAMPLE_TOKENS = ("A", "B", "C")
EXAMPLE_P = (Fraction(1, 10), Fraction(3, 5), Fraction(3, 10))
EXAMPLE_Q = (Fraction(1, 2), Fraction(3, 10), Fraction(1, 5))
EXAMPLE_CANDIDATES = 2


@dataclass(frozen=True)
class DraftCard:
    name: str
    mistaken: tuple[str, ...]
    correct: tuple[str, ...]
    reports: tuple[Report, ...]
    harmless_when: str

    @property
    def title(self) -> str:
        return DRAFT_MISTAKES[self.name].title

    @property
    def description(self) -> str:
        return DRAFT_MISTAKES[self.name].description

    @property
    def rules(self) -> tuple[str, ...]:
        return DRAFT_MISTAKES[self.name].rules


WITH_REPLACEMENT_LINES = (
    "for i in range(K):",
    "    x = sample(q)",
    "    if u() < min(1, p[x] / q[x]): return x",
    "    p = max(0, p - q) / Z  # the next candidate's target",
    "return sample(p)  # fresh draw, whole vocabulary",
)
WITHOUT_REPLACEMENT_LINES = (
    "for i in range(K):",
    "    x = sample(q)",
    "    if u() < min(1, p[x] / q[x]): return x",
    "    p = max(0, p - q) / Z  # with the q that proposed x",
    "    q[x] = 0; q = q / q.sum()  # then remove x",
    "return sample(p)",
)
TOP_K_LINES = (
    "for c in top_k(q, K):  # chosen, not drawn: one-hot drafts",
    "    if u() < p[c]: return c",
    "    p[c] = 0; p = p / p.sum()",
    "return sample(p)",
)

DRAFT_CARDS: dict[str, DraftCard] = {
    card.name: card
    for card in (
        DraftCard(
            "no-update",
            (
                "for i in range(K):",
                "    x = sample(q)",
                "    if u() < min(1, p[x] / q[x]): return x",
                "return sample(max(0, p - q) / Z)  # p never updated",
            ),
            WITH_REPLACEMENT_LINES,
            (),
            N_(
                "with one candidate (K = 1), where there is nothing to update, and when no rejection can happen "
                "(p = q)."
            ),
        ),
        DraftCard(
            "stale-draft",
            (
                "for i in range(K):",
                "    x = sample(q_now)  # q_now: q without earlier candidates",
                "    if u() < min(1, p[x] / q[x]): return x  # original q",
                "    p = max(0, p - q) / Z  # original q",
                "return sample(p)",
            ),
            WITHOUT_REPLACEMENT_LINES,
            (Report("SafeAILab/EAGLE", "#74", N_("which draft the residual of sampling without replacement uses")),),
            N_("with one candidate (K = 1): the first draft is the original q."),
        ),
        DraftCard(
            "top-k-with-q",
            (
                "for c in top_k(q, K):",
                "    if u() < min(1, p[c] / q[c]): return c  # as if c ~ q",
                "    p = max(0, p - q) / Z",
                "return sample(p)",
            ),
            TOP_K_LINES,
            (
                Report("SafeAILab/EAGLE", "issues 93, 110, 183, 221 and 329", N_("whether top-k drafting is lossless")),
                Report("jaymody/speculative-sampling", "#3", N_("argmax drafting scored with q = softmax")),
                Report("vllm-project/vllm", "PR #16899", N_("argmax drafts treated as one-hot q")),
            ),
            N_("when the draft is one-hot on its top candidate (q(c) = 1): then q is the one-hot draft."),
        ),
        DraftCard(
            "correction-from-candidates",
            (
                "for c in candidates: ...  # tested as the rule says",
                "r = p[candidates] / p[candidates].sum()",
                "return sample(r)  # only among the candidates",
            ),
            (
                "for c in candidates: ...  # tested as the rule says",
                "return sample(p)  # the last residual, every token",
            ),
            (),
            N_("only when a candidate is always kept (no correction can happen). The residual is defined over the "
            "target's whole vocabulary, never over whichever candidates were in the tree."),
        ),
        DraftCard(
            "last-residual-only",
            (
                "for c in candidates: ...  # tested as the rule says",
                "return sample(max(0, p0 - q_last) / Z)  # p0: the original target",
            ),
            ("for c in candidates: ...  # p updated at each rejection", "return sample(p)"),
            (),
            N_("with one candidate (K = 1), where the last residual is the only one."),
        ),
        DraftCard(
            "skip-duplicates",
            (
                "for i in range(K):",
                "    x = sample(q)",
                "    if x in rejected: continue  # no test, no update",
                "    if u() < min(1, p[x] / q[x]): return x",
                "    rejected.add(x); p = max(0, p - q) / Z",
            ),
            WITH_REPLACEMENT_LINES,
            (
                Report(
                    "SafeAILab/EAGLE",
                    "eagle/model/utils.py",
                    N_("evaluate_posterior skips repeated candidates (harmless there: its candidates are one-hot)"),
                ),
            ),
            N_("with one-hot (top-k) candidates, where testing a repeated candidate again changes nothing, and with "
            "K = 1."),
        ),
        DraftCard(
            "threshold-acc",
            (
                "acc = 0",
                "for c in top_k(q, K):",
                "    acc += p[c]",
                "    if coin <= acc / threshold_acc: return c  # threshold_acc = 0.5",
                "return sample(p without the candidates)",
            ),
            TOP_K_LINES,
            (
                Report(
                    "sgl-project/sglang",
                    "speculative_sampling.cuh",
                    N_("TreeSpeculativeSamplingTargetOnly; server argument speculative_accept_threshold_acc"),
                ),
            ),
            N_("when threshold_acc = 1 (the default): one coin against the running sum is then the rule."),
        ),
        DraftCard(
            "threshold-single",
            (
                "for c in top_k(q, K):",
                "    if p[c] >= threshold_single: return c  # threshold_single = 0.5",
                "    ...  # otherwise the coin, as the rule says",
            ),
            TOP_K_LINES,
            (
                Report(
                    "sgl-project/sglang",
                    "speculative_sampling.cuh",
                    N_("server argument speculative_accept_threshold_single"),
                ),
            ),
            N_("when threshold_single = 1 (the default), or when no candidate reaches the threshold."),
        ),
        DraftCard(
            "typical-acceptance",
            (
                "limit = min(0.09, 0.3 * exp(-entropy(p)))",
                "for c in candidates:",
                "    if p[c] > limit: return c  # no coin at all",
                "return sample(p)",
            ),
            TOP_K_LINES,
            (Report("FasterDecoding/Medusa", "medusa/model/utils.py", N_("typical acceptance, lossy by design")),),
            N_("never in general: it is a deliberate trade of the target's law for speed."),
        ),
    )
}


@dataclass(frozen=True)
class DraftVariantLaw:
    variant: str
    acceptance: Fraction | None  # a node's acceptance (None for a tree's law of L tokens)
    tv_distance: Fraction
    law: dict[str, Fraction]


@dataclass(frozen=True)
class RuleReport:
    rule: str
    acceptance: Fraction | None
    best_acceptance: Fraction | None
    target: dict[str, Fraction]
    variants: dict[str, DraftVariantLaw]


@dataclass(frozen=True)
class DraftMistakeReport:
    model: str
    candidates: int | None
    tree: tuple[int, ...] | None
    length: int
    stop: str | None
    rules: dict[str, RuleReport]
    skipped: tuple[str, ...] = ()  # rules this model cannot run, each with why


def variants_of(rule: str) -> tuple[str, ...]:
    return ("correct", *(name for name, m in DRAFT_MISTAKES.items() if rule in m.rules))


def draft_mistakes(
    model_name: str,
    candidates: int | None = None,
    tree: tuple[int, ...] | None = None,
    length: int | None = None,
    allow_large: bool = False,
) -> DraftMistakeReport:
    """Every rule and every mistake of it: at the model's first position with ``candidates`` (a node), or the
    law of ``length`` tokens under a ``tree``. A rule the model cannot run (K above the draft's support) is
    left out of the report."""
    model = load_model(model_name)
    if (candidates is None) == (tree is None):
        raise DraftsInputError("give --candidates K (one position) or --tree W1,W2,... (a token tree)")
    rules: dict[str, RuleReport] = {}
    problems: list[str] = []
    for rule in RULES:
        try:
            if candidates is not None:
                p, q = model.p(START), model.q(START)
                check_candidates(candidates, rule, q)
                target = dict(zip(model.vocab, p))
                variants = {}
                for name in variants_of(rule):
                    law = node_law(p, q, candidates, rule, name)
                    variants[name] = DraftVariantLaw(
                        name, law.acceptance, law.tv_distance, dict(zip(model.vocab, law.law))
                    )
                best = best_acceptance(p, q, candidates, rule).value
                rules[rule] = RuleReport(rule, variants["correct"].acceptance, best, target, variants)
            else:
                variants = {}
                target = None
                for name in variants_of(rule):
                    comparison = tree_law(model, tree, length, rule, name, allow_large)
                    target = {model.sequence_text(k): v for k, v in comparison.target.items()}
                    variants[name] = DraftVariantLaw(
                        name,
                        None,
                        comparison.distance,
                        {model.sequence_text(k): v for k, v in comparison.speculative.items()},
                    )
                rules[rule] = RuleReport(rule, None, None, target, variants)
        except DraftsInputError as exc:
            problems.append(f"{rule}: {exc}")
    if not rules:
        raise LabInputError("no rule can run here: " + "; ".join(problems))
    return DraftMistakeReport(model.name, candidates, tree, length or 1, model.stop_name, rules, tuple(problems))
