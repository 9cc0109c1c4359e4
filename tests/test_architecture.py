"""Architecture rules: the core never imports Streamlit (only lab/views/ may); the entry points work."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "lab"
VIEWS = LAB / "views"


def core_modules() -> list[Path]:
    return sorted(path for path in LAB.rglob("*.py") if VIEWS not in path.parents)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "import_module",
            "__import__",
        ):
            for arg in node.args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
    return names


def test_the_core_files_are_found():
    names = {path.name for path in core_modules()}
    assert {"residual.py", "distributions.py", "binomial.py", "scenarios.py", "cli.py", "formatting.py"} <= names
    assert not any(VIEWS in path.parents for path in core_modules())


def test_no_streamlit_import_outside_views():
    offenders = []
    for path in core_modules():
        for name in imported_modules(path):
            if name == "streamlit" or name.startswith("streamlit."):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_the_checker_would_catch_one(tmp_path):
    # the AST check sees every import form a module could use
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import streamlit as st\nfrom streamlit.testing import v1\ndef f():\n"
        "    import importlib\n    importlib.import_module('streamlit')\n"
    )
    assert {"streamlit", "streamlit.testing", "importlib"} <= imported_modules(sample)


def test_importing_the_core_does_not_load_streamlit():
    code = (
        "import sys, lab, lab.residual, lab.distributions, lab.binomial, lab.scenarios, lab.formatting, lab.cli\n"
        "lab.cli.build_parser()\n"  # the subcommand modules too
        "assert 'streamlit' not in sys.modules, sorted(m for m in sys.modules if m.startswith('streamlit'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_from_lab_import_residual():
    from fractions import Fraction

    from lab import residual

    # the seed's example: r = (0, 3/4, 1/4)
    assert residual("A=1/10,B=3/5,C=3/10", "A=1/2,B=3/10,C=1/5").residual == (0, Fraction(3, 4), Fraction(1, 4))


def test_public_names():
    import lab

    for name in lab.__all__:
        assert hasattr(lab, name), name
