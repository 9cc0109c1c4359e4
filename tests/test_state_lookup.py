"""lab.views.patches.state_lookup: a widget's look at session state through the view gives what Streamlit's own
``filtered_state`` dict gives, for every key of real page sessions (page keys, keyed widgets, components, keys
never set), and the widget modules still read session state only the way the view stands in for."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
import streamlit.elements.widgets as widgets
from pagetest import open_linked_page
from streamlit.runtime.state.session_state import SessionState

from lab.views.patches import state_lookup

PAGES = tuple(f"lab/views/pages/{name}.py" for name in ("binomial_lab", "explorer", "exercises", "blocks"))
ABSENT = ("no-such-key", "", "$$ID-0000-None", "bl_p ")


def answers(mapping, keys) -> dict:
    return {repr(key): (key in mapping, repr(mapping[key]) if key in mapping else None) for key in keys}


@pytest.mark.parametrize("page", PAGES)
def test_the_view_answers_as_filtered_state_for_every_key(page):
    at = open_linked_page(page)
    safe = at.session_state._state
    state = safe._state
    full = safe.filtered_state
    # every key Streamlit lists, every raw id it holds (widget ids, internal keys), and keys it has never seen
    keys = [*full, *state._keys(), *state._key_id_mapper.id_key_mapping, *ABSENT]
    assert len(full) > 10
    assert answers(state_lookup.FilteredView(safe), keys) == answers(full, keys)


@pytest.mark.parametrize("page", PAGES)
def test_in_session_state_answers_as_streamlit_for_every_key(page):
    """``key in session_state`` without presenting the value: Streamlit's own answer for every key of a real page's
    session, the components' keys and raw ids among them (their presenters are what the shortcut skips)."""
    at = open_linked_page(page)
    state = at.session_state._state._state
    keys = [*state._keys(), *state._key_id_mapper.id_key_mapping, *state._key_id_mapper._key_id_mapping, *ABSENT]
    presented = [k for k in state._keys() if state._get_widget_id(k) in state._new_widget_state.widget_metadata
                 and state._new_widget_state.widget_metadata[state._get_widget_id(k)].presenter is not None]
    assert presented, "no component on the page: the case the shortcut is for is not tested"
    assert {k: state_lookup.contains(state, k) for k in keys} == {
        k: state_lookup.STREAMLIT_CONTAINS(state, k) for k in keys
    }
    assert any(state_lookup.STREAMLIT_CONTAINS(state, k) for k in presented)


def kept(state, read) -> dict:
    """What a compaction keeps as old values: ``read(state, key)`` for each key, as Streamlit's loop does it."""
    values = {}
    for key in state:
        try:
            values[key] = read(state, key)
        except KeyError:
            pass
    return values


@pytest.mark.parametrize("page", PAGES)
def test_a_run_keeps_each_value_as_streamlit_does_without_presenting_it(page):
    """The old values a run starts from: the same keys and the same values as Streamlit's compaction keeps, for
    every key of a real page's session; the components' values are kept as stored, not as the presenter's
    write-through dict (what the shortcut skips), which holds the same items."""
    at = open_linked_page(page)
    state = at.session_state._state._state
    ours, streamlits = kept(state, state_lookup.stored), kept(state, SessionState.__getitem__)
    assert ours.keys() == streamlits.keys() and len(ours) > 10
    presented = [k for k in ours if type(ours[k]) is not type(streamlits[k])]
    assert presented, "no component on the page: the case the shortcut is for is not tested"
    assert all(isinstance(ours[k], dict) and isinstance(streamlits[k], dict) for k in presented)
    assert {k: dict(v) if k in presented else v for k, v in streamlits.items()} == ours
    # and the compaction itself: the old values it leaves, the new ones cleared
    state_lookup.compact_state(state)
    assert state._old_state.keys() >= ours.keys() and not state._new_session_state and not state._new_widget_state
    assert {k: state._old_state[k] for k in ours} == ours


def test_installed_once_in_every_widget_module():
    state_lookup.install()
    first = [importlib.import_module(name).get_session_state for name in state_lookup.WIDGET_MODULES]
    state_lookup.install()
    again = [importlib.import_module(name).get_session_state for name in state_lookup.WIDGET_MODULES]
    assert first == again and all(f._lab_view for f in first)
    assert SessionState.__contains__ is state_lookup.contains
    assert SessionState._compact_state is state_lookup.compact_state


def _one_key_uses(tree: ast.AST) -> tuple[int, list[str]]:
    """(how many ``NAME = get_session_state().filtered_state``, the uses of NAME that are not ``key in NAME`` or
    ``NAME[key]``, and any other ``.filtered_state``)."""
    bad, found = [], 0
    for func in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(func):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute)):
                continue
            if node.value.attr != "filtered_state":
                continue
            call = node.value.value
            assert isinstance(call, ast.Call) and getattr(call.func, "id", "") == "get_session_state", ast.dump(node)
            name = node.targets[0].id
            found += 1
            allowed = set()
            for use in ast.walk(func):
                if isinstance(use, ast.Compare) and [type(op) for op in use.ops] == [ast.In]:
                    allowed.update(id(c) for c in use.comparators if getattr(c, "id", "") == name)
                if isinstance(use, ast.Subscript) and getattr(use.slice, "id", "") == "key":
                    allowed.add(id(use.value))
            for use in ast.walk(func):
                if isinstance(use, ast.Name) and use.id == name and isinstance(use.ctx, ast.Load):
                    if id(use) not in allowed:
                        bad.append(f"line {use.lineno}")
    total = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "filtered_state")
    if total != found:
        bad.append(f"{total - found} other uses of filtered_state")
    return found, bad


def test_the_widget_modules_read_filtered_state_only_by_one_key():
    """A Streamlit upgrade that reads ``filtered_state`` otherwise, or from another widget module, fails here."""
    users = {}
    for file in sorted(Path(widgets.__file__).parent.glob("*.py")):
        found, bad = _one_key_uses(ast.parse(file.read_text(encoding="utf-8")))
        assert not bad, (file.name, bad)
        if found:
            users[f"streamlit.elements.widgets.{file.stem}"] = found
    assert sorted(users) == sorted(state_lookup.WIDGET_MODULES)
