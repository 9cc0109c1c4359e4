"""Scenario files: one TOML file per scenario in ``scenarios/``; adding a scenario is adding a file.

A one-step scenario (``kind = "step"``, the default) holds::

    name = "bernoulli-residual"        # must equal the file name without .toml
    title = "..."                      # shown before the reveal: must not state the answer
    question = "..."                   # optional: what to look at before predicting (no answer in it)
    explanation = "..."                # optional: the teaching note, shown only after the reveal
    tokens = ["A", "B", "C"]
    p = ["1/10", "3/5", "3/10"]        # exact strings: fractions, decimals or integers
    q = ["1/2", "3/10", "1/5"]

Predict, then reveal: the title and the question are on screen while a student predicts, so the loader
refuses either when it states the scenario's α, Z or r (a statement such as ``Z = 2/5``, or one of those exact
values that is not also a value of p or q); the explanation holds the answer. ``note``, the field's older
name, is read as the explanation.

Other kinds (``kind = "markov"``) are read by their own loaders; :func:`scenario_names` lists
each kind apart.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from lab.core.distributions import Distribution, DistributionError, LabInputError, from_pairs
from lab.core.formatting import fraction_text
from lab.core.residual import residual_exact

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "scenarios"
STEP_KIND = "step"


class ScenarioError(LabInputError):
    """A scenario that does not exist or whose file is malformed (message names file and field)."""


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    question: str  # before the reveal
    explanation: str  # after the reveal
    p: Distribution
    q: Distribution
    path: Path

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.p.tokens


# "Z = 2/5", "alpha = 0", "α = 3/5", "r = (0, 3/4, 1/4)", "r(B) = 3/4", "Z·r(B) = 3/10": an answer stated
_STATEMENT = re.compile(r"(\bZ|\balpha|α|\br(\([^()]*\))?|Z\s*[·*×]\s*r(\([^()]*\))?)\s*=\s*[-(\d.]")


def stated_answer(text: str, p: Distribution, q: Distribution) -> str | None:
    """What of the answer (α, Z, r) ``text`` states, or None: a statement ``Z = …`` / ``r(B) = …``, or one of the
    exact values (as a fraction) that is not also a value of p or q (those are on screen anyway)."""
    if match := _STATEMENT.search(text):
        return match.group(0)
    result = residual_exact(p, q)
    values = {result.alpha, result.z, *(result.residual or ())} - set(p.values) - set(q.values) - {0, 1}
    for value in sorted(values):
        shown = fraction_text(value)
        if re.search(rf"(?<![\d/]){re.escape(shown)}(?![\d/])", text):
            return shown
    return None


def _text_field(data: dict, field: str, path: Path) -> str:
    value = data.get(field, "")
    if not isinstance(value, str):
        raise ScenarioError(f"{path.name}: field {field!r} must be a str")
    return value.strip()


def read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ScenarioError(f"{path.name}: cannot read the file ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path.name}: not valid TOML ({exc})") from None


def require_field(data: dict, field: str, kind: type, path: Path):
    if field not in data:
        raise ScenarioError(f"{path.name}: missing field {field!r}")
    value = data[field]
    if not isinstance(value, kind):
        raise ScenarioError(f"{path.name}: field {field!r} must be a {kind.__name__}")
    return value


def require_strings(data: dict, field: str, path: Path) -> list[str]:
    values = require_field(data, field, list, path)
    if not all(isinstance(v, str) for v in values):
        raise ScenarioError(f'{path.name}: field {field!r} must be a list of strings (write values as "1/2")')
    return values


def scenario_kind(data: dict) -> str:
    return data.get("kind", STEP_KIND)


def load_scenario_file(path: str | Path) -> Scenario:
    path = Path(path)
    data = read_toml(path)
    if scenario_kind(data) != STEP_KIND:
        raise ScenarioError(f"{path.name}: field 'kind' is {scenario_kind(data)!r}, not a one-step scenario")
    name = require_field(data, "name", str, path)
    if name != path.stem:
        raise ScenarioError(f"{path.name}: field 'name' is {name!r} but must match the file name {path.stem!r}")
    title = require_field(data, "title", str, path)
    # both optional: a scenario written for a quick check needs no teaching text
    question = _text_field(data, "question", path)
    if "note" in data and "explanation" in data:
        raise ScenarioError(f"{path.name}: fields 'note' and 'explanation' are the same text: keep 'explanation'")
    explanation = _text_field(data, "explanation" if "explanation" in data else "note", path)
    tokens = require_strings(data, "tokens", path)
    if not tokens:
        raise ScenarioError(f"{path.name}: field 'tokens' is empty")
    repeated = next((t for i, t in enumerate(tokens) if t in tokens[:i]), None)
    if repeated is not None:
        raise ScenarioError(f"{path.name}: field 'tokens': token {repeated!r} appears more than once")
    dists = {}
    for field in ("p", "q"):
        values = require_strings(data, field, path)
        if len(values) != len(tokens):
            raise ScenarioError(f"{path.name}: field {field!r} has {len(values)} values for {len(tokens)} tokens")
        try:
            dists[field] = from_pairs(zip(tokens, values))  # the message names the token and problem
        except DistributionError as exc:
            raise ScenarioError(f"{path.name}: field {field!r}: {exc}") from None
    for field, text in (("title", title), ("question", question)):
        if stated := stated_answer(text, dists["p"], dists["q"]):
            raise ScenarioError(
                f"{path.name}: field {field!r} states the answer ({stated!r}), but it is shown before the "
                "reveal: put it in 'explanation'"
            )
    return Scenario(name, title, question, explanation, dists["p"], dists["q"], path)


# Pages list and load scenarios on every run of every student's page: each file is parsed once per version
# (its modification time), and only listed and stat-ed on later calls, so an added or edited file still
# shows at once.
@lru_cache(maxsize=1024)
def _kind_cached(path: str, mtime_ns: int) -> str:
    return scenario_kind(read_toml(Path(path)))


def names_by_kind(directory: Path = SCENARIO_DIR) -> dict[str, list[str]]:
    """Every kind's scenario names, sorted, the worked example (bernoulli-residual) first, from one listing of the
    folder (a page that lists Markov models and one-step scenarios together reads it once, not twice)."""
    with os.scandir(directory) as entries:
        files = [(e.name[: -len(".toml")], e.path, e.stat().st_mtime_ns) for e in entries
                 if e.name.endswith(".toml") and e.is_file()]
    by_kind: dict[str, list[str]] = {}
    for name, path, mtime_ns in sorted(files, key=lambda f: (f[0] != "bernoulli-residual", f[0])):
        by_kind.setdefault(_kind_cached(path, mtime_ns), []).append(name)
    return by_kind


def scenario_names(kind: str = STEP_KIND, directory: Path = SCENARIO_DIR) -> list[str]:
    """Names of the scenarios of one kind, sorted; the worked example (bernoulli-residual) first."""
    return names_by_kind(directory).get(kind, [])


@cache
def _load_cached(path: Path, mtime_ns: int) -> Scenario:
    return load_scenario_file(path)


def load_scenario(name: str, directory: Path = SCENARIO_DIR) -> Scenario:
    path = directory / f"{name}.toml"
    try:
        status = None if "/" in name or "\\" in name else path.stat()
    except (OSError, ValueError):  # no such file, or a name no file can have (a NUL character)
        status = None
    if status is None or not stat.S_ISREG(status.st_mode):
        known = ", ".join(scenario_names(directory=directory))
        raise ScenarioError(f"unknown scenario {name!r} (known: {known})")
    return _load_cached(path, status.st_mtime_ns)
