"""The pages' one path to a figure (lab.views.ui.charts.figure) is cached by the arguments and their types."""

from fractions import Fraction as F

from lab.views.ui.charts import figure


def test_same_arguments_share_one_figure_and_equal_values_of_other_types_do_not():
    exact = figure("binomial_bars", ("B", "C"), (F(1, 2), F(1, 2)), None, "bar")
    again = figure("binomial_bars", ["B", "C"], [F(1, 2), F(1, 2)], None, "bar")  # lists arrive as tuples
    assert again is exact
    decimal = figure("binomial_bars", ("B", "C"), (0.5, 0.5), None, "bar")  # 0.5 == 1/2 and hashes alike
    assert decimal is not exact
    # the bar labels tell them apart: an exact fraction, a decimal
    assert exact.to_dict()["data"][0]["text"] == ["1/2", "1/2"]
    assert decimal.to_dict()["data"][0]["text"] == ["0.5", "0.5"]


def test_a_shared_figure_makes_its_dict_once_and_what_st_plotly_chart_does_leaves_it_unchanged():
    import copy

    import plotly.io
    import plotly.tools

    from lab.charts.figures import FIGURES

    args = (("A", "B", "C"), (F(1, 10), F(3, 5), F(3, 10)), (F(1, 2), F(1, 4), F(1, 4)))
    shared = figure("pq_bars", *args)
    plain = FIGURES["pq_bars"](*args)  # built again, uncached: a plain go.Figure
    made = shared.to_dict()
    assert made == plain.to_dict()
    assert shared.to_dict() is made  # made once, not deep-copied again on every chart call
    before = copy.deepcopy(made)
    # st.plotly_chart in Streamlit 1.67: the figure's dict, then its JSON, read from that dict
    handed = plotly.tools.return_figure_from_figure_or_data(shared, validate_figure=True)
    assert handed is made
    spec = plotly.io.to_json(handed, validate=False)
    assert shared.to_dict() == before
    assert spec == plotly.io.to_json(plain.to_dict(), validate=False)
    # the target's bars, as the builder was given them (p = 1/10, 3/5, 3/10)
    p_trace = next(t for t in made["data"] if t["x"] == ["A", "B", "C"] and t["y"] == [0.1, 0.6, 0.3])
    assert p_trace["type"] == "bar"


def test_named_laws_in_a_dict_are_cached_by_their_names_and_values():
    tokens, target = ("A", "B"), (F(1, 2), F(1, 2))
    first = figure("law_vs_target", tokens, target, {"mistake law": (F(3, 4), F(1, 4))}, "title")
    again = figure("law_vs_target", tokens, target, {"mistake law": (F(3, 4), F(1, 4))}, "title")
    assert again is first
    other = figure("law_vs_target", tokens, target, {"mistake law": (F(1, 4), F(3, 4))}, "title")
    renamed = figure("law_vs_target", tokens, target, {"another law": (F(3, 4), F(1, 4))}, "title")
    assert other is not first and renamed is not first
    law = next(t for t in other.to_dict()["data"] if t["name"] == "mistake law")
    assert law["y"] == [0.25, 0.75]  # the values given, not the first figure's


def test_a_shared_figures_json_is_made_once_and_is_plotlys_own_text():
    import plotly.io

    from lab.charts.figures import FIGURES
    from lab.views.patches import plotly_json

    plotly_json.install()
    wrapped = plotly.io.to_json
    plotly_json.install()  # once per process: a second call does not wrap it again
    assert plotly.io.to_json is wrapped
    args = (("A", "B"), (F(1, 3), F(2, 3)), (F(1, 2), F(1, 2)))
    shared = figure("pq_bars", *args)
    plain = FIGURES["pq_bars"](*args).to_dict()  # a plain dict: plotly's own path, made anew
    made = shared.to_dict()
    spec = plotly.io.to_json(made, validate=False)  # as st.plotly_chart asks
    assert spec == plotly.io.to_json(plain, validate=False)
    assert plotly.io.to_json(made, validate=False) is spec  # kept, not made again
    assert plotly.io.to_json(made, validate=False, pretty=True) != spec  # other options: plotly's own, each time
    assert '"y":[0.3333333333333333,0.6666666666666666]' in spec.replace(" ", "")  # p = 1/3, 2/3 as float64


def test_st_plotly_chart_still_asks_for_the_json_of_the_figures_dict():
    import inspect

    from streamlit.elements import plotly_chart

    source = inspect.getsource(plotly_chart.PlotlyMixin.plotly_chart)
    assert "plotly.tools.return_figure_from_figure_or_data(" in source
    assert "plotly.io.to_json(figure, validate=False)" in source


def test_a_shared_figures_title_read_from_its_dict_is_the_one_its_layout_holds():
    """lab.views.ui.charts.chart reads a shared figure's title from its dict, made once: the same title and subtitle
    as plotly's own layout gives."""
    from lab.charts.base import title_of

    fig = figure("pq_bars", ("B", "C"), (F(3, 4), F(1, 4)), (F(1, 2), F(1, 2)))
    title, subtitle = title_of(fig.to_dict()["layout"])
    assert title and (title, subtitle) == title_of({"meta": fig.layout.meta})
    assert fig.layout.meta["title"] == title
