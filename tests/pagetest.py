"""The one home of the AppTest page helpers: open a page as a link would, read its charts, metrics and
text back. Every tests/test_pages_*.py imports these from here (helpers of one page's own actions, such
as submitting an exercise answer, stay beside that page's tests)."""

from __future__ import annotations

import base64
import importlib
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def page_models(page: str) -> tuple:
    """The page models of the view ``page`` (lab/views/<name>.py: lab/models/<name>.py) that declare their controls
    (``CONTROLS``), in the order their module defines them; () for a page without one. The hostile-link and
    widget-state tests derive their cases from these, so a new page's declared controls are tested by themselves."""
    name = Path(page).stem
    if not (ROOT / "lab" / "models" / f"{name}.py").exists():
        return ()
    module = importlib.import_module(f"lab.models.{name}")
    return tuple(
        cls
        for cls in vars(module).values()
        if isinstance(cls, type) and cls.__module__ == module.__name__ and getattr(cls, "CONTROLS", ())
    )


def open_linked_page(page: str, params: dict[str, str] | None = None, timeout: float = 60) -> AppTest:
    """Open ``page`` as a link with ``params`` would: the first run is the default page (app.py reads the
    app-wide ``present`` there), then the query is replaced by ``params`` and the page is switched to."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    if "present" in (params or {}):
        at.query_params["present"] = params["present"]
    at.run()
    at.query_params.clear()
    at.query_params.update(params or {})
    at.switch_page(page).run()
    assert not at.exception
    return at


def open_explorer(params: dict[str, str] | None = None, timeout: float = 30) -> AppTest:
    """Open the Residual explorer with ``params`` in its URL, as a link to it would (the app's default page is the
    Start-here lesson)."""
    return open_linked_page("lab/views/pages/explorer.py", params, timeout)


def open_page_url(page: str, params: dict[str, str] | None = None, timeout: float = 30) -> AppTest:
    """Open ``page``'s own URL with ``params`` as its first run (no default page first): how a shared
    assignment link arrives."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.switch_page(page).run()
    assert not at.exception
    return at


def markdown_text(at: AppTest) -> str:
    """Every markdown element's text, one per line."""
    return "\n".join(m.value for m in at.markdown)


def plain(text: str) -> str:
    """A message as the reader sees it: the pages backslash-escape markdown in messages with user text."""
    return text.replace("\\", "")


def messages(at: AppTest, kind: str) -> list[str]:
    """The text of every element of one kind (``success``, ``error``, ``info``, ...)."""
    return [e.value for e in at.get(kind)]


def metrics(at: AppTest) -> dict[str, str]:
    """Every metric's value by its label."""
    return {m.label: m.value for m in at.metric}


def metric(at: AppTest, label: str) -> str:
    """The value of the metric labelled ``label`` (or, failing an exact match, the first starting with it)."""
    shown = metrics(at)
    if label in shown:
        return shown[label]
    return next(value for name, value in shown.items() if name.startswith(label))


def plotly_values(array) -> list:
    """A plotly data array as a list (plotly may ship numbers as base64 ``bdata`` with a dtype)."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"]).tolist()
    return list(array)


def charts(at: AppTest) -> dict[str, dict[str, dict]]:
    """Every chart's traces by name, by chart key: {key: {trace name: {"x", "y", "text", "alt"}}}. Every
    chart must carry alt text."""
    found = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        assert element.proto.alt, "every chart needs alt text"
        key = element.proto.id.rsplit("-", 1)[-1] if element.proto.id else str(len(found))
        found[key] = {
            d.get("name", ""): {
                **d,
                "x": plotly_values(d.get("x", [])),
                "y": plotly_values(d.get("y", [])),
                "text": d.get("text"),
                "alt": element.proto.alt,
            }
            for d in spec["data"]
        }
    return found


def chart_traces(at: AppTest) -> dict[str, dict]:
    """Every trace of every chart on the page by name (x and y as lists)."""
    merged = {}
    for chart in charts(at).values():
        merged.update(chart)
    return merged


def predictors(at: AppTest) -> dict[str, dict]:
    """Every bar predictor (lab/views/ui/bar_predictor.py) on the page: {key: the data it was drawn with (labels,
    values, ...)}."""
    found = {}
    for element in at.get("bidi_component"):
        # inline, or loaded (lab.views.serving.component_code)
        if element.proto.component_name.endswith("bar_predictor"):
            data = json.loads(element.proto.json)
            found[data["key"]] = data
    return found


def send_trigger(at: AppTest, key: str, event: str, value) -> AppTest:
    """What the JavaScript of the custom component with ``key`` (its data's ``key``, as the bar predictor's) sends
    with ``setTriggerValue(event, value)``: one rerun carrying the page's widgets and that trigger (AppTest has no
    click for a custom component). A component in a fragment reruns the whole page here."""
    found = [e for e in at.get("bidi_component") if json.loads(e.proto.json).get("key") == key]
    assert found, f"no component with key {key!r} on the page"
    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    # a custom component's triggers travel as one widget of their own, named after it (Streamlit 1.67)
    trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{found[0].proto.id}__events"
    trigger.json_trigger_value = json.dumps([{"event": event, "value": value}])
    at._run(states)
    return at


def open_expander(at: AppTest, key: str) -> AppTest:
    """Open the expander with ``key`` (one that draws its contents only while open), as a click does: a rerun."""
    at.session_state[key] = True
    at.run()
    assert not at.exception
    return at


def open_tab(at: AppTest, key: str, label: str) -> AppTest:
    """Switch the tabs with ``key`` (tabs that draw only the open one) to ``label``, as a click does: a rerun."""
    at.session_state[key] = label
    if key in at.query_params:  # the tabs are bound to the URL: a browser's address follows the click
        at.query_params[key] = label
    at.run()
    assert not at.exception
    return at


def teacher_token(at: AppTest) -> str:
    """The teacher token the Class page's tab holds (its desk): the address bar no longer shows it once the page has
    it (lab.views.live_class.teacher_memory)."""
    return at.session_state["cls_teacher"].token
