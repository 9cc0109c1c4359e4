"""The lab's words, each defined once for a student who has never heard of speculative sampling (no Streamlit).

The Glossary page lists them; the lesson links each term where it first appears (``glossary#<slug>``), and the
pages' help texts say the same thing in the same words.
"""

from __future__ import annotations

from typing import NamedTuple

from lab.i18n import N_


class Term(NamedTuple):
    slug: str  # the anchor on the Glossary page
    word: str  # marked for the catalogs (lab/i18n) in English: translated where shown
    meaning: str


TERMS = (
    Term("token", N_("Token"), N_(
        "One unit of text a language model writes at a time: a word or a piece of a word. The vocabulary is "
        "the set of every token the model can write."
    )),
    Term("target", N_("Target (p)"), N_(
        "The large, slow model whose text we want. p(x) is the probability it gives token x as the next "
        "token; speculative sampling's output follows p exactly."
    )),
    Term("draft", N_("Draft (q)"), N_(
        "The small, fast model that guesses the next token. q(x) is the probability it proposes x."
    )),
    Term("speculative", N_("Speculative sampling"), N_(
        "The draft guesses, the target checks: a guess x is kept with probability min(1, p(x)/q(x)); a "
        "rejected guess is replaced by a fresh draw from the residual r. The output follows the target p "
        "exactly, and the target can check several guesses at once."
    )),
    Term("proposal", N_("Proposal"), N_(
        "The token the draft guesses, drawn from q."
    )),
    Term("kept", N_("Kept"), N_(
        "A proposal the target accepts: it happens with probability min(1, p(x)/q(x)). Kept proposals give "
        "each token min(p(x), q(x))."
    )),
    Term("rejected", N_("Rejected"), N_(
        "A proposal the target does not keep; a fresh draw from the residual r replaces it."
    )),
    Term("alpha", N_("α (alpha), acceptance probability"), N_(
        "The probability that a step keeps its proposal: α = Σ min(p, q), summed over every token."
    )),
    Term("z", N_("Z, rejection probability"), N_(
        "The probability that a step rejects its proposal: Z = Σ max(0, p − q) = 1 − α. Z = 0 (p = q) means "
        "no rejection can happen."
    )),
    Term("residual", N_("Residual (r)"), N_(
        "What a rejection draws from: r(x) = max(0, p(x) − q(x)) / Z, over the target's whole vocabulary. It "
        "holds the target's mass that kept proposals miss. When Z = 0 it is not defined, and never needed."
    )),
    Term("reconstruction", N_("Reconstruction"), N_(
        "min(p, q) + Z · r = p, token by token: kept proposals plus corrections give back the target exactly."
    )),
    Term("correction", N_("Correction"), N_(
        "The token drawn from the residual after a rejection. Z · r(x) is the probability that a step outputs"
        " x through a correction."
    )),
    Term("epsilon", N_("Epsilon"), N_(
        "A tiny number some code adds to avoid dividing by zero. The lab never does: when Z = 0 there is no "
        "rejection, so nothing is divided."
    )),
    Term("law", N_("Law"), N_(
        "The distribution of a sampler's outputs: the probability of each possible output. Two samplers with "
        "the same law may write different text, yet every output has the same probability under both."
    )),
    Term("tv", N_("TV distance"), N_(
        "Total variation distance between two distributions: half the sum over tokens of |difference|, from 0"
        " (the same) to 1 (nothing in common); the largest difference in the probability of any event."
    )),
    Term("block", N_("Block"), N_(
        "K tokens the draft guesses in a row for the target to check at once. The first rejection ends the "
        "block; if every guess is kept the target adds one bonus token."
    )),
)


def term(slug: str) -> Term:
    return next(t for t in TERMS if t.slug == slug)
