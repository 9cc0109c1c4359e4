"""Hugging Face transformers' own speculative sampling, checked unchanged behind thin adapters.

    python -m lab check examples/transformers_speculative.py:step           # one step: FAIL (exit 1): u <= p/q at u = 0
    python -m lab check examples/transformers_speculative.py:block          # blocks, cut at EOS: passes
    python -m lab check examples/transformers_speculative.py:bare_block     # the bare function: FAIL (exit 1)
    python -m lab check examples/transformers_speculative.py:processed_step # temperature, top-k, top-p: the same FAIL
    python -m lab check examples/transformers_speculative.py:generate       # model.generate(assistant_model=...)

`transformers.generation.utils._speculative_sampling(candidate_input_ids, candidate_logits,
candidate_length, new_logits)` takes the assistant's (draft's) and the model's (target's) logits, keeps
drafts while u <= p/q, corrects the first rejection from max(p - q, 0) and adds a bonus token from the
last row when every draft is kept. It has no EOS logic of its own: its caller `_assisted_decoding`
ends the text after the first EOS, and the assistant stops drafting at EOS. `block` does what that caller
does; `bare_block` does not, so after a kept EOS it emits a bonus token: on the models that stop the
check fails it and names bonus-after-stop. The function draws from torch's global generator, which the
check seeds before every call. Needs torch and transformers (requirements-torch.txt: test-only).
"""

import torch
import transformers
from transformers.generation.logits_process import (
    LogitsProcessorList,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)
from transformers.generation.utils import _speculative_sampling

from lab.check.causal_lm import llama

EXPECTED_VERDICT = {  # bare_block, with the default settings
    "exit": 1,
    "fails": ["markov-ab-end-K2-L3", "markov-sentences-end-K2-L3"],
    "identified_as": "bonus-after-stop",
}


def step(p_logits, q_logits, generator):
    """One step: the draft proposes x from q, then transformers' function keeps it or corrects it."""
    x = torch.multinomial(q_logits.softmax(-1), 1, generator=generator)  # the assistant's draft
    valid, n_matches = _speculative_sampling(
        x.view(1, 1),  # candidate_input_ids: the prompt is empty, the one candidate is x
        q_logits.view(1, 1, -1),  # candidate_logits [1, k, V]
        1,  # candidate_length
        torch.stack([p_logits, p_logits]).unsqueeze(0),  # new_logits [1, k + 1, V]: the bonus row is unused here
    )
    # the kept draft or its correction (a bonus token would be the next step's), and whether it was kept
    return int(valid[0, 0]), bool(n_matches)


def _draft(draft, prefix, k, generator):
    """The assistant's k drafts (it stops drafting at EOS), with the logits it drew them from."""
    drafts, rows, context = [], [], list(prefix)
    for _ in range(k):
        logits = draft(context)
        x = int(torch.multinomial(logits.softmax(-1), 1, generator=generator))
        drafts.append(x)
        rows.append(logits)
        context.append(x)
        if x == draft.stop:
            break
    return drafts, rows


def bare_block(target, draft, prefix, k, generator):
    """One block through transformers' function alone: what it returns, uncut."""
    drafts, q_rows = _draft(draft, prefix, k, generator)
    p_rows = [target(list(prefix) + drafts[:i]) for i in range(len(drafts) + 1)]
    valid, _ = _speculative_sampling(
        torch.tensor([drafts]),
        torch.stack(q_rows).unsqueeze(0),
        len(drafts),
        torch.stack(p_rows).unsqueeze(0),
    )
    return valid[0].tolist()


def block(target, draft, prefix, k, generator):
    """As `_assisted_decoding` uses it: the text ends after the first EOS (no bonus after a kept EOS)."""
    tokens = bare_block(target, draft, prefix, k, generator)
    if target.stop in tokens:
        tokens = tokens[: tokens.index(target.stop) + 1]
    return tokens


def processed_step(p_logits, q_logits, generator, processing):
    """Temperature, top-k and top-p through transformers' own warpers on both models' raw logits, in the
    order `generate(do_sample=True, temperature=..., top_k=..., top_p=...)` applies them, then one step."""
    warpers = LogitsProcessorList([
        TemperatureLogitsWarper(processing["temperature"]),
        TopKLogitsWarper(processing["top_k"]),
        TopPLogitsWarper(processing["top_p"]),
    ])
    ids = torch.zeros((1, 0), dtype=torch.long)
    return step(warpers(ids, p_logits.view(1, -1))[0], warpers(ids, q_logits.view(1, -1))[0], generator)


processed_step.processing = True  # the check hands it raw logits and the processing


def generate(target, draft, prefix, max_new, generator, processing):
    """`model.generate(assistant_model=...)` itself: assisted decoding on two real one-layer Llama models that
    follow the check's target and draft (lab.check.causal_lm.llama), the processing given to generate."""
    model, assistant = llama(target), llama(draft)
    ids = torch.tensor([[model.config.bos_token_id, *prefix]])
    out = model.generate(ids, assistant_model=assistant, do_sample=True, max_new_tokens=max_new, **processing)
    return out[0, ids.shape[1]:].tolist()


generate.processing = True  # temperature, top-k and top-p as generate's own arguments


for _sampler in (step, block, bare_block, processed_step, generate):
    _sampler.tensors = "torch"  # torch tensors and a torch.Generator (the function itself uses the global one)
    _sampler.inputs = "logits"  # log-probabilities, -inf where p = 0
    _sampler.backend = f"torch {torch.__version__} cpu, transformers {transformers.__version__}"
    _sampler.dtype = "float64"
    _sampler.tv = 0.2  # the bias the check looks for (its default 0.01 takes up to an hour here; --tv overrides it)
