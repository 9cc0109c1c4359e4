"""The residual explorer's model: the editable token table, URL state, predictions and their score.

Pure Python (no Streamlit). The page keeps a list of :class:`TokenRow` (the text a person typed),
asks :func:`parse_rows` for validated exact distributions, and shows the error message as it is
when the text is wrong (every message names the token, or the row when the name itself is wrong).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from lab.core.distributions import (
    Distribution,
    DistributionError,
    from_pairs,
    snap_to_step,
    to_fraction,
)
from lab.core.formatting import fraction_text
from lab.core.numbers import NumberInputError, parse_probability, shown
from lab.core.residual import ResidualResult
from lab.core.scenarios import load_scenario, scenario_names
from lab.core.token_table import (  # noqa: F401 (the explorer's names for them, used by its page and tests)
    MAX_NAME_CHARS,
    MAX_TOKENS,
    TABLE_PARAMS,
    TableInputError,
    TokenRow,
    decode_table,
    encode_table,
    parse_rows,
    row_names,
    split_list,
)
from lab.models.url import Control, UrlReader, UrlWarning
from lab.teaching.exercises import score_prediction as score_bars

ExplorerInputError = TableInputError  # one class: what the explorer refuses is what every table refuses

DEFAULT_SCENARIO = "bernoulli-residual"
PREDICTION_STEP = Fraction(1, 100)  # the prediction sliders move in hundredths


def rows_from_distributions(p: Distribution, q: Distribution) -> list[TokenRow]:
    q_map = q.as_dict()
    return [TokenRow(t, fraction_text(v), fraction_text(q_map[t])) for t, v in zip(p.tokens, p.values)]


def normalise_column(rows: Sequence[TokenRow], column: str) -> list[TokenRow]:
    """The table with column ``p`` or ``q`` divided by its sum, exactly (1, 2, 1 becomes 1/4, 1/2, 1/4); the
    names and the other column stay as typed. Every value of the column must be a number of at least 0
    and their sum positive; the error names the token otherwise."""
    if column not in ("p", "q"):
        raise ExplorerInputError(f"column {shown(column)} is not p or q")
    names = row_names(rows)
    try:
        dist = from_pairs(zip(names, (getattr(row, column) for row in rows)), name=column, normalize=True)
    except DistributionError as exc:
        raise ExplorerInputError(str(exc), exc.token) from None
    values = [fraction_text(v) for v in dist.values]
    if column == "p":
        return [TokenRow(row.name, v, row.q) for row, v in zip(rows, values)]
    return [TokenRow(row.name, row.p, v) for row, v in zip(rows, values)]


# --- URL state --------------------------------------------------------------------------------
# The table travels as three comma lists (token names cannot hold commas): tokens=A,B,C,
# p=1/10,3/5,3/10, q=1/2,3/10,1/5; predictions as r=0.5,0.25,0.25 and z=0.4.


# --- URL state --------------------------------------------------------------------------------
# The table travels as three comma lists (lab.core.token_table); predictions as r=0.5,0.25,0.25 and z=0.4.


def parse_prediction_value(text, label: str) -> Fraction:
    """One predicted probability (0 to 1), read exactly (lab.core.numbers); ``label`` names it in the error."""
    try:
        return parse_probability(text, label)
    except NumberInputError as exc:
        raise ExplorerInputError(str(exc), label) from None


def slider_value(value, previous: float) -> float:
    """A prediction slider's value as a float from 0 to 1, or ``previous`` when it is not one."""
    try:
        return float(parse_probability(value, "prediction"))
    except NumberInputError:
        return previous


def encode_prediction(values: Sequence) -> str:
    """``0.5,0.25,0.25``: slider floats as the decimals they show, Fractions as fractions."""
    return ",".join(format(v, ".10g") if isinstance(v, float) else fraction_text(v) for v in values)


def decode_prediction(
    text: str, tokens: Sequence[str], what: str = "tokens", label: str = "prediction of r({})"
) -> tuple[Fraction, ...]:
    """Predictions from the URL: one value per token (or outcome), each 0 to 1 (fraction or decimal)."""
    parts = split_list(text, "the prediction", "link")
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
    def is_exact(self) -> bool:
        """Every predicted bar equals the exact residual (distance 0)."""
        return self.tv == 0

    @property
    def worst_token(self) -> str | None:
        """The token with the largest error; None for an exact prediction (there is no error to point at)."""
        if self.is_exact:
            return None
        i = max(range(len(self.errors)), key=lambda k: abs(self.errors[k]))
        return self.tokens[i]


def score_prediction(result: ResidualResult, prediction: Sequence, z_prediction=None) -> PredictionScore:
    """Score the explorer's prediction of r (one value per token) and of Z against an exact residual with
    Z > 0: the bars are scored as everywhere (lab.teaching.exercises.score_prediction), with the tokens and
    Z beside them."""
    if result.residual is None:
        raise ExplorerInputError("Z = 0: there is no residual to compare a prediction with")
    if len(prediction) != len(result.tokens):
        raise ExplorerInputError(f"{len(prediction)} predicted values for {len(result.tokens)} tokens")
    bars = score_bars(result.residual, prediction)
    zp = None if z_prediction is None else to_fraction(z_prediction)
    return PredictionScore(
        tokens=tuple(result.tokens),
        prediction=bars.prediction,
        truth=tuple(result.residual),
        errors=bars.errors,
        tv=bars.tv,
        prediction_total=bars.prediction_total,
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


def slider_columns(count: int) -> int:
    """Prediction sliders a row, so that the rows are even: every row full when it can be (three for 3, 6, 9
    tokens, two for 2, 4, 8), else three a row with a shorter last row; never more than three (the column
    beside the chart is half the page)."""
    if count <= 3:
        return max(count, 1)
    return 3 if count % 3 == 0 or count % 2 else 2


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


# --- the page's state -------------------------------------------------------------------------


def scenario_rows(name: str) -> list[TokenRow]:
    scenario = load_scenario(name)
    return rows_from_distributions(scenario.p, scenario.q)


# The page's controls, each once: widget key, label, and the link parameter the model writes by hand (the token table
# and one prediction slider a token are no single widget's value, so no widget is bound to the link).
SCENARIO = Control("scenario", "ex_scenario", "Scenario", "choice", options=scenario_names, link="scenario")
R_PREDICTION = Control("preds", "ex_r", "Predict r({})", "probability", link="r", each=True)  # {}: the token
Z_PREDICTION = Control("z_pred", "ex_z", "Predict Z", "probability", link="z", named="z, the prediction of Z")
EDITOR = Control("edit", "ex_edit", "Edit p and q", "flag", link="edit")
REVEAL_PARAM = "reveal"
ANSWER_HIDDEN_AGAIN = "p or q changed, so the answer is hidden again: predict, then reveal."


@dataclass
class ExplorerModel:
    """Everything the explorer page shows: the scenario, the table as typed, the last valid (p, q), the
    predictions (slider floats), whether the answer is revealed (the (p, q) it was revealed for) and
    whether the table editor is open. The token table travels in the link through a hand encoder
    (:func:`encode_table`): a list of rows is not one widget's value, so ``bind`` cannot carry it."""

    CONTROLS = (SCENARIO, R_PREDICTION, Z_PREDICTION, EDITOR)
    IN_LINK = True

    scenario: str = DEFAULT_SCENARIO
    rows: list[TokenRow] = field(default_factory=list)
    valid: tuple[Distribution, Distribution] | None = None
    preds: list[float] = field(default_factory=list)
    z_pred: float = 0.0
    revealed: tuple[Distribution, Distribution] | None = None
    edit: bool = False

    def __post_init__(self):
        if not self.rows:
            self.load_scenario(self.scenario)

    def load_scenario(self, name: str) -> None:
        """The scenario's p and q, predictions cleared and the answer hidden (the editor stays as it is)."""
        if name not in scenario_names():
            raise ExplorerInputError(f"unknown scenario {shown(name)}", name)
        self.scenario = name
        self.rows = scenario_rows(name)
        self.valid = parse_rows(self.rows)
        self.preds = [0.0] * len(self.rows)
        self.z_pred = 0.0
        self.revealed = None

    def reset(self) -> None:
        self.load_scenario(self.scenario)

    def submit_table(self, rows: list[TokenRow], removed: set[int], action: str) -> str:
        """One press of the editor's form: the table as typed without the rows in ``removed`` (one row always
        stays), then ``action``: ``apply``, ``normalise-p`` / ``normalise-q`` (exact) or ``add`` (a new token at
        p = q = 0). Returns why the action was not applied ("" when it was); the table is kept either way."""
        rows = [row for i, row in enumerate(rows) if i not in removed] or rows[:1]
        problem = ""
        if action in ("normalise-p", "normalise-q"):
            column = action[-1]
            try:
                rows = normalise_column(rows, column)
            except ExplorerInputError as exc:
                problem = f"Normalise {column} not applied: {exc}."
        elif action == "add" and len(rows) < MAX_TOKENS:
            rows = [*rows, TokenRow(next_token_name([r.name for r in rows]), "0", "0")]
        elif action == "add":
            problem = f"Add token not applied: the table already has the most tokens, {MAX_TOKENS}."
        self.rows = rows
        return problem

    def use_typed_rows(self, rows: list[TokenRow]) -> str:
        """The table as typed; when it parses, its p and q become the page's (one prediction per token, kept where
        the token count stays). Returns the refusal, naming the token and the problem ("" when used)."""
        self.rows = rows
        try:
            new_valid = parse_rows(rows)
        except ExplorerInputError as exc:
            return f"Not applied: {exc}. The last valid p and q stay on screen."
        if new_valid != self.valid:
            self.valid = new_valid
            count = len(new_valid[0])
            self.preds = (self.preds + [0.0] * count)[:count]
        return ""

    def hide_answer_if_changed(self) -> str:
        """An answer revealed for other p and q is hidden again; returns what to tell the user ("" when nothing
        changed)."""
        if self.revealed is None or self.is_revealed:
            return ""
        self.revealed = None
        return ANSWER_HIDDEN_AGAIN

    @property
    def is_revealed(self) -> bool:
        return self.revealed == self.valid

    def reveal(self) -> None:
        self.revealed = self.valid

    def set_predictions(self, preds: list[float], z_pred: float) -> bool:
        """The checked slider values; True when they changed."""
        changed = (preds, z_pred) != (self.preds, self.z_pred)
        self.preds, self.z_pred = preds, z_pred
        return changed

    @classmethod
    def from_url(cls, params: Mapping, reveal_allowed: bool = True) -> tuple[ExplorerModel, list[UrlWarning]]:
        """The state a link describes, every value validated like typed input; refused values are named."""
        read = UrlReader(params)
        name = read.raw(SCENARIO.param)
        model = cls()
        if name is not None and name != DEFAULT_SCENARIO:
            try:
                model.load_scenario(name)
            except ExplorerInputError:
                read.refuse(SCENARIO.param, f"unknown scenario {shown(name)}; showing {DEFAULT_SCENARIO!r}")
        if any(k in params for k in TABLE_PARAMS):
            texts = {k: read.raw(k) for k in TABLE_PARAMS}  # a value too long is refused by name here
            if not any(k in params and texts[k] is None for k in texts):
                try:
                    rows = decode_table(*(texts[k] or "" for k in texts))
                    model.rows, model.valid, model.preds = rows, parse_rows(rows), [0.0] * len(rows)
                except ExplorerInputError as exc:
                    message = str(exc).removeprefix("link: ")
                    culprit = next((k for k in ("p", "q") if message.startswith((f"{k}:", f"{k} "))), "tokens")
                    read.refuse(culprit, f"the table (tokens, p, q) was not used: {message}")
        tokens = model.valid[0].tokens
        r = read.raw(R_PREDICTION.param)
        if r is not None:
            try:
                model.preds = [float(snap_to_step(v)) for v in decode_prediction(r, tokens)]
            except ExplorerInputError as exc:
                read.refuse(R_PREDICTION.param, str(exc).removeprefix("link: "))
        z = read.raw(Z_PREDICTION.param)
        if z is not None:
            try:
                model.z_pred = float(snap_to_step(parse_prediction_value(z, Z_PREDICTION.named)))
            except ExplorerInputError as exc:
                read.refuse(Z_PREDICTION.param, str(exc))
        model.edit = read.flag(EDITOR.param)
        if read.flag(REVEAL_PARAM) and reveal_allowed:  # presenting: reveal only on the button
            model.revealed = model.valid
        return model, read.warnings

    def to_url(self) -> dict[str, str]:
        """Every control of the page (only values away from their defaults)."""
        p, q = self.valid
        desired = {}
        if self.scenario != DEFAULT_SCENARIO:
            desired[SCENARIO.param] = self.scenario
        scenario = load_scenario(self.scenario)
        if (p, q) != (scenario.p, scenario.q):
            desired.update(encode_table(p, q))
        if any(self.preds):
            desired[R_PREDICTION.param] = encode_prediction(self.preds)
        if self.z_pred:
            desired[Z_PREDICTION.param] = encode_prediction([self.z_pred])
        if self.is_revealed:
            desired[REVEAL_PARAM] = "1"
        if self.edit:
            desired[EDITOR.param] = "1"
        return desired
