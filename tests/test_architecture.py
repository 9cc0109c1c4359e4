"""Architecture rules: imports only point down (core <- teaching <- charts, models, classroom <- cli, views),
no import circles, only lab/views/ imports Streamlit, and the entry points work."""

import ast
import re
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


# Each folder of lab/ and the rank it stands on: a module may import lab modules of a lower rank or of its
# own folder, never of a higher rank or of another folder of the same rank.
# i18n (the languages and their catalogs) stands between the core and the teaching, whose words it gives.
LAYERS = {"core": 0, "i18n": 0.5, "teaching": 1, "charts": 2, "models": 2, "classroom": 2, "check": 2, "cli": 3,
          "views": 4}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def lab_imports(path: Path) -> set[str]:
    """The lab modules a file imports, at any depth (function-level imports included)."""
    known = {module_name(p) for p in LAB.rglob("*.py")}
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("lab"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    found |= {name for name in imported_modules(path) if name.startswith("lab.") and name in known}
    return found


def folder_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else None


def test_the_layers_are_folders():
    folders = {path.name for path in LAB.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    assert {"core", "teaching", "charts", "cli", "views"} <= folders <= set(LAYERS)
    assert not [p.name for p in LAB.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]


def layering_offenders(paths) -> list[str]:
    offenders = []
    for path in paths:
        mine = folder_of(module_name(path))
        for target in lab_imports(path):
            theirs = folder_of(target)
            if mine is None or theirs is None or theirs == mine:
                continue
            if LAYERS[theirs] >= LAYERS[mine]:
                offenders.append(f"{module_name(path)} imports {target}")
    return offenders


def test_imports_only_point_down():
    assert layering_offenders(sorted(LAB.rglob("*.py"))) == []


def test_the_layering_check_would_catch_an_upward_import(tmp_path, monkeypatch):
    fake = LAB / "core" / "residual.py"
    text = fake.read_text(encoding="utf-8") + "\nfrom lab.views.ui.charts import chart\n"
    sample = tmp_path / "residual.py"
    sample.write_text(text, encoding="utf-8")
    # judged as if it stood at lab/core/residual.py
    monkeypatch.setattr(sys.modules[__name__], "module_name", lambda path: "lab.core.residual")
    assert layering_offenders([sample]) == ["lab.core.residual imports lab.views.ui.charts"]


# The class store's rooms (lab/classroom/) and the rank each stands on: a room imports only rooms of a lower rank,
# so each reads knowing only those below it (docs/architecture.md lists what each owns). A new module gets a rank.
CLASSROOM_ROOMS = {
    **dict.fromkeys(("refusals", "keys", "gate", "activities", "confusables"), 0),
    **dict.fromkeys(("naming", "db"), 1),
    **dict.fromkeys(("limits", "records", "secret", "study"), 2),
    **dict.fromkeys(("teacher_link", "versions", "answers"), 3),
    **dict.fromkeys(("dashboards", "export", "classes"), 4),
    **dict.fromkeys(("roster", "plans"), 5),
    "admission": 6,
    "actions": 7,  # the Class page's buttons: over every room
}


def room_offenders(paths) -> list[str]:
    offenders = []
    for path in paths:
        mine = CLASSROOM_ROOMS.get(path.stem)
        if mine is None:
            offenders.append(f"lab.classroom.{path.stem} has no rank in CLASSROOM_ROOMS")
            continue
        for target in sorted(lab_imports(path)):
            parts = target.split(".")
            if parts[:2] == ["lab", "classroom"] and len(parts) > 2 and CLASSROOM_ROOMS.get(parts[2], mine) >= mine:
                offenders.append(f"lab.classroom.{path.stem} imports {target}")
    return offenders


def test_the_class_store_rooms_import_only_rooms_below_them():
    assert room_offenders(sorted(p for p in (LAB / "classroom").glob("*.py") if p.name != "__init__.py")) == []


# The web layer's rooms (lab/views/) and the rank each stands on, as the class store's: a room imports only rooms
# of a lower rank (docs/architecture.md, "The web layer's rooms"). shell.py, the navigation's page list, stands
# beside them; a new folder gets a rank here, and no other file stands at the top of lab/views/.
VIEW_ROOMS = {"patches": 0, "serving": 1, "shell": 1, "ui": 2, "live_class": 3, "pages": 4, "lesson": 4}


def view_room_offenders(paths) -> list[str]:
    offenders = []
    for path in paths:
        name = module_name(path)
        parts = name.split(".")
        if len(parts) < 3:
            continue  # lab.views itself
        mine = VIEW_ROOMS.get(parts[2])
        if mine is None:
            offenders.append(f"{name} is in no room of VIEW_ROOMS")
            continue
        for target in sorted(lab_imports(path)):
            theirs = target.split(".")
            if theirs[:2] == ["lab", "views"] and len(theirs) > 2 and theirs[2] != parts[2]:
                if VIEW_ROOMS.get(theirs[2], mine) >= mine:
                    offenders.append(f"{name} imports {target}")
    return offenders


def test_the_web_layer_rooms_import_only_rooms_below_them():
    assert view_room_offenders(sorted(VIEWS.rglob("*.py"))) == []
    assert sorted(p.name for p in VIEWS.glob("*.py")) == ["__init__.py", "shell.py"]
    assert {p.name for p in VIEWS.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(VIEW_ROOMS) - {"shell"}


def test_the_class_views_are_short_enough_to_read():
    """The live class's views: at most 450 lines a file, 60 a function (a longer one is split into named parts)."""
    long = []
    for path in sorted((VIEWS / "live_class").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 450:
            long.append(f"{path.name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                long.append(f"{path.name}: {node.name}() {node.end_lineno - node.lineno + 1} lines")
    assert long == []


def test_the_web_layer_room_check_would_catch_one(tmp_path, monkeypatch):
    sample = tmp_path / "sample.py"
    sample.write_text("from lab.views.pages import explorer\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "module_name", lambda path: "lab.views.patches.sample")
    assert view_room_offenders([sample]) == ["lab.views.patches.sample imports lab.views.pages"]


def test_the_room_check_would_catch_an_upward_import(tmp_path):
    sample = tmp_path / "naming.py"
    naming = (LAB / "classroom" / "naming.py").read_text(encoding="utf-8")
    sample.write_text(naming + "\nfrom lab.classroom import roster\n")
    unranked = tmp_path / "store.py"
    unranked.write_text("from lab.classroom.naming import check_name\n")
    assert room_offenders([sample, unranked]) == [
        "lab.classroom.naming imports lab.classroom.roster",
        "lab.classroom.store has no rank in CLASSROOM_ROOMS",
    ]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circles():
    graph = {}
    for path in LAB.rglob("*.py"):
        name = module_name(path)
        # a package's __init__ re-exporting its own modules is not a circle
        graph[name] = {t for t in lab_imports(path) if not name.startswith(t + ".") and t != "lab"}
    assert find_cycle(graph) is None


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


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
        "import sys, lab, lab.core.residual, lab.core.distributions, lab.core.binomial, lab.core.scenarios\n"
        "import lab.core.formatting, lab.cli\n"
        "lab.cli.build_parser()\n"  # the subcommand modules too
        "assert 'streamlit' not in sys.modules, sorted(m for m in sys.modules if m.startswith('streamlit'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_from_lab_import_residual():
    from fractions import Fraction

    from lab import residual

    # the worked example: r = (0, 3/4, 1/4)
    assert residual("A=1/10,B=3/5,C=3/10", "A=1/2,B=3/10,C=1/5").residual == (0, Fraction(3, 4), Fraction(1, 4))


def test_public_names():
    import lab

    for name in lab.__all__:
        assert hasattr(lab, name), name


def _code_strings(path: Path) -> list[str]:
    """The string constants of a module's code (docstrings, which may name files, left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def page_path_offenders(paths) -> list[str]:
    """Modules below the views naming a view's file: a page is named by its address, which only
    lab/views/shell.py maps to a file."""
    return [
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name} names {text!r}"
        for path in paths
        for text in _code_strings(path)
        if re.search(r"lab/views/[\w/]+\.py", text)
    ]


def test_no_page_path_below_the_views():
    assert page_path_offenders(core_modules()) == []


def test_the_page_path_check_would_catch_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Drawn by lab/views/pages/blocks.py (a docstring may say so)."""\nPAGE = "lab/views/pages/blocks.py"\n'
    )
    assert page_path_offenders([sample]) == ["sample.py names 'lab/views/pages/blocks.py'"]


def core_prose_offenders(paths) -> list[str]:
    """Display prose on a class of the core: a class attribute holding words (a string with a space). The core
    holds rules and numbers; what a person reads about them (a variant's title and description) lives in the
    teaching layer. A name such as ``name = "resample-from-p"`` has no space and stays."""
    offenders = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
            for stmt in cls.body:
                value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and " " in value.value.strip():
                    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                    offenders.append(f"{path.name}:{stmt.lineno} {cls.name}.{ast.unparse(target)}")
    return offenders


def test_no_display_prose_in_the_core():
    assert core_prose_offenders(sorted((LAB / "core").rglob("*.py"))) == []


def test_the_core_prose_check_would_catch_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        'class Rule:\n    """A docstring may talk."""\n    name = "resample-from-p"\n'
        '    title = "Resample from p"\n    kind: str = "two words"\n'
    )
    assert core_prose_offenders([sample]) == ["sample.py:4 Rule.title", "sample.py:5 Rule.kind"]


# A number read from text: Fraction, Decimal or float of str(...), repr(...) or something.strip(), or of each item
# of text taken apart (``Fraction(v) for v in json.loads(text)``, ``float(v) for v in text.split(",")``).
NUMBER_TYPES = {"Fraction", "Decimal", "float"}
TEXT_SPLITTERS = {"loads", "split", "rsplit", "splitlines", "findall"}


def _text_items(tree) -> set[int]:
    """The ids of the names that stand for an item of text taken apart in a comprehension."""
    items = set()
    for comp in ast.walk(tree):
        if not isinstance(comp, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            continue
        for gen in comp.generators:
            func = gen.iter.func if isinstance(gen.iter, ast.Call) else None
            if func is not None and getattr(func, "attr", getattr(func, "id", None)) in TEXT_SPLITTERS:
                names = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                items |= {id(n) for n in ast.walk(comp) if isinstance(n, ast.Name) and n.id in names}
    return items


def number_parsing_offenders(paths) -> list[str]:
    """Calls that read a number from text outside lab/core/numbers.py (the one reader, with its limits)."""
    offenders = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        text_items = _text_items(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) in NUMBER_TYPES and node.args):
                continue
            arg = node.args[0]
            if id(arg) in text_items or isinstance(arg, ast.Call) and (
                getattr(arg.func, "id", None) in ("str", "repr") or getattr(arg.func, "attr", None) == "strip"
            ):
                offenders.append((path.name, node.lineno, ast.unparse(node)))
    return [f"{name}:{line} {code}" for name, line, code in sorted(offenders)]


def test_numbers_are_read_from_text_only_by_lab_core_numbers():
    assert number_parsing_offenders(p for p in LAB.rglob("*.py") if p != LAB / "core" / "numbers.py") == []


def test_the_number_parsing_check_would_catch_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from fractions import Fraction\nx = Fraction(str(0.1))\ny = float(text.strip())\nz = Fraction(3)\n"
        "a = tuple(Fraction(v) for v in json.loads(text))\nb = [float(v) for v in text.split(',')]\n"
        "c = [Fraction(v) for v in values]\n"
    )
    assert number_parsing_offenders([sample]) == [
        "sample.py:2 Fraction(str(0.1))",
        "sample.py:3 float(text.strip())",
        "sample.py:5 Fraction(v)",
        "sample.py:6 float(v)",
    ]


def bench_importers(paths) -> list[str]:
    """Test files importing the benches: the helpers both use (browserlib, loadclient) live under tests/, and
    the benches import them from there, never the other way round."""
    return [
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name} imports {name}"
        for path in paths
        for name in sorted(imported_modules(path))
        if name == "bench" or name.startswith("bench.")
    ]


def test_no_test_imports_a_bench():
    assert bench_importers(sorted((ROOT / "tests").rglob("*.py"))) == []


def test_the_bench_import_check_would_catch_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import bench.bench_load\nfrom bench import minimal_app\nfrom benchmarks import x\nimport lab\n")
    assert bench_importers([sample]) == ["sample.py imports bench", "sample.py imports bench.bench_load"]


def test_the_worst_case_bench_sweeps_every_page_the_app_routes():
    """bench/bench_worst_case.py takes its pages from lab/views/shell.py and stops on a page it has no sweep for;
    read here from its source (no test imports a bench): its SWEEPS name every url path."""
    from lab.views import shell

    tree = ast.parse((ROOT / "bench" / "bench_worst_case.py").read_text(encoding="utf-8"))
    sweeps = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "SWEEPS" for t in node.targets)
    )
    assert {key.value for key in sweeps.keys} == {e.url_path for e in (*shell.PAGES, *shell.LINKED_PAGES)}


def test_every_page_file_is_routed():
    """A page added under lab/views/pages/ but forgotten in lab/views/shell.py's PAGES fails here (the other places a
    new page needs, its model and tests, are asked for by tests/test_pages_hostile_links.py and
    tests/test_pages_widget_states.py)."""
    from lab.views import shell

    helpers = {"study_resume.py"}  # Exercises' resume links: drawn by the Exercises page, not a page
    routed = {Path(e.file).name for e in (*shell.PAGES, *shell.LINKED_PAGES) if "/pages/" in e.file}
    assert {p.name for p in (VIEWS / "pages").glob("*.py")} - {"__init__.py"} - helpers == routed
    lesson_helpers = {"chapters.py"}  # each chapter's interactive: drawn by the Start-here page
    routed = {Path(e.file).name for e in shell.PAGES if "/lesson/" in e.file}
    assert {p.name for p in (VIEWS / "lesson").glob("*.py")} - {"__init__.py"} - lesson_helpers == routed


TIMING = re.compile(
    r"\b\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)?\s?(?:ms|µs|microseconds|milliseconds)\b"
    r"|\b\d+(?:\.\d+)?\s?% of (?:the server|a [\w ]*(?:page|run)|the [\w ]*(?:samples|CPU))"
)


def timing_offenders(paths) -> list[str]:
    """Timings in comments and docstrings: a figure belongs in the docs, with its date and commit."""
    import io
    import tokenize

    offenders = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        texts = [tok.string for tok in tokens if tok.type == tokenize.COMMENT]
        tree = ast.parse(source)
        texts += [
            ast.get_docstring(node) or ""
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        offenders += [f"{path.name}: {m.group(0)!r}" for text in texts for m in TIMING.finditer(text)]
    return offenders


def test_no_timings_in_the_codes_comments():
    assert timing_offenders(sorted(LAB.rglob("*.py"))) == []


def test_the_timing_check_would_catch_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Fast: 0.2 ms a call."""\nX = 1  # 40 % of the server\'s CPU\nY = "3 ms"  # a string: fine\n')
    assert timing_offenders([sample]) == ["sample.py: '40 % of the server'", "sample.py: '0.2 ms'"]
