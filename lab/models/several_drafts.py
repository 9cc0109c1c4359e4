"""The Several drafts page's state: the node (a scenario, or p and q typed), K and the rule; the tree (a Markov
model, its widths, a seed, L); how far the reader has stepped through the sampled tree.

Pure Python (no Streamlit). The widgets carry the controls in the link (``bind="query-params"``); this model reads
and checks them first, and turns the typed p and q into exact distributions (the message names the token).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from lab.core.distributions import Distribution, LabInputError, check_same_tokens, parse_spec_text
from lab.core.drafts import RULES, TreeComparison, TreeTrace, sample_tree_trace, tree_law
from lab.core.errors import said, said_of
from lab.core.markov import MarkovModel, model_names
from lab.core.numbers import shown
from lab.core.scenarios import load_scenario, scenario_names
from lab.i18n import N_
from lab.models.url import Control, PageModel

MAX_K = 4
MAX_L = 4
MAX_TOKENS = 26
MAX_TEXT = 1_000  # characters of a typed p or q: 26 tokens with long fractions fit
MAX_SEED = 2**32 - 1
WIDTHS = ("2", "2,1", "2,2", "3,1", "1,1,1")
DEFAULT_SCENARIO = "bernoulli-residual"
DEFAULT_TREE_MODEL = "markov-three"


class DraftsPageError(LabInputError):
    """Typed p or q the page cannot use (the message names the token or the box)."""


@dataclass
class SeveralDraftsModel(PageModel):
    scenario: str = DEFAULT_SCENARIO
    p_text: str = ""
    q_text: str = ""
    candidates: int = 2
    rule: str = "with-replacement"
    tree_model: str = DEFAULT_TREE_MODEL
    widths: str = "2,2"
    seed: int = 1
    length: int = 3

    CONTROLS = (
        Control("scenario", "sd_scenario", N_("Scenario"), "choice", options=scenario_names),
        Control("p_text", "sd_p", N_("Your own target p"), "text", named=N_("target p")),
        Control("q_text", "sd_q", N_("Your own draft q"), "text", named=N_("draft q")),
        Control("candidates", "sd_k", N_("Candidates K"), "whole", low=1, high=MAX_K),
        Control("rule", "sd_rule", N_("Rule"), "choice", options=lambda: RULES),
        Control("tree_model", "sd_tree_model", N_("Model for the tree"), "choice", options=model_names),
        Control("widths", "sd_widths", N_("Tree widths (candidates per depth)"), "choice", options=lambda: WIDTHS),
        Control("seed", "sd_seed", N_("Seed"), "whole", low=0, high=MAX_SEED),
        Control("length", "sd_length", N_("Tokens in the law L"), "whole", low=1, high=MAX_L),
    )

    @classmethod
    def read_fields(cls, read, defaults, decimal_comma: bool = False, **limits) -> dict:
        """The controls as declared, then the typed p and q: each refused by name when the page cannot use it (both
        then go back to empty, and the scenario shows). ``decimal_comma``: p and q are written the way of a language
        that writes 0,75 (``A=0,1;B=0,9``)."""
        fields = super().read_fields(read, defaults, **limits)
        problems: dict[str, str] = {}
        for field, param, name in (("p_text", "sd_p", "p"), ("q_text", "sd_q", "q")):
            text = fields[field]
            if len(text) > MAX_TEXT:
                problems[param] = said("{value} is longer than {limit} characters", value=shown(text),
                                       limit=f"{MAX_TEXT:,}")
            elif text.strip():
                try:
                    parse_spec_text(text, name=name, decimal_comma=decimal_comma)
                except LabInputError as exc:
                    problems[param] = said_of(exc)
        trial = cls(**fields)
        if trial.typed and not problems:
            try:
                trial.distributions(decimal_comma)
            except LabInputError as exc:
                message = said_of(exc)
                about_q = message.startswith(("q:", "draft q")) or "not in q" in message or "in q but" in message
                problems["sd_q" if about_q else "sd_p"] = message
        for param, message in problems.items():
            cut = message if len(message) <= 300 else message[:296] + " …"
            read.refuse(param, said("{name}: {problem}", name=read.field(param), problem=cut))
        if problems:
            fields["p_text"], fields["q_text"] = defaults.p_text, defaults.q_text
        return fields

    @property
    def typed(self) -> bool:
        """Whether p and q come from the two boxes (both filled in) rather than the scenario."""
        return bool(self.p_text.strip() or self.q_text.strip())

    def distributions(self, decimal_comma: bool = False) -> tuple[Distribution, Distribution]:
        """The node's p and q, exact: the typed ones when either box holds text (both are then needed), else the
        scenario's. ``decimal_comma``: as in :meth:`read_fields`."""
        if not self.typed:
            scenario = load_scenario(self.scenario)
            return scenario.p, scenario.q
        for text, box in ((self.p_text, said("target p")), (self.q_text, said("draft q"))):
            if not text.strip():
                raise DraftsPageError(said(
                    "{box}: the box is empty (type both p and q, or clear both for the scenario)", box=box))
            if len(text) > MAX_TEXT:
                raise DraftsPageError(said("{box}: {value} is longer than {limit} characters", box=box,
                                           value=shown(text), limit=f"{MAX_TEXT:,}"))
        p = parse_spec_text(self.p_text, name="p", decimal_comma=decimal_comma)
        q = check_same_tokens(p, parse_spec_text(self.q_text, name="q", decimal_comma=decimal_comma))
        if len(p) > MAX_TOKENS:
            raise DraftsPageError(said("target p has {count} tokens; at most {limit} are allowed here", count=len(p),
                                       limit=MAX_TOKENS))
        return p, q

    @property
    def tree(self) -> tuple[int, ...]:
        return tuple(int(w) for w in self.widths.split(","))

    def node_key(self) -> tuple:
        """What the prediction is about: when it changes, the reveal is hidden again."""
        source = (self.p_text, self.q_text) if self.typed else (self.scenario,)
        return (*source, self.candidates, self.rule)

    def tree_key(self) -> tuple:
        return (self.tree_model, self.widths, self.seed)

    def trace(self, model: MarkovModel) -> TreeTrace:
        return _trace(model, self.tree, self.rule, self.seed)


@lru_cache(maxsize=256)
def law_of_trees(model: MarkovModel, widths: tuple[int, ...], length: int, rule: str) -> TreeComparison:
    """The exact law of L tokens under the trees beside the target's, once per process and setting (it does not
    change with a prediction or a Step)."""
    return tree_law(model, widths, length, rule)


@lru_cache(maxsize=256)
def _trace(model: MarkovModel, widths: tuple[int, ...], rule: str, seed: int) -> TreeTrace:
    """One tree drafted and verified from a seed, once per process (every Step runs the page again)."""
    return sample_tree_trace(model, widths, rule, seed)


@dataclass
class TreeSteps:
    """How many tests of the sampled tree are shown: 0 shows the drafted tree, len(tests) + 1 its ending too. Another
    tree starts again at 0."""

    tree_key: tuple | None = None
    shown: int = 0

    def follow(self, key: tuple) -> None:
        if key != self.tree_key:
            self.tree_key, self.shown = key, 0

    def step(self, trace: TreeTrace) -> None:
        self.shown = min(self.shown + 1, len(trace.tests) + 1)

    def show_all(self, trace: TreeTrace) -> None:
        self.shown = len(trace.tests) + 1

    def reset(self) -> None:
        self.shown = 0

    def finished(self, trace: TreeTrace) -> bool:
        return self.shown > len(trace.tests)
