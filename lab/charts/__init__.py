"""Charts: pure functions returning plotly figures (no Streamlit), one figure per concept.

``base`` decides how every bar, title, legend and axis looks; ``palette`` holds every colour;
``residual``, ``sampling`` and ``pitfalls`` say what each figure shows; ``figures`` lists them by name for
the pages' one cached path (:func:`lab.views.ui.charts.figure`).
"""
