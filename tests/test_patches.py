"""lab/views/patches: every patch gated. Each is installed only inside the library versions it was written against
and with every private name it needs; outside them it is skipped with one log line naming it and the pages still
render on the library's own code. RESIDUAL_LAB_PATCHES=stock turns every speed patch off (.ci/run runs the pages'
tests and the browser smoke test that way too)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.views import patches

ROOT = Path(__file__).resolve().parent.parent


def test_every_patch_is_a_module_here_with_an_install_and_its_names_are_in_the_pinned_libraries():
    folder = ROOT / "lab" / "views" / "patches"
    modules = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
    assert {patch.module for patch in patches.PATCHES} == modules  # each declared once, none forgotten
    for patch in patches.PATCHES:
        assert patches.why_not(patch, stock=False) is None, patch.module  # the pinned requirements allow every one


def test_a_library_outside_the_range_or_a_missing_name_skips_the_patch_with_one_line(monkeypatch, caplog):
    patch = next(p for p in patches.PATCHES if p.module == "config_cache")
    monkeypatch.setattr(patches.metadata, "version", lambda name: "1.99.0")
    assert patches.why_not(patch, stock=False) == "streamlit 1.99.0 is outside 1.67.0 to 1.68 (exclusive)"
    monkeypatch.undo()
    renamed = patches.Patch(patch.module, patch.versions, (*patch.needs, "streamlit.config:_renamed_lock"), True)
    with caplog.at_level(logging.WARNING, logger="residual_lab.patches"):
        assert patches.install(renamed, stock=False) == "skipped: missing streamlit.config:_renamed_lock"
    assert [r.getMessage() for r in caplog.records] == [
        "patch config_cache skipped (missing streamlit.config:_renamed_lock): the library's own code runs"
    ]


def test_an_install_that_raises_is_skipped_not_raised(monkeypatch, caplog):
    patch = patches.Patch("fragment_pool", (), (), speed=True)
    from lab.views.patches import fragment_pool

    def broken():
        raise AttributeError("'module' object has no attribute 'ThreadPoolExecutor'")

    monkeypatch.setattr(fragment_pool, "install", broken)
    with caplog.at_level(logging.WARNING, logger="residual_lab.patches"):
        outcome = patches.install(patch, stock=False)
    assert outcome.startswith("skipped: install failed: AttributeError")
    assert len(caplog.records) == 1 and "patch fragment_pool skipped" in caplog.records[0].getMessage()


def test_stock_mode_skips_every_speed_patch_and_keeps_the_two_that_keep_a_page_correct(monkeypatch):
    monkeypatch.setenv(patches.MODE_ENV, " Stock ")
    assert patches.mode() == patches.STOCK
    kept = [p.module for p in patches.PATCHES if patches.why_not(p, stock=True) is None]
    assert kept == ["widget_guard", "fragment_fallback"]
    monkeypatch.setenv(patches.MODE_ENV, "all")
    assert patches.mode() == "all"
    monkeypatch.setenv(patches.OFF_ENV, " config_cache,widget_guard ")  # a bench leaves one out: speed ones only
    kept = [p.module for p in patches.PATCHES if patches.why_not(p, stock=False) is None]
    assert "config_cache" not in kept and "widget_guard" in kept and len(kept) == len(patches.PATCHES) - 1


# Run in a fresh interpreter: a process decides its patches once, and this one has installed them already.
_FAKED = r"""
import json, sys
from importlib import metadata
real = metadata.version
metadata.version = lambda name: {"streamlit": "1.68.0", "plotly": "9.0"}.get(name) or real(name)
import streamlit.config
from streamlit.testing.v1 import AppTest
from lab.views import patches, shell
outcomes = dict(patches.install_all())
failures = {}
for entry in (*shell.PAGES, *shell.LINKED_PAGES):
    at = AppTest.from_file("app.py", default_timeout=60).run()
    at.switch_page(entry.file).run()
    if at.exception:
        failures[entry.url_path] = [e.message for e in at.exception]
    elif not at.markdown and not at.title:
        failures[entry.url_path] = ["nothing drawn"]
print(json.dumps({"outcomes": outcomes, "failures": failures,
                  "get_option_is_streamlits": streamlit.config.get_option.__module__ == "streamlit.config"}))
"""


@pytest.mark.parametrize("mode", ["faked wrong version", "stock"])
def test_every_page_renders_with_the_patches_skipped(mode, tmp_path):
    env = {**os.environ, patches.MODE_ENV: patches.STOCK if mode == "stock" else "all"}
    env["RESIDUAL_LAB_DATA"] = str(tmp_path)  # the Class page's database: a throw-away SQLite file
    env.pop("RESIDUAL_LAB_DATABASE_URL", None)
    code = _FAKED if mode != "stock" else _FAKED.replace("metadata.version = lambda", "_unused = lambda")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["failures"] == {}
    installed = sorted(name for name, outcome in result["outcomes"].items() if outcome == "installed")
    if mode == "stock":
        assert installed == ["fragment_fallback", "widget_guard"]
    else:
        assert installed == ["gc_settings"]  # the collector's settings need no library
        assert "skipped: streamlit 1.68.0 is outside 1.67.0 to 1.68 (exclusive)" in result["outcomes"].values()
        assert "patch config_cache skipped (streamlit 1.68.0" in done.stderr  # one line naming it
    assert result["get_option_is_streamlits"]  # Streamlit's own configuration reading runs
