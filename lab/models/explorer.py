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
from lab.core.errors import Said, said, said_of
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
from lab.i18n import N_
from lab.models.url import Control, UrlReader, UrlWarning
from lab.teaching.exercises import score_prediction as score_bars

ExplorerInputError = TableInputError  # one class: what the explorer refuses is what every table refuses

DEFAULT_SCENARIO = "bernoulli-residual"
PREDICTION_STEP = Fraction(1, 100)  # the prediction sliders move in hundredths


def rows_from_distributions(p: Distribution, q: Distribution) -> list[TokenRow]:
    q_map = q.as_dict()
    return [TokenRow(t, fraction_text(v), fraction_text(q_map[t])) for t, v in zip(p.tokens, p.values)]


def normalise_column(rows: Sequence[TokenRow], column: str, decimal_comma: bool = False) -> list[TokenRow]:
    """The table with column ``p`` or ``q`` divided by its sum, exactly (1, 2, 1 becomes 1/4, 1/2, 1/4); the
    names and the other column stay as typed. Every value of the column must be a number of at least 0
    and their sum positive; the error names the token otherwise."""
    if column not in ("p", "q"):
        raise ExplorerInputError(said("column {column} is not p or q", column=shown(column)))
    names = row_names(rows)
    try:
        dist = from_pairs(zip(names, (getattr(row, column) for row in rows)), name=column, normalize=True,
                          decimal_comma=decimal_comma)
    except DistributionError as exc:
        raise ExplorerInputError(said_of(exc), exc.token) from None
    values = [fraction_text(v) for v in dist.values]
    if column == "p":
        return [TokenRow(row.name, v, row.q) for row, v in zip(rows, values)]
    return [TokenRow(row.name, row.p, v) for row, v in zip(rows, values)]


# --- URL state --------------------------------------------------------------------------------
# The table travels as three comma lists (lab.core.token_table); predictions as r=0.5,0.25,0.25 and z=0.4.


def parse_prediction_value(text, label: str) -> Fraction:
    """One predicted probability (0 to 1), read exactly (lab.core.numbers); ``label`` names it in the error."""
    try:
        return parse_probability(text, label)
    except NumberInputError as exc:
        raise ExplorerInputError(said_of(exc), label) from None


def slider_value(value, previous: float) -> float:
    """A prediction slider's value as a float from 0 to 1, or ``previous`` when it is not one."""
    try:
        return float(parse_probability(value, "prediction"))
    except NumberInputError:
        return previous


def encode_prediction(values: Sequence) -> str:
    """``0.5,0.25,0.25``: slider floats as the decimals they show, Fractions as fractions."""
    return ",".join(format(v, ".10g") if isinstance(v, float) else fraction_text(v) for v in values)


def decode_prediction(text: str, tokens: Sequence[str], outcomes: bool = False, label: str | None = None
                      ) -> tuple[Fraction, ...]:
    """Predictions from the URL: one value per token (or ``outcomes``), each 0 to 1 (fraction or decimal).
    ``label`` names a value in a message, ``{token}`` its token ("prediction of r({token})" by default)."""
    parts = split_list(text, said("the prediction"), None)
    if len(parts) != len(tokens):
        if outcomes:
            raise ExplorerInputError(said("{count} predicted values for {total} outcomes", count=len(parts),
                                          total=len(tokens)))
        raise ExplorerInputError(said("{count} predicted values for {total} tokens", count=len(parts),
                                      total=len(tokens)))
    template = label or N_("prediction of r({token})")
    return tuple(parse_prediction_value(v, Said(template, {"token": t})) for v, t in zip(parts, tokens))


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
        raise ExplorerInputError(said("Z = 0: there is no residual to compare a prediction with"))
    if len(prediction) != len(result.tokens):
        raise ExplorerInputError(said("{count} predicted values for {total} tokens", count=len(prediction),
                                      total=len(result.tokens)))
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
SCENARIO = Control("scenario", "ex_scenario", N_("Scenario"), "choice", options=scenario_names, link="scenario")
R_PREDICTION = Control("preds", "ex_r", N_("Predict r({token})"), "probability", link="r", each=True)
Z_PREDICTION = Control("z_pred", "ex_z", N_("Predict Z"), "probability", link="z", named=N_("z, the prediction of Z"))
EDITOR = Control("edit", "ex_edit", N_("Edit p and q"), "flag", link="edit")
REVEAL_PARAM = "reveal"
ANSWER_HIDDEN_AGAIN = said("p or q changed, so the answer is hidden again: predict, then reveal.")


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
            raise ExplorerInputError(said("unknown scenario {name}", name=shown(name)), name)
        self.scenario = name
        self.rows = scenario_rows(name)
        self.valid = parse_rows(self.rows)
        self.preds = [0.0] * len(self.rows)
        self.z_pred = 0.0
        self.revealed = None

    def reset(self) -> None:
        self.load_scenario(self.scenario)

    def submit_table(self, rows: list[TokenRow], removed: set[int], action: str, decimal_comma: bool = False) -> str:
        """One press of the editor's form: the table as typed without the rows in ``removed`` (one row always
        stays), then ``action``: ``apply``, ``normalise-p`` / ``normalise-q`` (exact) or ``add`` (a new token at
        p = q = 0). Returns why the action was not applied ("" when it was); the table is kept either way."""
        rows = [row for i, row in enumerate(rows) if i not in removed] or rows[:1]
        problem = ""
        if action in ("normalise-p", "normalise-q"):
            column = action[-1]
            try:
                rows = normalise_column(rows, column, decimal_comma)
            except ExplorerInputError as exc:
                problem = said("Normalise {column} not applied: {problem}.", column=column, problem=said_of(exc))
        elif action == "add" and len(rows) < MAX_TOKENS:
            rows = [*rows, TokenRow(next_token_name([r.name for r in rows]), "0", "0")]
        elif action == "add":
            problem = said("Add token not applied: the table already has the most tokens, {limit}.", limit=MAX_TOKENS)
        self.rows = rows
        return problem

    def use_typed_rows(self, rows: list[TokenRow], decimal_comma: bool = False) -> str:
        """The table as typed; when it parses, its p and q become the page's (one prediction per token, kept where
        the token count stays). Returns the refusal, naming the token and the problem ("" when used)."""
        self.rows = rows
        try:
            new_valid = parse_rows(rows, decimal_comma)
        except ExplorerInputError as exc:
            return said("Not applied: {problem}. The last valid p and q stay on screen.", problem=said_of(exc))
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
                read.refuse(SCENARIO.param, said("unknown scenario {name}; showing {default}", name=shown(name),
                                                 default=repr(DEFAULT_SCENARIO)))
        if any(k in params for k in TABLE_PARAMS):
            texts = {k: read.raw(k) for k in TABLE_PARAMS}  # a value too long is refused by name here
            if not any(k in params and texts[k] is None for k in texts):
                try:
                    rows = decode_table(*(texts[k] or "" for k in texts), where=None)
                    model.rows, model.valid, model.preds = rows, parse_rows(rows), [0.0] * len(rows)
                except ExplorerInputError as exc:
                    message = str(exc)
                    culprit = next((k for k in ("p", "q") if message.startswith((f"{k}:", f"{k} "))), "tokens")
                    read.refuse(culprit, said("the table (tokens, p, q) was not used: {problem}",
                                              problem=said_of(exc)))
        tokens = model.valid[0].tokens
        r = read.raw(R_PREDICTION.param)
        if r is not None:
            try:
                model.preds = [float(snap_to_step(v)) for v in decode_prediction(r, tokens)]
            except ExplorerInputError as exc:
                read.refuse(R_PREDICTION.param, said_of(exc))
        z = read.raw(Z_PREDICTION.param)
        if z is not None:
            try:
                model.z_pred = float(snap_to_step(parse_prediction_value(z, Said(Z_PREDICTION.named))))
            except ExplorerInputError as exc:
                read.refuse(Z_PREDICTION.param, said_of(exc))
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
