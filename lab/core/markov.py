"""Toy autoregressive models: first-order Markov chains for a target p and a draft q.

A model file in ``scenarios/`` (``kind = "markov"``)::

    title = "..."
    kind = "markov"
    note = "..."                   # optional teaching note
    name = "markov-three"          # optional; must equal the file name without .toml
    vocab = ["x", "y", "z"]
    [target]                       # p(next | previous); ``start`` is the first position
    start = ["1/2", "1/3", "1/6"]
    x = ["0", "3/4", "1/4"]
    y = ["2/5", "2/5", "1/5"]
    z = ["1", "0", "0"]
    [draft]                        # q(next | previous), same shape (every row required)
    start = ["1/3", "1/3", "1/3"]
    ...

A model that stops names its stop token: ``stop = "<end>"``, a token of ``vocab``. The stop token needs no
row of its own (a sequence ends there); if ``[target]``/``[draft]`` give it one anyway, only the stop-token
mistakes read it (a decoder that goes on after the stop token); without one they see the ``start`` rows (what a
model trained on concatenated texts does after an end-of-text token: it begins a new text). The law of such a
model is over complete outputs: sequences ending with the stop token, or cut at the maximum length L
(the stop token counts as one of the L tokens), see :func:`lab.core.blocks.target_law`.

Every row is an exact distribution over the whole vocabulary (values as strings: fractions,
decimals or integers). Errors name the file and the field (``target.x``), and the token.

A one-step scenario (``kind = "step"``) is also a model: :func:`model_from_scenario` repeats its
p and q at every position (an i.i.d. model, so a length-1 law is the one-step law).

Contexts are integers: ``START = -1`` for the first position, otherwise the index of the previous
token in ``vocab``. ``model.p(prev)`` and ``model.q(prev)`` return rows as tuples of Fractions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path

from lab.core.distributions import DistributionError, LabInputError, TokenNameError, check_token_name, from_pairs
from lab.core.scenarios import (
    SCENARIO_DIR,
    STEP_KIND,
    ScenarioError,
    load_scenario_file,
    names_by_kind,
    read_toml,
    scenario_kind,
)
from lab.core.scenarios import scenario_names as _scenario_names

MARKOV_KIND = "markov"
START = -1
START_LABEL = "start"

Row = tuple[Fraction, ...]


class ModelError(LabInputError):
    """A model that does not exist or whose file is malformed (message names file and field)."""


@dataclass(frozen=True)
class MarkovModel:
    """A target and a draft first-order Markov chain over the same vocabulary.

    ``target[c + 1]`` / ``draft[c + 1]`` is the row for context ``c`` (``START`` = -1 is row 0).
    ``kind`` is ``"markov"`` for model files and ``"step"`` for a one-step scenario repeated i.i.d.
    """

    name: str
    title: str
    note: str
    vocab: tuple[str, ...]
    target: tuple[Row, ...]
    draft: tuple[Row, ...]
    kind: str = MARKOV_KIND
    path: Path | None = None
    stop: int | None = None  # index of the stop token in vocab (None: the model never stops)

    def p(self, prev: int) -> Row:
        return self.target[prev + 1]

    def q(self, prev: int) -> Row:
        return self.draft[prev + 1]

    @property
    def contexts(self) -> tuple[int, ...]:
        return tuple(range(START, len(self.vocab)))

    def context_label(self, prev: int) -> str:
        return START_LABEL if prev == START else self.vocab[prev]

    def sequence_text(self, tokens) -> str:
        return " ".join(self.vocab[t] for t in tokens)

    @property
    def stop_name(self) -> str | None:
        return None if self.stop is None else self.vocab[self.stop]

    def stopped(self, tokens) -> bool:
        """Whether a sequence ended with the stop token (rather than being cut at the maximum length)."""
        return self.stop is not None and len(tokens) > 0 and tokens[-1] == self.stop

    @property
    def is_iid(self) -> bool:
        """Every row equal to the start row (p and q), and no stop token: a one-step law repeated."""
        if self.stop is not None:
            return False
        return all(row == self.target[0] for row in self.target) and all(row == self.draft[0] for row in self.draft)


def _parse_row(values, vocab: tuple[str, ...], field: str, path: Path) -> Row:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ModelError(f'{path.name}: field {field!r} must be a list of strings (write values as "1/2")')
    if len(values) != len(vocab):
        raise ModelError(f"{path.name}: field {field!r} has {len(values)} values for {len(vocab)} tokens")
    try:
        return from_pairs(zip(vocab, values), name=field).values
    except DistributionError as exc:
        raise ModelError(f"{path.name}: field {field!r}: {exc}") from None


def _parse_table(
    data: dict, table: str, vocab: tuple[str, ...], path: Path, stop: str | None = None
) -> tuple[Row, ...]:
    if table not in data:
        raise ModelError(f"{path.name}: missing table [{table}]")
    rows = data[table]
    if not isinstance(rows, dict):
        raise ModelError(f"{path.name}: field {table!r} must be a table ([{table}])")
    for key in rows:
        if key != START_LABEL and key not in vocab:
            raise ModelError(f"{path.name}: field '{table}.{key}': {key!r} is neither 'start' nor a vocabulary token")
    parsed = []
    for context in (START_LABEL, *vocab):
        field = f"{table}.{context}"
        if context == stop and context not in rows:  # only a decoder going on past the stop token reads it
            parsed.append(parsed[0])
            continue
        if context not in rows:
            raise ModelError(f"{path.name}: missing field {field!r} (every context needs a row)")
        parsed.append(_parse_row(rows[context], vocab, field, path))
    return tuple(parsed)


def load_model_file(path: str | Path) -> MarkovModel:
    """Read and validate a Markov model file (or a one-step scenario file, repeated i.i.d.)."""
    path = Path(path)
    try:
        data = read_toml(path)
    except ScenarioError as exc:
        raise ModelError(str(exc)) from None
    kind = scenario_kind(data)
    if kind == STEP_KIND:
        try:
            return model_from_scenario(load_scenario_file(path))
        except ScenarioError as exc:
            raise ModelError(str(exc)) from None
    if kind != MARKOV_KIND:
        raise ModelError(f"{path.name}: field 'kind' is {kind!r} (expected 'markov' or 'step')")
    name = data.get("name", path.stem)
    if not isinstance(name, str) or name != path.stem:
        raise ModelError(f"{path.name}: field 'name' is {name!r} but must match the file name {path.stem!r}")
    title = data.get("title")
    if not isinstance(title, str):
        raise ModelError(f"{path.name}: missing field 'title' (a string)")
    note = data.get("note", "")
    if not isinstance(note, str):
        raise ModelError(f"{path.name}: field 'note' must be a string")
    raw_vocab = data.get("vocab")
    if not isinstance(raw_vocab, list) or not raw_vocab or not all(isinstance(v, str) for v in raw_vocab):
        raise ModelError(f"{path.name}: field 'vocab' must be a non-empty list of token names")
    vocab = []
    for token in raw_vocab:
        try:
            cleaned = check_token_name(token, "vocab")
        except TokenNameError as exc:
            raise ModelError(f"{path.name}: field 'vocab': {exc}") from None
        if cleaned == START_LABEL:
            raise ModelError(f"{path.name}: field 'vocab': 'start' is reserved for the first position")
        if cleaned in vocab:
            raise ModelError(f"{path.name}: field 'vocab': token {cleaned!r} appears more than once")
        vocab.append(cleaned)
    vocab = tuple(vocab)
    stop = data.get("stop")
    if stop is not None:
        if not isinstance(stop, str) or stop.strip() not in vocab:
            raise ModelError(f"{path.name}: field 'stop' is {stop!r}, which is not a token of 'vocab'")
        stop = stop.strip()
    target = _parse_table(data, "target", vocab, path, stop)
    draft = _parse_table(data, "draft", vocab, path, stop)
    stop_index = None if stop is None else vocab.index(stop)
    return MarkovModel(name, title, note.strip(), vocab, target, draft, MARKOV_KIND, path, stop_index)


def model_from_scenario(scenario) -> MarkovModel:
    """A one-step scenario as an i.i.d. model: the same p and q after every context."""
    vocab = scenario.p.tokens
    rows_p = tuple(scenario.p.values for _ in range(len(vocab) + 1))
    rows_q = tuple(scenario.q.values for _ in range(len(vocab) + 1))
    # the question, not the explanation: a page shows the model's note before anything is revealed
    return MarkovModel(
        scenario.name, scenario.title, scenario.question, vocab, rows_p, rows_q, STEP_KIND, scenario.path
    )


def model_names(directory: Path = SCENARIO_DIR) -> list[str]:
    """Markov model names (files with ``kind = "markov"``), sorted."""
    return _scenario_names(kind=MARKOV_KIND, directory=directory)


def all_model_names(directory: Path = SCENARIO_DIR) -> list[str]:
    """Markov models first, then one-step scenarios (usable as i.i.d. models)."""
    by_kind = names_by_kind(directory)
    return by_kind.get(MARKOV_KIND, []) + by_kind.get(STEP_KIND, [])


@cache
def _load_cached(path: Path, mtime_ns: int) -> MarkovModel:
    return load_model_file(path)


def load_model(name_or_path: str, directory: Path = SCENARIO_DIR) -> MarkovModel:
    """A model by scenario name (``markov-three``, ``bernoulli-residual``) or by a path to a .toml file."""
    text = str(name_or_path).strip()
    candidate = Path(text)
    if text.endswith(".toml") or "/" in text or "\\" in text:
        if not candidate.is_file():
            raise ModelError(f"{text}: no such model file")
        return _load_cached(candidate.resolve(), candidate.stat().st_mtime_ns)
    path = directory / f"{text}.toml"
    if not text or not path.is_file():
        known = ", ".join(all_model_names(directory))
        raise ModelError(f"unknown model {text!r} (known: {known})")
    return _load_cached(path, path.stat().st_mtime_ns)
