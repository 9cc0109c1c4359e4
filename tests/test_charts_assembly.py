"""The charts build their figures without plotly's validation (lab.charts.base.VALIDATE): here every builder
of FIGURES, on realistic arguments (tests/chart_cases.py), is built again with validation on. A misspelt or
misplaced property raises there, and a value plotly would have coerced (a tuple, a numpy number, a bare
string where an object belongs) makes the two figures differ."""

import pytest
from chart_cases import chart_cases

from lab.charts import base
from lab.charts.figures import FIGURES

PLAIN = (str, int, float, bool, type(None))


@pytest.fixture(scope="module")
def cases():
    by_builder: dict[str, list[tuple]] = {}
    for name, args in chart_cases():
        by_builder.setdefault(name, []).append(args)
    return by_builder


def plain_leaves(value, path="figure"):
    """Paths of the values that are not plain JSON types (dict, list, str, int, float, bool, None)."""
    if isinstance(value, dict):
        return [bad for key, item in value.items() for bad in plain_leaves(item, f"{path}.{key}")]
    if isinstance(value, list):
        return [bad for i, item in enumerate(value) for bad in plain_leaves(item, f"{path}[{i}]")]
    return [] if type(value) in PLAIN else [f"{path}: {type(value).__name__}"]


def test_every_builder_has_cases(cases):
    assert set(cases) == set(FIGURES)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_the_unvalidated_figure_is_the_validated_one(name, cases, monkeypatch):
    built = [FIGURES[name](*args).to_dict() for args in cases[name]]
    monkeypatch.setattr(base, "VALIDATE", True)
    for args, production in zip(cases[name], built):
        validated = FIGURES[name](*args).to_dict()  # a misspelt property raises ValueError here
        assert production == validated
        assert plain_leaves(production["data"]) == [] and plain_leaves(production["layout"]) == []


def test_the_validated_path_refuses_a_misspelt_property(monkeypatch):
    # what the test above relies on: with validation on, plotly refuses unknown properties, also nested ones
    monkeypatch.setattr(base, "VALIDATE", True)
    with pytest.raises(ValueError, match="textpositon"):
        base.figure([{"type": "bar", "y": [1.0], "textpositon": "outside"}], {})
    with pytest.raises(ValueError, match="zerolinecolour"):
        base.figure([], {"yaxis": {"zerolinecolour": "black"}})
