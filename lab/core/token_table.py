"""A table of tokens with their target p and draft q, as a person types it: the checks every page that takes one
applies (the Residual explorer, a teacher's own question in a class), with messages that name the token, or the
row when the name itself is wrong. Pure Python.

The table travels as three comma lists (token names cannot hold commas): tokens=A,B,C, p=1/10,3/5,3/10,
q=1/2,3/10,1/5 (the explorer's link, a class question's stored form).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lab.core.distributions import (
    Distribution,
    DistributionError,
    LabInputError,
    SumError,
    check_token_name,
    from_pairs,
)
from lab.core.formatting import fraction_text
from lab.core.numbers import shown

MAX_TOKENS = 26
MAX_NAME_CHARS = 40  # a token name: longer ones are refused with a message (no character counter on the page)


class TableInputError(LabInputError):
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


def row_names(rows: Sequence[TokenRow]) -> list[str]:
    """The rows' token names, checked (the message names the row): not empty, not too long, no separators."""
    names = []
    for i, row in enumerate(rows, start=1):
        if len(row.name) > MAX_NAME_CHARS:
            raise TableInputError(
                f"row {i}: the token name {shown(row.name)} is longer than {MAX_NAME_CHARS} characters"
            )
        try:
            names.append(check_token_name(row.name))
        except DistributionError as exc:
            raise TableInputError(f"row {i}: {exc}", exc.token) from None
    return names


def parse_rows(rows: Sequence[TokenRow]) -> tuple[Distribution, Distribution]:
    """Validate the table: 1 to 26 tokens, names non-empty and distinct, p and q each summing to 1."""
    if not rows:
        raise TableInputError("the table has no tokens: add at least one")
    if len(rows) > MAX_TOKENS:
        raise TableInputError(f"the table has {len(rows)} tokens; at most {MAX_TOKENS} are allowed")
    names = row_names(rows)
    try:
        p = from_pairs(zip(names, (row.p for row in rows)), name="p")
        q = from_pairs(zip(names, (row.q for row in rows)), name="q")
    except SumError as exc:
        if exc.token is not None:  # one value above 1
            raise TableInputError(
                f"{exc}; Normalise {exc.name} divides every value by their sum", exc.token
            ) from None
        raise TableInputError(
            str(exc).replace("normalise explicitly", f"press Normalise {exc.name} to divide every value by the sum"),
            exc.token,
        ) from None
    except DistributionError as exc:
        raise TableInputError(str(exc), exc.token) from None
    return p, q


TABLE_PARAMS = ("tokens", "p", "q")  # the token table's link parameters


def encode_table(p: Distribution, q: Distribution) -> dict[str, str]:
    q_map = q.as_dict()
    columns = (p.tokens, map(fraction_text, p.values), (fraction_text(q_map[t]) for t in p.tokens))
    return {param: ",".join(column) for param, column in zip(TABLE_PARAMS, columns)}


def split_list(text: str, what: str, where: str) -> list[str]:
    """A comma list, refused by its count before anything in it is read."""
    text = str(text)
    count = text.count(",") + 1
    if count > MAX_TOKENS:
        raise TableInputError(f"{where}: {what} has {count:,} values; at most {MAX_TOKENS} are allowed")
    return [v.strip() for v in text.split(",")]


def decode_table(tokens: str, p: str, q: str, where: str = "link") -> list[TokenRow]:
    """Rows from three comma lists (a link's values, or three boxes: ``where`` names them in a message), validated
    exactly like typed rows (raises TableInputError)."""
    names = split_list(tokens, "tokens", where)
    ps = split_list(p, "p", where)
    qs = split_list(q, "q", where)
    if not (len(names) == len(ps) == len(qs)):
        raise TableInputError(
            f"{where}: {len(names)} token names but {len(ps)} values of p and {len(qs)} values of q"
        )
    rows = [TokenRow(n, a, b) for n, a, b in zip(names, ps, qs)]
    parse_rows(rows)
    return rows
