"""Which known mistake does an answer match: the one home for the wrong values a mistake gives.

Exercises feedback (one asked quantity, matched exactly) and a class's wrong-pattern diagnosis (several
predicted bars and Z, matched within the class's tolerance) both ask this module, so a mistake has one
definition, one name on the teacher's dashboard and one sentence for the student. Pure Python, exact
Fractions, computed from a :class:`~lab.core.residual.ResidualResult` over the target's whole vocabulary.

A student's sentence names the mistake and says what to do differently; it never contains a value, so it
never gives the right answer away.

Three things are called mistakes in the lab, each with its own name: an :class:`AnswerMistake` (here) is a wrong
answer a student gives; a mistaken sampler is a :class:`~lab.core.variants.Variant` (a rule of speculative
sampling), and its :class:`~lab.teaching.pitfalls.PitfallCard` is the card that teaches it (with its words,
``VARIANT_WORDS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from lab.core.residual import ResidualResult
from lab.i18n import N_

ALPHA, Z, R, CORRECTION, SECOND, TARGET2 = "alpha", "z", "r", "correction", "second", "second-target"
# SECOND: the keep probability of a second candidate; TARGET2: p₂, the target it is tested against (the residual r)
QUANTITIES = (ALPHA, Z, R, CORRECTION, SECOND, TARGET2)


@dataclass(frozen=True)
class Field:
    """One asked value: ``quantity`` (alpha, z, r or correction) and, for r and correction, its token."""

    quantity: str
    token: str | None = None


@dataclass(frozen=True)
class AnswerMistake:
    key: str
    name: str  # the teacher's dashboard words
    feedback: str  # one sentence for the student; ``{t}`` is the asked token; never a value


P_FOR_R = AnswerMistake(
    "p-for-r",
    N_("r proportional to p"),
    N_("That is p({t}), the target's own probability: r({t}) is only the part of p({t}) that q({t}) misses, "
       "max(0, p({t}) − q({t})), divided by Z."),
)
NOT_DIVIDED_BY_Z = AnswerMistake(
    "not-divided-by-z",
    N_("p − q not normalised by Z"),
    N_("That is max(0, p({t}) − q({t})) itself, which is Z·r({t}), the correction term: r({t}) divides it by Z."),
)
R_FOR_CORRECTION = AnswerMistake(
    "r-for-correction",
    N_("r given for Z·r"),
    N_("That is r({t}), the residual itself: the question asks for the correction term Z·r({t}), so multiply r({t}) "
       "by Z."),
)
ALPHA_FOR_Z = AnswerMistake(
    "alpha-for-z",
    N_("Z confused with α"),
    N_("That uses α, the acceptance probability Σ min(p, q), where Z, the rejection probability Σ max(0, p − q), "
       "belongs."),
)
Z_FOR_ALPHA = AnswerMistake(
    "z-for-alpha",
    N_("α confused with Z"),
    N_("That is Z, the rejection probability Σ max(0, p − q): the question asks for α, the acceptance "
       "probability Σ min(p, q)."),
)
NUMBER_WITHOUT_REJECTION = AnswerMistake(
    "number-without-rejection",
    N_("a number where r is not defined"),
    N_("A number here misses the no-rejection case: check Z first, and ask what r({t}) = max(0, p({t}) − q({t})) / Z "
       "means when Z = 0."),
)
TESTED_AGAINST_P = AnswerMistake(
    "tested-against-p",
    N_("second candidate tested against p"),
    N_("You tested the second candidate against p, not against the residual: after the first rejection, {t} is "
       "kept with probability r({t}) / q({t}) (at most one), where r = max(0, p − q) / Z is what that rejection "
       "left."),
)
R_FOR_KEEP = AnswerMistake(
    "r-for-keep",
    N_("r given for the keep probability"),
    N_("That is r({t}), the residual itself: the second candidate {t} is kept with probability r({t}) / q({t}), at "
       "most one."),
)
MISTAKES = {
    m.key: m
    for m in (
        P_FOR_R,
        NOT_DIVIDED_BY_Z,
        R_FOR_CORRECTION,
        ALPHA_FOR_Z,
        Z_FOR_ALPHA,
        NUMBER_WITHOUT_REJECTION,
        TESTED_AGAINST_P,
        R_FOR_KEEP,
    )
}


def exact_value(result: ResidualResult, field: Field) -> Fraction | None:
    """The right value of ``field``; None for r on the no-rejection branch (0/0 is never evaluated)."""
    if field.quantity == ALPHA:
        return result.alpha
    if field.quantity == Z:
        return result.z
    i = result.tokens.index(field.token)
    if field.quantity in (R, TARGET2):
        return None if result.residual is None else result.residual[i]
    if field.quantity == CORRECTION:
        return result.correction[i]
    if field.quantity == SECOND:
        if result.residual is None or not result.q[i]:
            return None
        return min(Fraction(1), result.residual[i] / result.q[i])
    raise ValueError(f"quantity {field.quantity!r} is not one of {', '.join(QUANTITIES)}")


def mistaken_values(
    result: ResidualResult, fields: Sequence[Field], bars: Sequence[str] | None = None
) -> dict[str, dict[int, Fraction]]:
    """Per mistake key: {field index: the value the mistake gives}, for the fields it changes.

    ``bars`` are the tokens the student sees as one distribution (default: the whole vocabulary); "r
    proportional to p" normalises p over them. "Z confused with α" shows in Z itself when Z is asked,
    else in r = max(0, p − q) / α. Mistakes with no value here (r when Z = 0) are left out."""
    tokens = result.tokens
    excess = tuple(max(Fraction(0), a - b) for a, b in zip(result.p, result.q))
    bar_index = [tokens.index(t) for t in (tokens if bars is None else bars)]
    p_bars = sum((result.p[i] for i in bar_index), Fraction(0))
    asks_z = any(f.quantity == Z for f in fields)
    found: dict[str, dict[int, Fraction]] = {}

    def put(mistake: AnswerMistake, index: int, value: Fraction) -> None:
        found.setdefault(mistake.key, {})[index] = value

    for n, field in enumerate(fields):
        if field.quantity == Z:
            put(ALPHA_FOR_Z, n, result.alpha)
        elif field.quantity == ALPHA:
            put(Z_FOR_ALPHA, n, result.z)
        elif field.quantity == R and result.residual is not None:
            i = tokens.index(field.token)
            if p_bars:
                put(P_FOR_R, n, result.p[i] / p_bars)
            put(NOT_DIVIDED_BY_Z, n, excess[i])
            if not asks_z and result.alpha:
                put(ALPHA_FOR_Z, n, excess[i] / result.alpha)
        elif field.quantity == SECOND and result.residual is not None and result.q[tokens.index(field.token)]:
            i = tokens.index(field.token)
            put(TESTED_AGAINST_P, n, min(Fraction(1), result.p[i] / result.q[i]))
            put(R_FOR_KEEP, n, result.residual[i])
        elif field.quantity == TARGET2 and result.residual is not None:
            i = tokens.index(field.token)
            put(TESTED_AGAINST_P, n, result.p[i])
            put(NOT_DIVIDED_BY_Z, n, excess[i])
        elif field.quantity == CORRECTION and result.residual is not None:
            i = tokens.index(field.token)
            put(R_FOR_CORRECTION, n, result.residual[i])
            if not asks_z:  # the product with α in Z's place: α·r(t)
                put(ALPHA_FOR_Z, n, result.alpha * result.residual[i])
    return found


def wrong_patterns(
    result: ResidualResult,
    fields: Sequence[Field],
    tolerance: Fraction = Fraction(0),
    bars: Sequence[str] | None = None,
) -> dict[str, dict[int, Fraction]]:
    """:func:`mistaken_values` kept only where the mistake differs from the right answer by more than
    ``tolerance`` in some field, so that a match is evidence of the mistake."""
    exact = [exact_value(result, f) for f in fields]
    return {
        key: values
        for key, values in mistaken_values(result, fields, bars).items()
        if any(exact[i] is None or abs(v - exact[i]) > tolerance for i, v in values.items())
    }


def matching_mistakes(
    patterns: dict[str, dict[int, Fraction]], values: Sequence[Fraction], tolerance: Fraction = Fraction(0)
) -> tuple[AnswerMistake, ...]:
    """The mistakes of ``patterns`` (from :func:`wrong_patterns`) that ``values`` match within ``tolerance``
    in every field the mistake changes."""
    return tuple(
        MISTAKES[key]
        for key, wrong in patterns.items()
        if all(abs(values[i] - v) <= tolerance for i, v in wrong.items())
    )


def diagnose(
    result: ResidualResult, field: Field, value: Fraction, tolerance: Fraction = Fraction(0)
) -> AnswerMistake | None:
    """The mistake a wrong answer ``value`` to one asked ``field`` matches (within ``tolerance``), or None.

    An answer that matches two mistakes at once is not evidence of either: None. A number given for r on
    the no-rejection branch is :data:`NUMBER_WITHOUT_REJECTION`."""
    if field.quantity == R and result.residual is None:
        return NUMBER_WITHOUT_REJECTION
    exact = exact_value(result, field)
    if abs(value - exact) <= tolerance:
        return None
    found = matching_mistakes(wrong_patterns(result, [field], tolerance), [value], tolerance)
    return found[0] if len(found) == 1 else None


def feedback(mistake: AnswerMistake, token: str | None, words=None) -> str:
    """The student's sentence for ``mistake`` about ``token``; ``words``: the language's (gettext's ``_``, lab.i18n),
    else English."""
    return (words or str)(mistake.feedback).format(t=token or "x")
