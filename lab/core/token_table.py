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
    ValueAboveOneError,
    check_token_name,
    from_pairs,
)
from lab.core.errors import said, said_of
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
                said("row {row}: the token name {name} is longer than {limit} characters", row=i, name=shown(row.name),
                     limit=MAX_NAME_CHARS)
            )
        try:
            names.append(check_token_name(row.name))
        except DistributionError as exc:
            raise TableInputError(said("row {row}: {problem}", row=i, problem=said_of(exc)), exc.token) from None
    return names


def parse_rows(rows: Sequence[TokenRow], decimal_comma: bool = False) -> tuple[Distribution, Distribution]:
    """Validate the table: 1 to 26 tokens, names non-empty and distinct, p and q each summing to 1 (``decimal_comma``:
    ``0,3`` is read as 0.3 too, for a language that writes it so; a box holds one value, so no comma is ambiguous)."""
    if not rows:
        raise TableInputError(said("the table has no tokens: add at least one"))
    if len(rows) > MAX_TOKENS:
        raise TableInputError(
            said("the table has {count} tokens; at most {limit} are allowed", count=len(rows), limit=MAX_TOKENS)
        )
    names = row_names(rows)
    try:
        p = from_pairs(zip(names, (row.p for row in rows)), name="p", decimal_comma=decimal_comma)
        q = from_pairs(zip(names, (row.q for row in rows)), name="q", decimal_comma=decimal_comma)
    except ValueAboveOneError as exc:
        raise TableInputError(
            said("{problem}; Normalise {column} divides every value by their sum", problem=said_of(exc),
                 column=exc.name),
            exc.token,
        ) from None
    except SumError as exc:  # the sum is not 1 (normalising is not asked here, so never "every value is zero")
        raise TableInputError(
            said("{column}: the values sum to {total}, not 1 (fix a value or press Normalise {column} to divide every "
                 "value by the sum)", column=exc.name, total=exc.total),
            exc.token,
        ) from None
    except DistributionError as exc:
        raise TableInputError(said_of(exc), exc.token) from None
    return p, q


TABLE_PARAMS = ("tokens", "p", "q")  # the token table's link parameters


def encode_table(p: Distribution, q: Distribution) -> dict[str, str]:
    q_map = q.as_dict()
    columns = (p.tokens, map(fraction_text, p.values), (fraction_text(q_map[t]) for t in p.tokens))
    return {param: ",".join(column) for param, column in zip(TABLE_PARAMS, columns)}


def _at(where: str | None, problem):
    """A problem with the place it was found in front ("link: …"), or alone when ``where`` is None."""
    return problem if where is None else said("{where}: {problem}", where=where, problem=problem)


def split_list(text: str, what: str, where: str | None) -> list[str]:
    """A comma list, refused by its count before anything in it is read."""
    text = str(text)
    count = text.count(",") + 1
    if count > MAX_TOKENS:
        raise TableInputError(
            _at(where, said("{what} has {count} values; at most {limit} are allowed", what=what,
                            count=format(count, ","), limit=MAX_TOKENS))
        )
    return [v.strip() for v in text.split(",")]


def decode_table(tokens: str, p: str, q: str, where: str | None = "link") -> list[TokenRow]:
    """Rows from three comma lists (a link's values, or three boxes: ``where`` names them in a message, None for
    no name), validated exactly like typed rows (raises TableInputError)."""
    names = split_list(tokens, said("tokens"), where)
    ps = split_list(p, "p", where)
    qs = split_list(q, "q", where)
    if not (len(names) == len(ps) == len(qs)):
        raise TableInputError(
            _at(where, said("{names} token names but {p} values of p and {q} values of q", names=len(names),
                            p=len(ps), q=len(qs)))
        )
    rows = [TokenRow(n, a, b) for n, a, b in zip(names, ps, qs)]
    parse_rows(rows)
    return rows
