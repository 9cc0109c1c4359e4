"""Finite distributions over named tokens: parsing, exact validation, float validation.

Values are read exactly with ``fractions.Fraction`` (``0.1`` is the decimal 1/10, not the binary
float nearest to it). Every way a distribution can be wrong has its own error type, and every
message names the token and the problem, so pages and the CLI can show it as it is.
"""

from __future__ import annotations

import csv
import io
import json
import math
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np

from lab.core.errors import LabInputError, said, said_of
from lab.core.numbers import NonFiniteNumberError, NumberInputError, read_number, shown, to_fraction  # noqa: F401 (re-exported for its importers)

# The float path accepts a sum within this distance of 1 (float64 rounding of many small terms);
# the exact path accepts only a sum of exactly 1.
FLOAT_SUM_TOLERANCE = 1e-9

SPEC_FILE_SUFFIXES = (".json", ".csv", ".toml")


class DistributionError(LabInputError):
    """A distribution is not a valid finite probability vector; ``token`` names the culprit."""

    def __init__(self, message: str, token: str | None = None, name: str | None = None):
        super().__init__(said("{name}: {problem}", name=name, problem=message) if name else message)
        self.token = token
        self.name = name


class EmptyDistributionError(DistributionError):
    pass


class TokenNameError(DistributionError):
    pass


class DuplicateTokenError(DistributionError):
    pass


class TokenMismatchError(DistributionError):
    pass


class InvalidValueError(DistributionError):
    """Text that is not a number at all, or a fraction with a zero denominator."""


class NonFiniteValueError(DistributionError):
    pass


class NegativeValueError(DistributionError):
    pass


class SumError(DistributionError):
    pass


class ValueAboveOneError(SumError):
    """One value alone exceeds 1 (without normalising), so the sum cannot be 1."""


class SpecFileError(LabInputError):
    """A distribution file that cannot be read or has the wrong shape."""


def parse_value(text: str | int | float | Fraction, token: str = "?", name: str | None = None,
                decimal_comma: bool = False) -> Fraction:
    """Read one probability exactly: ``3/4``, ``0.75``, ``1`` or ``1e-3`` (through lab.core.numbers,
    which checks length, digits and exponent on the text before any arithmetic); ``0,75`` too with
    ``decimal_comma`` (a language that writes it so).

    Negative values are returned (the sign is checked by :func:`check_exact`, which names the
    token); NaN, infinities, non-numbers, ``x/0`` and values beyond the number limits raise here.
    """
    try:
        return read_number(text, said("token {token}", token=repr(token)), allow_decimal_comma=decimal_comma).value
    except NonFiniteNumberError as exc:
        raise NonFiniteValueError(said_of(exc), token, name) from None
    except NumberInputError as exc:
        error = InvalidValueError(said_of(exc), token, name)
        error.limit = exc.limit
        raise error from None


MAX_TOKEN_NAME_CHARS = 100  # a longer name is refused before it is quoted in any message


def check_token_name(token: str, name: str | None = None) -> str:
    cleaned = token.strip()
    if not cleaned:
        raise TokenNameError(said("a token name is empty"), None, name)
    if len(cleaned) > MAX_TOKEN_NAME_CHARS:
        raise TokenNameError(
            said("the token name {name} is longer than {limit} characters", name=shown(cleaned),
                 limit=MAX_TOKEN_NAME_CHARS), None, name
        )
    if any(ch in cleaned for ch in "=,\n\r\t"):
        raise TokenNameError(
            said("token {token}: a name may not contain '=', ',' or line breaks", token=repr(cleaned)), cleaned, name
        )
    return cleaned


@dataclass(frozen=True)
class Distribution:
    """An exact distribution: token names in display order and their Fraction masses."""

    tokens: tuple[str, ...]
    values: tuple[Fraction, ...]

    def __post_init__(self):
        if len(self.tokens) != len(self.values):
            raise ValueError("tokens and values differ in length")

    def as_dict(self) -> dict[str, Fraction]:
        return dict(zip(self.tokens, self.values))

    def as_array(self) -> np.ndarray:
        return np.array([float(v) for v in self.values], dtype=np.float64)

    def __getitem__(self, token: str) -> Fraction:
        return self.as_dict()[token]

    def __len__(self) -> int:
        return len(self.tokens)

    def total(self) -> Fraction:
        return sum(self.values, Fraction(0))


def from_pairs(pairs, name: str | None = None, normalize: bool = False, check_sum: bool = True,
               decimal_comma: bool = False) -> Distribution:
    """Build and validate a distribution from ``(token, value)`` pairs (values as text or numbers).

    ``check_sum=False`` leaves the sum to the float path, which checks it within its tolerance.
    ``decimal_comma``: values may be written ``0,75``.
    """
    tokens: list[str] = []
    values: list[Fraction] = []
    seen: set[str] = set()
    for raw_token, raw_value in pairs:
        token = check_token_name(str(raw_token), name)
        if token in seen:
            raise DuplicateTokenError(said("token {token} appears more than once", token=repr(token)), token, name)
        seen.add(token)
        tokens.append(token)
        values.append(parse_value(raw_value, token, name, decimal_comma))
    return check_exact(Distribution(tuple(tokens), tuple(values)), name=name, normalize=normalize, check_sum=check_sum)


def parse_spec_text(
    text: str, name: str | None = None, normalize: bool = False, check_sum: bool = True, decimal_comma: bool = False
) -> Distribution:
    """Parse ``A=1/10,B=3/5,C=3/10`` (commas or new lines between entries). With ``decimal_comma`` (a language
    that writes 0,75) the comma is the decimal mark and entries are separated by ``;`` or new lines:
    ``A=0,1;B=0,6;C=0,3``; a comma between entries is then never read as a separator (the value that holds it
    is refused, naming its token)."""
    separator = ";" if decimal_comma else ","
    entries = [part.strip() for part in text.replace("\n", separator).split(separator)]
    entries = [e for e in entries if e]
    if not entries:
        raise EmptyDistributionError(said("the distribution is empty (write it as A=1/2,B=1/2)"), None, name)
    pairs = []
    for entry in entries:
        if "=" not in entry:
            raise InvalidValueError(
                said("entry {entry} is not of the form token=value", entry=repr(entry)), entry, name
            )
        token, _, value = entry.partition("=")
        if decimal_comma and "=" in value:  # "A=0,5,B=0,5": a comma written between two entries
            raise InvalidValueError(
                said("token {token}: {value} holds another entry: separate entries with ';' (the comma is the decimal "
                     "mark here)", token=repr(token.strip()), value=shown(value.strip())), token.strip(), name
            )
        pairs.append((token, value))
    return from_pairs(pairs, name=name, normalize=normalize, check_sum=check_sum, decimal_comma=decimal_comma)


def load_spec_file(
    path: str | Path, name: str | None = None, normalize: bool = False, check_sum: bool = True
) -> Distribution:
    """Read a distribution from .json (``{"A": "1/2", ...}``), .csv (``token,value`` rows)
    or .toml (``A = "1/2"``) files. Numbers in files are read as the decimals written."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecFileError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(text, parse_float=str, parse_int=str)
            if not isinstance(data, dict):
                raise SpecFileError(f"{path}: expected a JSON object of token: value")
            pairs = list(data.items())
        elif suffix == ".toml":
            data = tomllib.loads(text, parse_float=str)
            pairs = list(data.items())
            for token, value in pairs:
                if isinstance(value, (dict, list)):
                    raise SpecFileError(f"{path}: token {token!r} must map to a single value")
        elif suffix == ".csv":
            rows = [r for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
            if rows and [c.strip().lower() for c in rows[0][:2]] == ["token", "value"]:
                rows = rows[1:]
            for row in rows:
                if len(row) != 2:
                    raise SpecFileError(f"{path}: each row must be token,value (got {','.join(row)!r})")
            pairs = [(r[0], r[1]) for r in rows]
        else:
            raise SpecFileError(f"{path}: unsupported file type {suffix!r} (use .json, .csv or .toml)")
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, csv.Error) as exc:
        raise SpecFileError(f"{path}: not valid {suffix[1:]} ({exc})") from None
    if not pairs:
        raise EmptyDistributionError(f"{path}: the distribution is empty", None, name)
    return from_pairs(pairs, name=name, normalize=normalize, check_sum=check_sum)


def parse_spec(spec: str, name: str | None = None, normalize: bool = False, check_sum: bool = True) -> Distribution:
    """A ``token=value`` list, or a path to a .json/.csv/.toml file holding one."""
    stripped = spec.strip()
    if "=" not in stripped and stripped.lower().endswith(SPEC_FILE_SUFFIXES):
        return load_spec_file(stripped, name=name, normalize=normalize, check_sum=check_sum)
    return parse_spec_text(spec, name=name, normalize=normalize, check_sum=check_sum)


def value_text(value: Fraction) -> str:
    """A value for an error message: ``3/2 (1.5)``, or only the decimal when the fraction is long."""
    exact = str(value)
    approx = f"{(Decimal(value.numerator) / Decimal(value.denominator)).normalize():.6g}"  # no float overflow
    if value.denominator == 1:
        return exact if len(exact) <= 20 else approx
    return f"{exact} ({approx})" if len(exact) <= 40 else approx


def check_exact(
    dist: Distribution, name: str | None = None, normalize: bool = False, check_sum: bool = True
) -> Distribution:
    """Validate an exact distribution; with ``normalize`` divide by the (positive) total instead of
    requiring it to be exactly 1. Normalising is never done silently."""
    if not dist.tokens:
        raise EmptyDistributionError(said("the distribution is empty"), None, name)
    for token, value in zip(dist.tokens, dist.values):
        if value < 0:
            raise NegativeValueError(
                said("token {token}: probability {value} is negative", token=repr(token), value=value_text(value)),
                token,
                name,
            )
    if not normalize:  # as weights to normalise, values above 1 are fine
        for token, value in zip(dist.tokens, dist.values):
            if value > 1:
                raise ValueAboveOneError(
                    said("token {token}: probability {value} is greater than 1", token=repr(token),
                         value=value_text(value)),
                    token,
                    name,
                )
    total = dist.total()
    if normalize:
        if total == 0:
            raise SumError(said("cannot normalise: every value is zero"), None, name)
        if total != 1:
            dist = Distribution(dist.tokens, tuple(v / total for v in dist.values))
    elif check_sum and total != 1:
        shown_total = value_text(total)
        error = SumError(
            said("the values sum to {total}, not 1 (fix a value or normalise explicitly)", total=shown_total),
            None,
            name,
        )
        error.total = shown_total  # a page's own advice says it again (lab.core.token_table)
        raise error
    return dist


def check_same_tokens(p: Distribution, q: Distribution) -> Distribution:
    """Return q reordered to p's token order; p and q must have exactly the same token set."""
    if p.tokens == q.tokens:
        return q
    p_set, q_set = set(p.tokens), set(q.tokens)
    only_p = [t for t in p.tokens if t not in q_set]
    only_q = [t for t in q.tokens if t not in p_set]
    if only_p:
        raise TokenMismatchError(said("token {token} is in p but not in q", token=repr(only_p[0])), only_p[0])
    if only_q:
        raise TokenMismatchError(said("token {token} is in q but not in p", token=repr(only_q[0])), only_q[0])
    q_map = q.as_dict()
    return Distribution(p.tokens, tuple(q_map[t] for t in p.tokens))


def _token_label(tokens, index: int) -> str:
    return str(tokens[index]) if tokens is not None else f"#{index}"


def check_float(
    values: np.ndarray,
    tokens=None,
    name: str | None = None,
    tolerance: float = FLOAT_SUM_TOLERANCE,
    total: float | None = None,
) -> None:
    """Validate a float64 probability vector without a Python loop over the vocabulary.

    Cheap reductions decide the common case; only a failing vector is scanned for the culprit.
    ``total`` may be passed when the caller has already summed the vector.
    """
    if values.ndim != 1:
        raise InvalidValueError(f"expected a 1-D vector of probabilities, got shape {values.shape}", None, name)
    if values.size == 0:
        raise EmptyDistributionError("the distribution is empty", None, name)
    smallest = values.min()
    if not smallest >= 0:  # also catches NaN, whose comparisons are all false
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            raise NonFiniteValueError(
                f"token {_token_label(tokens, i)!r}: value {values[i]} is not finite", _token_label(tokens, i), name
            )
        i = int(np.argmin(values))
        raise NegativeValueError(
            f"token {_token_label(tokens, i)!r}: probability {values[i]:.6g} is negative", _token_label(tokens, i), name
        )
    if total is None:
        total = float(values.sum())
    if not math.isfinite(total):
        i = int(np.flatnonzero(~np.isfinite(values))[0])
        raise NonFiniteValueError(
            f"token {_token_label(tokens, i)!r}: value {values[i]} is not finite", _token_label(tokens, i), name
        )
    if abs(total - 1.0) > tolerance:
        raise SumError(f"the values sum to {total:.17g}, not 1 within the float tolerance {tolerance:g}", None, name)


def snap_to_step(value: Fraction, step: Fraction = Fraction(1, 100)) -> Fraction:
    """The nearest slider position (a multiple of ``step``)."""
    return round(value / step) * step
