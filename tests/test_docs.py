"""Every relative Markdown link in README.md and docs/ resolves: the file exists and, for a #anchor, the target
file has a heading with that GitHub anchor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    ROOT / "deploy" / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
]

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`]*`")


def _prose(text: str) -> str:
    """The text without fenced code blocks and code spans (links there are examples, not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def github_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped except '-' and '_', spaces to '-'."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} +(.+?) *$", FENCE.sub("", path.read_text(encoding="utf-8")), re.M)
    return {github_anchor(h) for h in headings}


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(_prose(path.read_text(encoding="utf-8")))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


def test_anchor_rule_matches_github():
    assert github_anchor("`python -m lab check`") == "python--m-lab-check"
    assert github_anchor("How many students per replica") == "how-many-students-per-replica"
    assert github_anchor("Several hosts: Kubernetes") == "several-hosts-kubernetes"
    assert github_anchor("Numerics: the exact reference and the float paths") == (
        "numerics-the-exact-reference-and-the-float-paths"
    )


def test_every_docs_page_is_reachable_from_the_readme():
    seen, todo = set(), [ROOT / "README.md"]
    while todo:
        page = todo.pop()
        if page in seen or not page.is_file() or page.suffix != ".md":
            continue
        seen.add(page)
        todo += [(page.parent / t.split("#")[0]).resolve() for t in relative_links(page) if t.split("#")[0]]
    orphans = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.resolve() not in seen)
    assert not orphans, f"no link leads from README.md to docs/{', docs/'.join(orphans)}"


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in relative_links(page):
        file_part, _, anchor = target.partition("#")
        destination = (page.parent / file_part).resolve() if file_part else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading with anchor #{anchor} in {destination.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path):
    assert not broken_links(page), f"{page.name}: " + "; ".join(broken_links(page))


def test_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


def test_a_broken_link_is_found(tmp_path: Path):
    (tmp_path / "other.md").write_text("## Has: a `code` heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Top\n\n[ok](#top) [gone](missing.md) [bad anchor](#nowhere) `[code](x.md)`\n"
        "[there](other.md#has-a-code-heading) [not there](other.md#has)\n```\n[in a block](y.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "#nowhere: no heading with anchor #nowhere in page.md",
        "other.md#has: no heading with anchor #has in other.md",
    ]


def test_the_performance_page_states_the_present():
    """docs/performance.md: what to expect, how to measure, the sizing rules; the history is in CHANGELOG.md and
    docs/decisions/, not a second diary."""
    assert len((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").splitlines()) <= 250
