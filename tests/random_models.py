"""Random Markov models for hypothesis: two or three tokens, exact rows with zeros allowed."""

from __future__ import annotations

from fractions import Fraction as F

from hypothesis import strategies as st

from lab.core.markov import MarkovModel


@st.composite
def rows(draw, size):
    """A random exact distribution over `size` tokens (zeros allowed): integer weights normalised."""
    weights = draw(st.lists(st.integers(0, 4), min_size=size, max_size=size).filter(lambda w: sum(w) > 0))
    return tuple(F(w, sum(weights)) for w in weights)


@st.composite
def models(draw):
    size = draw(st.integers(2, 3))
    target = tuple(draw(rows(size)) for _ in range(size + 1))
    draft = tuple(draw(rows(size)) for _ in range(size + 1))
    vocab = tuple("abc"[:size])
    return MarkovModel("random", "random", "", vocab, target, draft)


@st.composite
def stop_models(draw):
    """A random model with a stop token ("end", last in the vocabulary) after two or three words. The stop
    token's own rows (read only by the mistakes that go on after it) are random too."""
    words = draw(st.integers(2, 3))
    size = words + 1
    target = tuple(draw(rows(size)) for _ in range(size + 1))
    draft = tuple(draw(rows(size)) for _ in range(size + 1))
    vocab = (*"abc"[:words], "end")
    return MarkovModel("random-stop", "random", "", vocab, target, draft, stop=words)
