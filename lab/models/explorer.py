"""The residual explorer's model: the editable token table, URL state, predictions and their score.

Pure Python (no Streamlit). The page keeps a list of :class:`TokenRow` (the text a person typed),
asks :func:`parse_rows` for validated exact distributions, and shows the error message as it is
when the text is wrong (every message names the token, or the row when the name itself is wrong).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from lab.core.distance import total_variation
from lab.core.distributions import (
    Distribution,
    DistributionError,
    LabInputError,
    check_token_name,
    from_pairs,
    to_fraction,
)
from lab.core.formatting import fraction_text
from lab.core.residual import ResidualResult

MAX_TOKENS = 26
PREDICTION_STEP = Fraction(1, 100)  # the prediction sliders move in hundredths


class ExplorerInputError(LabInputError):
    """A token table, URL value or prediction that cannot be used; ``token`` names the culprit."""

    def __init__(self, message: str, token: str | None = None):
        super().__init__(message)
        self.token = token


@dataclass(frozen=True)
class TokenRow:
    """One editable row: the token's name and its p and q as typed (fractions or decimals)."""

    name: str
    p: str
    q: str


def rows_from_distributions(p: Distribution, q: Distribution) -> list[TokenRow]:
    q_map = q.as_dict()
    return [TokenRow(t, fraction_text(v), fraction_text(q_map[t])) for t, v in zip(p.tokens, p.values)]


def parse_rows(rows: Sequence[TokenRow]) -> tuple[Distribution, Distribution]:
    """Validate the table: 1 to 26 tokens, names non-empty and distinct, p and q each summing to 1."""
    if not rows:
        raise ExplorerInputError("the table has no tokens: add at least one")
    if len(rows) > MAX_TOKENS:
        raise ExplorerInputError(f"the table has {len(rows)} tokens; at most {MAX_TOKENS} are allowed")
    names = []
    for i, row in enumerate(rows, start=1):
        try:
            names.append(check_token_name(row.name))
        except DistributionError as exc:
            raise ExplorerInputError(f"row {i}: {exc}", exc.token) from None
    try:
        p = from_pairs(zip(names, (row.p for row in rows)), name="p")
        q = from_pairs(zip(names, (row.q for row in rows)), name="q")
    except DistributionError as exc:
        raise ExplorerInputError(str(exc), exc.token) from None
    return p, q


# --- URL state --------------------------------------------------------------------------------
# The table travels as three comma lists (token names cannot hold commas): tokens=A,B,C,
# p=1/10,3/5,3/10, q=1/2,3/10,1/5; predictions as r=0.5,0.25,0.25 and z=0.4.


def encode_table(p: Distribution, q: Distribution) -> dict[str, str]:
    q_map = q.as_dict()
    return {
        "tokens": ",".join(p.tokens),
        "p": ",".join(fraction_text(v) for v in p.values),
        "q": ",".join(fraction_text(q_map[t]) for t in p.tokens),
    }


def decode_table(tokens: str, p: str, q: str) -> list[TokenRow]:
    """Rows from URL values, validated exactly like typed input (raises ExplorerInputError)."""
    names = [t.strip() for t in str(tokens).split(",")]
    ps = [v.strip() for v in str(p).split(",")]
    qs = [v.strip() for v in str(q).split(",")]
    if not (len(names) == len(ps) == len(qs)):
        raise ExplorerInputError(f"link: {len(names)} token names but {len(ps)} values of p and {len(qs)} values of q")
    rows = [TokenRow(n, a, b) for n, a, b in zip(names, ps, qs)]
    parse_rows(rows)
    return rows


def parse_prediction_value(text, label: str) -> Fraction:
    """One predicted probability (0 to 1), read exactly; ``label`` names it in the error."""
    try:
        value = Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise ExplorerInputError(f"{label}: {str(text)!r} is not a number", label) from None
    if not 0 <= value <= 1:
        raise ExplorerInputError(f"{label}: {fraction_text(value)} is outside 0 to 1", label)
    return value


def encode_prediction(values: Sequence) -> str:
    """``0.5,0.25,0.25``: slider floats as the decimals they show, Fractions as fractions."""
    return ",".join(format(v, ".10g") if isinstance(v, float) else fraction_text(v) for v in values)


def decode_prediction(
    text: str, tokens: Sequence[str], what: str = "tokens", label: str = "prediction of r({})"
) -> tuple[Fraction, ...]:
    """Predictions from the URL: one value per token (or outcome), each 0 to 1 (fraction or decimal)."""
    parts = [v.strip() for v in str(text).split(",")]
    if len(parts) != len(tokens):
        raise ExplorerInputError(f"link: {len(parts)} predicted values for {len(tokens)} {what}")
    return tuple(parse_prediction_value(v, "link: " + label.format(t)) for v, t in zip(parts, tokens))


# --- scoring ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictionScore:
    """How a predicted residual compares with the exact one.

    ``errors`` are prediction minus truth per token; ``tv`` is the total variation distance
    (half the sum of absolute errors; for a prediction that does not sum to 1 it is still half the
    L1 distance, and ``prediction_total`` says so).
    """

    tokens: tuple[str, ...]
    prediction: tuple[Fraction, ...]
    truth: tuple[Fraction, ...]
    errors: tuple[Fraction, ...]
    tv: Fraction
    prediction_total: Fraction
    z_prediction: Fraction | None
    z_truth: Fraction
    z_error: Fraction | None

    @property
    def worst_token(self) -> str:
        i = max(range(len(self.errors)), key=lambda k: abs(self.errors[k]))
        return self.tokens[i]


def score_prediction(result: ResidualResult, prediction: Sequence, z_prediction=None) -> PredictionScore:
    """Score a prediction of r (one value per token) and of Z against an exact residual with Z > 0."""
    if result.residual is None:
        raise ExplorerInputError("Z = 0: there is no residual to compare a prediction with")
    if len(prediction) != len(result.tokens):
        raise ExplorerInputError(f"{len(prediction)} predicted values for {len(result.tokens)} tokens")
    pred = tuple(to_fraction(v) for v in prediction)
    truth = tuple(result.residual)
    errors = tuple(a - b for a, b in zip(pred, truth))
    tv = total_variation(pred, truth)
    zp = None if z_prediction is None else to_fraction(z_prediction)
    return PredictionScore(
        tokens=tuple(result.tokens),
        prediction=pred,
        truth=truth,
        errors=errors,
        tv=tv,
        prediction_total=sum(pred, Fraction(0)),
        z_prediction=zp,
        z_truth=result.z,
        z_error=None if zp is None else zp - result.z,
    )


def score_z_only(result: ResidualResult, z_prediction) -> Fraction:
    """Z prediction minus the exact Z (the only thing to score when Z = 0)."""
    return to_fraction(z_prediction) - result.z


def reconstruction_rows(result: ResidualResult) -> list[dict[str, Fraction | str | None]]:
    """Per token: p, q, accepted min(p, q), r (None when Z = 0), Z*r, accepted + Z*r (equal to p)."""
    rows = []
    for i, token in enumerate(result.tokens):
        rows.append(
            {
                "token": token,
                "p": result.p[i],
                "q": result.q[i],
                "accepted": result.accepted[i],
                "r": None if result.residual is None else result.residual[i],
                "correction": result.correction[i],
                "total": result.reconstruction[i],
            }
        )
    return rows


def next_token_name(existing: Sequence[str]) -> str:
    """A fresh name for an added row: the first unused capital letter, else T27, T28, ..."""
    used = set(existing)
    for code in range(ord("A"), ord("Z") + 1):
        if chr(code) not in used:
            return chr(code)
    k = len(existing) + 1
    while f"T{k}" in used:
        k += 1
    return f"T{k}"
