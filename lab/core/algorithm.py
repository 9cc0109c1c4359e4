"""Speculative sampling on one screen: one step and one block, written plainly (numpy, float64).

This is the algorithm as a textbook writes it (Leviathan et al. 2023, Chen et al. 2023), for reading. The lab's
numbers come from the exact engine (lab/core/residual.py, lab/core/blocks.py); tests/test_algorithm.py checks that
these two functions draw from the laws that engine computes.

``p`` is the target's next-token distribution, ``q`` the draft's, both arrays over the same vocabulary.
"""

from __future__ import annotations

import numpy as np


def speculative_step(p: np.ndarray, q: np.ndarray, rng: np.random.Generator) -> int:
    """One token: the draft proposes x ~ q, the target keeps it with probability min(1, p(x)/q(x)), and a
    rejected proposal is replaced by a fresh draw from the residual r = max(0, p - q) / Z. The result is
    distributed exactly as p."""
    x = rng.choice(len(q), p=q)  # the draft's proposal
    if rng.random() * q[x] < p[x]:  # u < p(x)/q(x), written without dividing: kept
        return int(x)
    missing = np.maximum(p - q, 0.0)  # the target's mass the kept proposals do not cover
    z = missing.sum()  # Z = 1 - alpha, the probability of a rejection
    if z == 0.0:  # p = q to the last bit: no rejection branch, nothing to divide (no epsilon)
        return int(x)
    return int(rng.choice(len(p), p=missing / z))  # fresh randomness: a new draw from r


def speculative_block(prefix: list[int], target, draft, k: int, rng: np.random.Generator) -> list[int]:
    """One block: the draft proposes up to ``k`` tokens one after another, the target tests them in order, and
    the first rejection ends the block with a draw from that position's residual. If all ``k`` are kept the
    target adds one more token of its own. ``target(context)`` and ``draft(context)`` give p and q for the next
    token after ``context`` (a list of tokens). Returns the tokens this block adds (1 to k + 1 of them)."""
    context, proposals, drafts = list(prefix), [], []
    for _ in range(k):  # the draft runs ahead alone
        q = draft(context)
        x = int(rng.choice(len(q), p=q))
        proposals.append(x)
        drafts.append(q)
        context.append(x)
    added: list[int] = []
    for x, q in zip(proposals, drafts):  # the target checks each position in turn
        p = target(prefix + added)
        if rng.random() * q[x] < p[x]:
            added.append(x)
            continue
        missing = np.maximum(p - q, 0.0)
        z = missing.sum()
        added.append(x if z == 0.0 else int(rng.choice(len(p), p=missing / z)))
        return added  # the first rejection ends the block
    p = target(prefix + added)  # all kept: the target adds a bonus token
    added.append(int(rng.choice(len(p), p=p)))
    return added
