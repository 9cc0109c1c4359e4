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

:func:`llama` builds a real transformers ``LlamaForCausalLM`` with the same next-token law, for checking
``model.generate(assistant_model=...)`` itself (assisted decoding needs a real model with a cache that can be cut):

    def generate(target, draft, prefix, max_new, generator, processing):
        model, assistant = llama(target), llama(draft)
        ids = torch.tensor([[model.config.bos_token_id, *prefix]])
        out = model.generate(ids, assistant_model=assistant, do_sample=True, max_new_tokens=max_new, **processing)
        return out[0, ids.shape[1]:].tolist()
"""

from __future__ import annotations

import math
import weakref
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


# --- a real transformers model ------------------------------------------------------------------------

_LLAMAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
NO_MASS = -1e4  # the logit of a token with p = 0: exp(NO_MASS - max) is exactly 0 in float32 and float64


def _log_row(row, torch) -> object:
    """A row the check served (probabilities or log-probabilities, numpy or torch) as float64 log-probabilities."""
    values = row.detach().to(torch.float64) if isinstance(row, torch.Tensor) else torch.tensor(row, dtype=torch.float64)
    return values if bool((values < 0).any()) else torch.log(values)  # logits are <= 0 with one below; probs >= 0


def llama(fn, dtype=None):
    """``fn`` (the check's ``target`` or ``draft``) as a real transformers ``LlamaForCausalLM`` with its KV cache,
    for checking ``model.generate(assistant_model=...)`` itself. Built once per model function and kept.

    One layer whose attention and MLP write nothing (their output weights are 0), so the residual stream is the
    current token's embedding: a one-hot vector of width H (a power of 4, so RMSNorm scales it by sqrt(H) exactly),
    and ``lm_head`` holds log p(. | token) / sqrt(H). The next-token law after any text is the row of its last
    token, as in the check's first-order models; ``fn`` is read at the start and after each token. Token V (the
    vocabulary's size) is the start of the text (``model.config.bos_token_id``), never produced; the stop token,
    if the model has one, is ``eos_token_id`` (and the padding). The check's ``target.stop`` is read, not guessed.
    Needs torch and transformers (``requirements-torch.txt``)."""
    model = _LLAMAS.get(fn)
    if model is None:
        model = _LLAMAS[fn] = _build_llama(fn, dtype)
    return model


def _build_llama(fn, dtype):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    start = _log_row(fn(()), torch)
    size = int(start.shape[0])
    rows = [start] + [_log_row(fn((t,)), torch) for t in range(size)]  # the start, then after each token
    width = 4 ** max(1, math.ceil(math.log(size + 1, 4)))
    bos, stop = size, getattr(fn, "stop", None)
    config = LlamaConfig(
        vocab_size=size + 1, hidden_size=width, intermediate_size=4, num_hidden_layers=1, num_attention_heads=1,
        num_key_value_heads=1, head_dim=width, max_position_embeddings=4096, rms_norm_eps=1e-30,
        bos_token_id=bos, eos_token_id=stop, pad_token_id=bos if stop is None else stop,
        tie_word_embeddings=False, attn_implementation="eager",
    )
    model = LlamaForCausalLM(config).to(dtype or torch.float32).eval()
    scale = math.sqrt(width)
    with torch.no_grad():
        embed = torch.zeros(size + 1, width)
        embed[torch.arange(size + 1), torch.arange(size + 1)] = 1.0
        model.model.embed_tokens.weight.copy_(embed)
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.model.norm.weight.fill_(1.0)
        head = torch.zeros(size + 1, width, dtype=torch.float64)
        for context, row in zip([bos, *range(size)], rows):
            head[:size, context] = row.clamp(min=NO_MASS) / scale
            head[bos, context] = NO_MASS / scale
        model.lm_head.weight.copy_(head)
    model.generation_config.bos_token_id = bos
    model.generation_config.eos_token_id = stop
    model.generation_config.pad_token_id = config.pad_token_id
    return model
