"""Which address the join link uses (lab.views.live_class.join_link): RESIDUAL_LAB_PUBLIC_URL, else the address typed
on the
dashboard, else the browser's own address unless it is a loopback one; links written out by hand here."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lab.views.live_class import join_link as jl


@pytest.fixture
def browser_at(monkeypatch):
    """Pretend the teacher's browser opened ``url`` (what st.context.url gives a page)."""

    def at(url: str) -> None:
        monkeypatch.setattr(jl, "st", SimpleNamespace(context=SimpleNamespace(url=url)))

    monkeypatch.delenv(jl.PUBLIC_URL_ENV, raising=False)
    return at


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "lab.localhost", "127.0.1.1"])
def test_a_loopback_browser_address_gives_no_join_link(browser_at, host):
    browser_at(f"http://{host}:8501/class?code=K7M2QX&teacher=secret")
    link = jl.join_link("K7M2QX", "", "k")
    assert link.url is None and link.source == "loopback"


def test_the_browser_address_when_it_is_not_loopback_without_the_teacher_token(browser_at):
    browser_at("http://192.168.1.20:8501/class?code=K7M2QX&teacher=secret")
    link = jl.join_link("K7M2QX", "", "k")
    assert (link.url, link.source) == ("http://192.168.1.20:8501/class?code=K7M2QX&join=k", "browser")
    browser_at("https://school.example/lab/class?code=K7M2QX&teacher=secret")  # a path prefix is kept
    assert jl.join_link("K7M2QX", "", "k").url == "https://school.example/lab/class?code=K7M2QX&join=k"


def test_the_typed_address_beats_the_browser_and_the_environment_beats_both(browser_at, monkeypatch):
    browser_at("http://localhost:8501/class")
    typed = jl.join_link("K7M2QX", "http://10.0.0.5:8501", "k")
    assert (typed.url, typed.source) == ("http://10.0.0.5:8501/class?code=K7M2QX&join=k", "dashboard")
    monkeypatch.setenv(jl.PUBLIC_URL_ENV, "http://lab.example:8501")
    public = jl.join_link("K7M2QX", "http://10.0.0.5:8501", "k")
    assert (public.url, public.source) == ("http://lab.example:8501/class?code=K7M2QX&join=k", "environment")
    monkeypatch.setenv(jl.PUBLIC_URL_ENV, "lab.example")  # not an http(s) address: said why, the next one used
    unusable = jl.join_link("K7M2QX", "http://10.0.0.5:8501", "k")
    assert unusable.source == "dashboard" and unusable.problem.startswith(f"{jl.PUBLIC_URL_ENV} is not used:")


@pytest.mark.parametrize(
    ("listening", "proxies", "loopback_only"),
    [
        ("127.0.0.1", "", True),
        ("localhost", "", True),
        ("::1", "", True),
        ("", "", False),
        ("0.0.0.0", "", False),
        ("192.168.1.20", "", False),
        ("127.0.0.1", "127.0.0.1,::1", False),
    ],  # behind a proxy (deploy/serve): reachable
)
def test_no_network_address_is_offered_when_the_server_listens_on_loopback_only(
    monkeypatch, listening, proxies, loopback_only
):
    options = {"server.address": listening}
    monkeypatch.setattr(
        jl,
        "st",
        SimpleNamespace(context=SimpleNamespace(url="http://localhost:8501/class"), get_option=options.get),
    )
    monkeypatch.setenv(jl.TRUSTED_PROXIES_ENV, proxies)
    monkeypatch.setattr(jl, "_network_ips", lambda: ("192.168.1.20",))
    assert jl.listens_on_loopback_only() is loopback_only
    assert jl.network_addresses() == ([] if loopback_only else ["http://192.168.1.20:8501"])


def test_an_assignment_link_and_a_join_link_share_one_address(browser_at, monkeypatch):
    monkeypatch.setenv(jl.PUBLIC_URL_ENV, "https://school.example/lab/")  # a path prefix is kept, its "/" is not
    assert jl.student_address("http://10.0.0.5:8501").root == "https://school.example/lab"
    assert jl.join_link("K7M2QX", "", "k").typed == "https://school.example/lab/class"
