"""Pitfalls: mistakes a speculative sampler can make, as cards with exact laws.

Each card names a mistake variant of :mod:`lab.core.variants`, shows what the mistaken code does next to
the correct lines (pseudo-code), cites where a mistake of that kind was reported publicly (only the
references listed in the lab's issue; nothing invented), and says when the mistake is harmless.
The laws come from the exact engine (:mod:`lab.core.blocks` for blocks of drafts, :mod:`lab.core.sampling`
for one step): exact fractions throughout, so a distance of 0 means exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from lab.core.blocks import MAX_OUTCOMES, block_chain, check_block_args, check_outcomes, forward_law, target_law
from lab.core.caching import cached_by_size
from lab.core.distance import total_variation
from lab.core.distributions import LabInputError
from lab.core.errors import said
from lab.core.formatting import fraction_text
from lab.core.markov import MarkovModel, load_model
from lab.core.sampling import step_law
from lab.core.scenarios import load_scenario, scenario_names
from lab.core.variants import VARIANT_NAMES, VARIANTS, get_variant
from lab.i18n import N_

ZERO = Fraction(0)
NO_GAIN = "none (unbiased)"


class PitfallInputError(LabInputError):
    pass


@dataclass(frozen=True)
class Report:
    project: str
    reference: str  # issue / pull request number as given, or the component
    what: str


@dataclass(frozen=True)
class PitfallCard:
    name: str  # the variant name (or "zero-over-zero", a numerics card with no variant)
    mistaken: tuple[str, ...]  # 2-4 lines of pseudo-code
    correct: tuple[str, ...]
    reports: tuple[Report, ...]
    harmless_when: str
    has_variant: bool = True
    own_title: str | None = None  # only for a card without a variant; a variant's title is in VARIANT_WORDS

    @property
    def title(self) -> str:
        return VARIANT_WORDS[self.name].title if self.has_variant else self.own_title


@dataclass(frozen=True)
class RuleWords:
    """What a person reads about one rule of :mod:`lab.core.variants` (the core holds the rule, not its words)."""

    title: str
    description: str  # one or two sentences: what the rule does, and for a mistake what it gets wrong


# Every variant's words, by its name: the Blocks and Pitfalls pages, the cards and the sampler check's verdict.
VARIANT_WORDS: dict[str, RuleWords] = {
    "correct": RuleWords(
        N_("Correct speculative sampling"),
        N_(
            "Draft from q, keep x with probability min(1, p(x)/q(x)), on rejection draw a fresh replacement "
            "from r = max(0, p − q)/Z; the first rejection ends the block, all-accepted blocks add a bonus from p."
        ),
    ),
    "resample-from-p": RuleWords(
        N_("Resample from p"),
        N_(
            "On rejection draw the replacement from p instead of r: tokens q over-proposes get extra mass."
        ),
    ),
    "epsilon-floor": RuleWords(
        N_("Epsilon floor on the residual"),
        N_(
            "r proportional to max(p − q, 1/1000) on every token: a 'safe' floor that leaks mass to tokens "
            "with p <= q, even to tokens the target never produces."
        ),
    ),
    "zero-out-rejected": RuleWords(
        N_("Remove only the rejected token"),
        N_(
            "r proportional to p with the rejected token removed: right only when q is one-hot, "
            "otherwise the correction ignores what accepted proposals already supplied."
        ),
    ),
    "candidates-only": RuleWords(
        N_("Residual over the candidates only"),
        N_(
            "r renormalised over the draft's two most likely tokens only (a small tree's candidates), "
            "not over the target's whole vocabulary."
        ),
    ),
    "keep-testing-after-rejection": RuleWords(
        N_("Keep testing after a rejection"),
        N_(
            "After a replacement, keep testing the later drafts (drafted after the rejected token) as if "
            "they followed the corrected prefix, instead of discarding them."
        ),
    ),
    "reuse-uniform": RuleWords(
        N_("Reuse the acceptance uniform"),
        N_(
            "Draw the replacement by inverse CDF of r with the same uniform u that failed the test: given a "
            "rejection u lies in [p(x)/q(x), 1), so low-CDF tokens are under-drawn."
        ),
    ),
    "unprocessed-draft": RuleWords(
        N_("Check with the unprocessed draft"),
        N_(
            "The draft samples from q truncated to its top 2 tokens, but the test and r use the untruncated q: "
            "the processed distribution actually proposing must be the one checked."
        ),
    ),
    "greedy-draft": RuleWords(
        N_("Greedy draft scored with softmax probabilities"),
        N_(
            "The draft proposes argmax q every time, but the test uses q's probabilities as if it had sampled."
        ),
    ),
    "draft-past-stop": RuleWords(
        N_("Drafting past the stop token"),
        N_(
            "The draft goes on drafting after it proposed the stop token; the verifier tests those drafts too and "
            "emits the kept ones, so the output holds tokens after the stop token (it ends only with the block)."
        ),
    ),
    "bonus-after-stop": RuleWords(
        N_("A bonus token after the stop token"),
        N_(
            "When every draft was kept and the last one was the stop token, a bonus token is still drawn from p "
            "and emitted after it."
        ),
    ),
}


CORRECT_LINES = (
    "x ~ q  # the q the check uses",
    "if u < min(1, p[x] / q[x]): commit x",
    "else: commit y ~ max(0, p - q) / Z  # fresh uniform, whole vocabulary",
)

CARDS: dict[str, PitfallCard] = {
    card.name: card
    for card in (
        PitfallCard(
            "resample-from-p",
            (
                "x ~ q",
                "if u < min(1, p[x] / q[x]): commit x",
                "else: commit y ~ p  # the target, not the residual",
            ),
            CORRECT_LINES,
            (),
            N_("when α = 0 (disjoint supports: r = p) or when no rejection can happen (p = q). Otherwise "
            "accepted proposals already supplied min(p, q), and drawing from p adds their share a second time."),
        ),
        PitfallCard(
            "epsilon-floor",
            (
                "r = maximum(p - q, 1e-3)  # 'for stability'",
                "r = r / r.sum()",
                "commit y ~ r",
            ),
            (
                "excess = maximum(p - q, 0); Z = excess.sum()",
                "if Z == 0: commit x  # no rejection branch, nothing to normalise",
                "else: commit y ~ excess / Z",
            ),
            (
                Report(
                    "vLLM (vllm-project/vllm)",
                    "its first rejection sampler",
                    N_('an epsilon floor on the residual, which "introduces some drift"'),
                ),
            ),
            N_("only when no rejection can happen (p = q). Whenever the branch is reachable the floor gives mass to "
            "tokens with p <= q, even to tokens the target never produces."),
        ),
        PitfallCard(
            "zero-out-rejected",
            (
                "r = p.copy(); r[x] = 0  # only the rejected token",
                "r = r / r.sum()",
                "commit y ~ r",
            ),
            (
                "r = maximum(p - q, 0)  # subtract q on every token",
                "r = r / r.sum()",
                "commit y ~ r",
            ),
            (Report("SafeAILab/EAGLE", "#20", N_("a residual that only removes the rejected token")),),
            N_("when q is one-hot (the draft always proposes the same token x): then max(0, p − q) is p without x, "
            "so removing the rejected token is the residual (the scenario “A one-hot draft”)."),
        ),
        PitfallCard(
            "candidates-only",
            (
                "cands = top2(q)  # a small tree's candidates",
                "r = maximum(p - q, 0)[cands]; r /= r.sum()",
                "commit y ~ r",
            ),
            (
                "r = maximum(p - q, 0) / Z  # the target's whole vocabulary",
                "commit y ~ r",
            ),
            (),
            N_("when the residual's support lies inside the candidates (or there is nothing to correct). The rule: "
            "r is defined over the target's whole vocabulary, not over a candidate set."),
        ),
        PitfallCard(
            "keep-testing-after-rejection",
            (
                "for i, x in enumerate(drafts):",
                "    if reject(x): drafts[i] = y ~ r; continue  # later drafts still tested",
            ),
            (
                "for i, x in enumerate(drafts):",
                "    if reject(x): commit y ~ r; break  # discard the drafts after it",
            ),
            (),
            N_("with one draft per block (K = 1), and for i.i.d. models (every one-step scenario): when the next "
            "token's law does not depend on the previous one, the stale drafts happen to fit the corrected prefix."),
        ),
        PitfallCard(
            "reuse-uniform",
            (
                "u = rand(); if u < a: commit x  # a = min(1, p[x] / q[x])",
                "else: commit inverse_cdf(r, u)  # the same u, known to be >= a",
            ),
            (
                "u = rand(); if u < a: commit x",
                "else: commit inverse_cdf(r, rand())  # fresh randomness",
            ),
            (),
            N_("when r is a point mass (one token carries the whole residual) or every rejected proposal has "
            "p(x) = 0 (then a = 0 and u is still uniform on [0, 1))."),
        ),
        PitfallCard(
            "unprocessed-draft",
            (
                "q_used = top_k(q, 2); x ~ q_used  # proposal from the processed draft",
                "if u < min(1, p[x] / q[x]): commit x  # scored with the unprocessed q",
                "else: commit y ~ max(0, p - q) / Z",
            ),
            (
                "q_used = top_k(q, 2); x ~ q_used",
                "if u < min(1, p[x] / q_used[x]): commit x",
                "else: commit y ~ max(0, p - q_used) / Z",
            ),
            (
                Report(
                    "huggingface/transformers",
                    "#47932",
                    N_("a draft scored with unprocessed logits after sampling from processed ones"),
                ),
                Report("vllm-project/vllm", "#9834", N_("the same kind of processed/unprocessed mismatch")),
            ),
            N_("when the processing changes nothing (q has at most two positive tokens, so top-2 keeps q as it is)."),
        ),
        PitfallCard(
            "greedy-draft",
            (
                "x = argmax(q)  # greedy proposal",
                "if u < min(1, p[x] / q[x]): commit x  # as if x had been sampled from q",
                "else: commit y ~ max(0, p - q) / Z",
            ),
            (
                "x ~ q  # or score with q_used = onehot(argmax q)",
                "if u < min(1, p[x] / q[x]): commit x",
                "else: commit y ~ max(0, p - q) / Z",
            ),
            (Report("huggingface/transformers", "#32867", N_("a greedy draft scored with its softmax probabilities")),),
            N_("when q is one-hot: then argmax q is exactly a sample from q."),
        ),
        PitfallCard(
            "draft-past-stop",
            (
                "drafts = draft(K)  # K tokens, even after the stop token",
                "for x in drafts: commit x if kept, else y ~ r and break",
                "if stop in block: end  # checked once, after the block",
            ),
            (
                "drafts = draft(K, until=stop)  # nothing after a proposed stop",
                "for x in drafts: commit x if kept, else y ~ r and break",
                "    if committed == stop: end  # no bonus, nothing after it",
            ),
            (),
            N_("when the stop token is never kept as a draft (the draft never proposes it where the target may end: "
            "then it comes only from a correction, which ends the block), or when the output is cut at its first "
            "stop token before anyone reads it: the tokens up to that stop token are committed exactly as by the "
            "correct decoder, so only the tokens after it are wrong (and the work spent on them wasted)."),
        ),
        PitfallCard(
            "bonus-after-stop",
            (
                "for x in drafts: commit x if kept, else y ~ r and break",
                "if all kept: commit b ~ p(. | drafts[-1])  # even if it is stop",
            ),
            (
                "for x in drafts: commit x if kept, else y ~ r and break",
                "if all kept and drafts[-1] != stop: commit b ~ p(. | drafts[-1])",
            ),
            (),
            N_("when the stop token is never kept as a draft (the draft never proposes it where the target may end), "
            "or when the output is cut at its first stop token before anyone reads it: everything up to the stop "
            "token is the correct decoder's, only the bonus after it is wrong."),
        ),
        PitfallCard(
            "zero-over-zero",
            (
                "r = maximum(p - q, 0)",
                "r = r / r.sum()  # 0/0 = NaN when p == q",
            ),
            (
                "Z = maximum(p - q, 0).sum()",
                "if Z == 0: commit x  # no-rejection branch: r never formed",
                "else: r = maximum(p - q, 0) / Z",
            ),
            (Report("jaymody/speculative-sampling", "#5", N_("NaN when p equals q because 0/0 was evaluated")),),
            N_("never an output-law question: with exact p = q no rejection happens. A float path that rejects with "
            "a zero residual sum is a numerical inconsistency to investigate (see the Numerics page), not a case "
            "for a floor."),
            has_variant=False,
            own_title=N_("0/0 when p equals q"),
        ),
    )
}
MISTAKE_CARDS = tuple(name for name, card in CARDS.items() if card.has_variant)


# --- exact laws of every variant ---------------------------------------------------------------------------


@dataclass(frozen=True)
class VariantLaw:
    variant: str
    outcomes: tuple[str, ...]  # token names (L = 1) or space-joined sequences, in vocabulary order
    target: tuple[Fraction, ...]
    law: tuple[Fraction, ...]
    tv_distance: Fraction

    @property
    def biased(self) -> bool:
        return self.tv_distance != 0

    @property
    def gains(self) -> tuple[str, ...]:
        """Outcomes that get more mass than the target gives them."""
        return tuple(o for o, t, v in zip(self.outcomes, self.target, self.law) if v > t)

    @property
    def biggest_gains(self) -> tuple[str, ...]:
        """Every outcome whose gain over the target is the largest (all of them when several tie)."""
        diffs = {o: v - t for o, t, v in zip(self.outcomes, self.target, self.law) if v > t}
        top = max(diffs.values(), default=None)
        return tuple(o for o, d in diffs.items() if d == top)

    @property
    def biggest_gain(self) -> str | None:
        """The outcomes gaining most, for a table cell (``C, D`` when they tie); None when nothing gains."""
        return ", ".join(self.biggest_gains) or None

    @property
    def biggest_gain_phrase(self) -> str:
        """``A gains the most`` or, for a tie, ``C and D gain the most`` (the same largest amount)."""
        gains = self.biggest_gains
        if len(gains) == 1:
            return said("{outcome} gains the most", outcome=gains[0])
        return said("{outcomes} and {last} gain the most (the same amount)", outcomes=", ".join(gains[:-1]),
                    last=gains[-1])


@dataclass(frozen=True)
class MistakeReport:
    model: str
    kind: str  # "step" (one-step scenario, i.i.d. when L > 1) or "markov"
    block: int
    length: int
    outcomes: tuple[str, ...]
    target: tuple[Fraction, ...]
    laws: dict[str, VariantLaw]
    stop: str | None = None  # the model's stop token (outputs end with it or are cut at L)


def default_block_length(model: MarkovModel) -> tuple[int, int]:
    """One step (K = 1, L = 1) for a one-step scenario, K = 2 and L = 2 for a Markov model, K = 2 and L = 4
    for a model with a stop token (the stop-token mistakes need room for a token after the stop token)."""
    if model.kind == "step":
        return (1, 1)
    return (2, 2) if model.stop is None else (2, 4)


def check_whole(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PitfallInputError(f"{name} must be a whole number (got {value!r})")
    return value


def mistakes(
    model_name: str, block: int | None = None, length: int | None = None, allow_large: bool = False
) -> MistakeReport:
    """Every variant's exact law of the first L committed tokens, against the target's law.

    Bounded work: K, L and the number of sequences any variant can reach are checked before any law
    is built (:mod:`lab.core.blocks` limits; ``allow_large`` lifts them, for the command line)."""
    model = load_model(model_name)
    default_k, default_l = default_block_length(model)
    block = default_k if block is None else check_whole(block, "block size K")
    length = default_l if length is None else check_whole(length, "length L")
    return _mistakes_cached(model, block, length, allow_large)


# a report holds one law per variant over its outcomes: at most as much as 16 of the largest reports (4,096
# outcomes each), and many more of the small ones a class asks for
@cached_by_size(budget=16 * MAX_OUTCOMES, size_of=lambda report: len(report.outcomes), refused=LabInputError)
def _mistakes_cached(model: MarkovModel, block: int, length: int, allow_large: bool = False) -> MistakeReport:
    check_block_args(model, block, length, allow_large)
    # Without a stop token a stop-token mistake is the correct decoder exactly (its switches never fire), so it
    # reuses the correct chain and law: two fewer exact laws keep the slowest Pitfalls choice within budget.
    reused = {name for name in VARIANT_NAMES if model.stop is None and VARIANTS[name].stop_only}
    chains = {name: block_chain(model, block, name) for name in VARIANT_NAMES if name not in reused}
    for chain in chains.values():  # refuse before any law is built if one of them would be too large
        check_outcomes(model, chain, length, allow_large)
    target_laws = target_law(model, length)
    computed = {name: forward_law(chain, length) for name, chain in chains.items()}
    speculative = {name: computed["correct" if name in reused else name] for name in VARIANT_NAMES}
    keys = set(target_laws)
    for law in speculative.values():  # the same outcome set for every variant: the union
        keys |= set(law)
    sequences = sorted(keys)
    outcomes = tuple(model.sequence_text(s) for s in sequences)
    target = tuple(target_laws.get(s, ZERO) for s in sequences)
    laws = {
        name: VariantLaw(
            name, outcomes, target, tuple(law.get(s, ZERO) for s in sequences), total_variation(target_laws, law)
        )
        for name, law in speculative.items()
    }
    return MistakeReport(model.name, model.kind, block, length, outcomes, target, laws, model.stop_name)


# --- single step --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepVariantLaw:
    variant: str
    tokens: tuple[str, ...]
    target: tuple[Fraction, ...]
    accepted: tuple[Fraction, ...]  # mass committed by keeping the proposal
    corrected: tuple[Fraction, ...]  # mass committed through the (mistaken) correction
    law: tuple[Fraction, ...]
    tv_distance: Fraction


def single_step(scenario_name: str) -> dict[str, StepVariantLaw]:
    """For a one-step scenario: each variant's one-step output law against p, split by branch."""
    scenario = load_scenario(scenario_name)
    out = {}
    for name in VARIANT_NAMES:
        result = step_law(scenario.p, scenario.q, name)
        law = result.total
        out[name] = StepVariantLaw(
            name,
            scenario.tokens,
            scenario.p.values,
            result.accepted,
            result.corrected,
            law,
            total_variation(law, scenario.p.values),
        )
    return out


@lru_cache(maxsize=16)
def harmless_scenarios(variant: str) -> tuple[str, ...]:
    """The shipped one-step scenarios on which this variant's one-step law is exactly p."""
    get_variant(variant)
    names = []
    for name in scenario_names():
        scenario = load_scenario(name)
        law = step_law(scenario.p, scenario.q, variant).total
        if tuple(law) == tuple(scenario.p.values):
            names.append(name)
    return tuple(names)


# --- predict first ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grade:
    bias_right: bool
    gain_right: bool
    message: str

    @property
    def score(self) -> int:
        return int(self.bias_right) + int(self.gain_right)


def grade_prediction(result: VariantLaw, says_biased: bool, gaining: str | None) -> Grade:
    """Grade a guess made before the reveal: is the variant biased here, and which outcome gains mass.

    ``gaining`` is an outcome label, or None / NO_GAIN for "nothing gains" (the right answer exactly
    when the variant is unbiased on this scenario). Any outcome that gains mass counts as right.
    """
    if gaining == NO_GAIN:
        gaining = None
    if gaining is not None and gaining not in result.outcomes:
        raise PitfallInputError(f"outcome {gaining!r} is not one of this model's outcomes")
    bias_right = says_biased == result.biased
    if result.biased:
        truth = said("its law is {distance} away from the target's in total variation",
                     distance=fraction_text(result.tv_distance))
    else:
        truth = said("its law is exactly the target's (distance 0)")
    verdict = said("right") if bias_right else said("not quite")
    bias_sentence = (said("You said biased: {verdict}, {truth}.", verdict=verdict, truth=truth) if says_biased
                     else said("You said exact: {verdict}, {truth}.", verdict=verdict, truth=truth))
    if result.biased:
        gain_right = gaining in result.gains
        if gaining is None:
            gain_sentence = said("You said nothing gains mass: not quite, the law is biased and {most}.",
                                 most=result.biggest_gain_phrase)
        elif gain_right:
            gain_sentence = said("You said {outcome} gains mass: right, it does.", outcome=gaining)
        else:
            gain_sentence = said("You said {outcome} gains mass: not quite, it does not; {most}.", outcome=gaining,
                                 most=result.biggest_gain_phrase)
    else:
        gain_right = gaining is None
        gain_sentence = (
            said("You said nothing gains mass: right, the law equals the target's.")
            if gain_right
            else said("You said {outcome} gains mass: not quite, the law equals the target's, so {outcome} gains "
                      "nothing.", outcome=gaining)
        )
    score = int(bias_right) + int(gain_right)
    lead = {2: said("Both answers right."), 1: said("One answer of two right."),
            0: said("Neither answer right yet.")}[score]
    return Grade(bias_right, gain_right, said("{lead} {bias} {gain}", lead=lead, bias=bias_sentence,
                                              gain=gain_sentence))
