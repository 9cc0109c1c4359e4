"""The check's Markov model as a torch-style causal language model, for loops written against one.

Whole-generation loops (``generate(target, draft, prefix, max_new, rng)``) often call a model the way
Hugging Face models are called: ``model(input_ids).logits`` of shape [B, T, V], the logits at position t
predicting the token after ``input_ids[:, : t + 1]``, optionally with ``past_key_values`` so that only
the new tokens are passed. :func:`causal_lm` wraps the check's ``target`` or ``draft`` function that way:

    model = causal_lm(target)                 # inside your generate(target, draft, prefix, max_new, rng)
    ids = torch.tensor([[model.bos, *prefix]])  # position 0 is the start of the text
    out = model(ids)                          # out.logits[0, -1] = log target(prefix), -inf where p = 0
    out = model(ids[:, -1:], past_key_values=out.past_key_values)   # the same row, from the cache

The vocabulary gets one extra token, ``model.bos`` (index V), that stands for the start of the text; its
logit is -inf everywhere, so a correct sampler never produces it. The cache holds the tokens seen so far.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CausalLMOutput:
    logits: object  # torch tensor [B, T, V + 1]
    past_key_values: object | None = None


class MarkovCache:
    """The ``past_key_values`` of the wrapped model: the token ids seen so far, per row."""

    def __init__(self, rows: list[list[int]]):
        self.rows = rows

    def get_seq_length(self, layer: int = 0) -> int:
        return len(self.rows[0]) if self.rows else 0


class MarkovCausalLM:
    def __init__(self, fn, dtype=None):
        import torch

        self.torch = torch
        self.fn = fn
        self.vocab_size = int(getattr(fn, "vocab_size", None) or len(fn(())))
        self.bos = self.vocab_size  # the start of the text
        self.eos_token_id = getattr(fn, "stop", None)
        self.dtype = dtype or torch.float64

    def _row(self, ids: list[int]):
        torch = self.torch
        prefix = ids[1:] if ids and ids[0] == self.bos else ids
        row = self.fn(tuple(prefix))
        probs = row.to(self.dtype) if isinstance(row, torch.Tensor) else torch.tensor(row, dtype=self.dtype)
        out = torch.full((self.vocab_size + 1,), float("-inf"), dtype=self.dtype)
        out[: self.vocab_size] = torch.log(probs)
        return out

    def __call__(self, input_ids, past_key_values=None, use_cache: bool = True, **_ignored) -> CausalLMOutput:
        torch = self.torch
        ids = input_ids.tolist() if hasattr(input_ids, "tolist") else [list(r) for r in input_ids]
        if ids and not isinstance(ids[0], list):
            ids = [ids]
        past = past_key_values.rows if past_key_values is not None else [[] for _ in ids]
        logits, rows = [], []
        for seen, new in zip(past, ids):
            full = list(seen) + [int(t) for t in new]
            start = len(seen)
            logits.append(torch.stack([self._row(full[: t + 1]) for t in range(start, len(full))]))
            rows.append(full)
        return CausalLMOutput(torch.stack(logits), MarkovCache(rows) if use_cache else None)

    forward = __call__


def causal_lm(fn, dtype=None) -> MarkovCausalLM:
    """``fn`` (the check's ``target`` or ``draft``) as a causal LM: ``model(input_ids).logits``."""
    return MarkovCausalLM(fn, dtype)
