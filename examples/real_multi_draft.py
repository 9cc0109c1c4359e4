"""Shipped multi-candidate verifiers, imported unchanged, behind thin adapters for ``python -m lab check``.

    python -m lab check examples/real_multi_draft.py:eagle    # EAGLE's evaluate_posterior (eagle-llm 1.2.1)
    python -m lab check examples/real_multi_draft.py:medusa   # Medusa's evaluate_posterior (medusa-llm 0.1)

Both need torch, transformers and the two packages (requirements-adapters.txt, installed with --no-deps).

**EAGLE** (``eagle.model.utils.evaluate_posterior``, sampling path): its drafter samples a node's children from q
without replacement (``cnets.Model.sample``: ``torch.multinomial(..., replacement=False)``) and passes each child's
probability given the earlier ones, q(x_j) / (1 − Σ_{l<j} q(x_l)); the verifier keeps child j on
``random.random() <= p_j(x_j) / that``, and on a rejection subtracts the draft with the tried siblings masked and
renormalised (``b_indices``). The adapter builds a one-level tree of K children with EAGLE's own
``generate_tree_buffers`` and ``generate_candidates``, fills the drafter's outputs from the check's candidates
(the probabilities by ``cnets.Model.sample``'s formula), seeds Python's ``random`` (which EAGLE draws its coins
from) from the check's generator, and when no child is kept draws the correction from the ``sample_p`` EAGLE
returns, as its ``update_inference_inputs`` does (``torch.multinomial``).

**Medusa** (``medusa.model.utils.evaluate_posterior``, typical acceptance): its candidates are the heads' top-k
(``generate_candidates``: ``torch.topk``); a candidate is accepted when p(x) > min(ε, α·exp(−H)), the most likely
accepted one is chosen, and when none is accepted the next token is the base model's argmax (``generate_candidates``
takes ``torch.argmax`` of the logits at the accepted position). Lossy by design.
"""

import random

import torch
from eagle.model.utils import evaluate_posterior as eagle_posterior
from eagle.model.utils import generate_candidates as eagle_candidates
from eagle.model.utils import generate_tree_buffers
from medusa.model.utils import evaluate_posterior as medusa_posterior
from transformers.generation.logits_process import LogitsProcessorList

EAGLE_TOPK = 10  # eagle.model.utils.TOPK: children drawn per node, of which the tree keeps the first K
_buffers: dict = {}


def _eagle_buffers(k: int) -> dict:
    if k not in _buffers:  # a one-level tree: the root's first K children
        _buffers[k] = generate_tree_buffers([[j] for j in range(k)], device="cpu")
    return _buffers[k]


def eagle(p, q, candidates, generator):
    k, size = len(candidates), p.shape[0]
    buffers = _eagle_buffers(k)
    random.seed(int(torch.randint(2**62, (), generator=generator)))  # EAGLE's coins: Python's random
    drawn = candidates.tolist()
    # the drafter's outputs for the root (cnets.Model.sample): children, their probability given the earlier
    # children, and the draft distribution
    probs = q[drawn].float()
    before = torch.cat([torch.zeros(1), torch.cumsum(probs, 0)[:-1]])
    padded = torch.zeros(EAGLE_TOPK, dtype=torch.long)
    padded[:k] = candidates
    prob_padded = torch.zeros(EAGLE_TOPK)
    prob_padded[:k] = torch.clamp(probs / (1 - before), 0.0, 1.0)
    tree_logits = (padded[None], prob_padded[None], q[None, None].float())
    root = torch.tensor([[size]])  # the token before the node: any index, never compared
    cart, cart_prob, tree_candidates = eagle_candidates(
        tree_logits, buffers["tree_indices"], buffers["retrieve_indices"], root, LogitsProcessorList()
    )
    logits = torch.zeros(cart.shape[0], 2, size, dtype=p.dtype)
    logits[:, 0] = torch.log(p)  # the target at the node, -inf where p = 0
    best, accepted, sample_p = eagle_posterior(
        logits, cart, LogitsProcessorList(), cart_prob, tree_logits[2], buffers["p_indices"], tree_candidates,
        buffers["b_indices"],
    )
    if accepted >= 1:
        return int(cart[int(best), 1]), drawn.index(int(cart[int(best), 1]))
    return int(torch.multinomial(sample_p, 1, generator=generator)[0]), None


eagle.tensors = "torch"
eagle.rule = "without-replacement"
eagle.backend = "eagle-llm 1.2.1 (evaluate_posterior), torch"

MEDUSA_THRESHOLD, MEDUSA_ALPHA = 0.09, 0.3  # medusa_model.py's defaults: posterior_threshold, posterior_alpha


def medusa(p, q, candidates, generator):
    k, size = len(candidates), p.shape[0]
    cart = torch.stack([torch.full((k,), size), candidates], dim=1)  # [root, candidate] per path
    logits = torch.zeros(k, 2, size, dtype=p.dtype)
    logits[:, 0] = torch.log(p)
    best, accepted = medusa_posterior(logits, cart, 1.0, MEDUSA_THRESHOLD, MEDUSA_ALPHA)
    if accepted >= 1:
        return int(cart[int(best), 1]), int(best)
    return int(torch.argmax(logits[int(best), 0])), None  # the next root: the base model's greedy token


medusa.tensors = "torch"
medusa.rule = "top-k"
medusa.backend = "medusa-llm 0.1 (evaluate_posterior), torch"

EXPECTED_VERDICTS = {
    "eagle": {"exit": 0},
    "medusa": {"exit": 1},
}

# Torch calls cost about a millisecond: the check looks for a bias of TV 0.2 (its default 0.01 takes 400 times the
# draws; --tv overrides this).
eagle.tv = medusa.tv = 0.2
