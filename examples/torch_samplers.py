"""Speculative samplers written in PyTorch, in the shapes `python -m lab check` takes them.

    python -m lab check examples/torch_samplers.py:step           # torch tensors in, one token out: passes
    python -m lab check examples/torch_samplers.py:batched_step   # [B, V] rows, B = 4: passes
    python -m lab check examples/torch_samplers.py:block          # a block sampler on torch rows: passes
    python -m lab check examples/torch_samplers.py:batched_block  # B = 4 rows of blocks ([B, k, V]): passes
    python -m lab check examples/torch_samplers.py:batched_block_mixed  # FAIL: a row's residual from the next row
    python -m lab check examples/torch_samplers.py:generate       # a whole-generation loop on a causal LM: passes
    python -m lab check examples/torch_samplers.py:mixed_rows     # FAIL: row b tests its draft with row b+1's p
    python -m lab check examples/torch_samplers.py:floored_step   # FAIL: vLLM's floor, finfo(float32).tiny
    python -m lab check examples/torch_samplers.py:verify_top_k   # several candidates, EAGLE-2/3's top-k: passes
    python -m lab check examples/torch_samplers.py:verify_batched # B = 4 nodes of candidates at once: passes
    python -m lab check examples/torch_samplers.py:verify_batched_mixed  # FAIL: a row's residual from the next row
    python -m lab check examples/torch_samplers.py:tree           # a token tree of widths (2, 2): passes
    python -m lab check examples/torch_samplers.py:tree_causal_lm # the same tree on the causal-LM helper: passes

Each sets `tensors = "torch"`: the check hands it torch tensors and a `torch.Generator` it seeds before
every call. Draw every random number from that generator (or torch's global one, seeded too).
"""

import torch

from lab.check.causal_lm import causal_lm

TINY = torch.finfo(torch.float32).tiny


def _keep(p_x, q_x, generator):
    return torch.rand(p_x.shape, generator=generator, dtype=p_x.dtype) * q_x < p_x  # u < p/q, never u <= p/q


def _residual(p, q):
    excess = torch.clamp(p - q, min=0)
    z = excess.sum(-1, keepdim=True)
    return excess / torch.where(z > 0, z, torch.ones_like(z)), z  # never 0/0: rows with Z = 0 are never used


def step(p, q, generator):
    x = torch.multinomial(q, 1, generator=generator)[0]
    if _keep(p[x], q[x], generator):
        return int(x), None  # kept: None says so (the check counts kept drafts)
    r, _ = _residual(p, q)
    return int(torch.multinomial(r, 1, generator=generator)[0]), r


def batched_step(p, q, generator):
    """p, q: [B, V]; rows independent, one token each."""
    rows = torch.arange(p.shape[0])
    x = torch.multinomial(q, 1, generator=generator)[:, 0]
    keep = _keep(p[rows, x], q[rows, x], generator)
    r, z = _residual(p, q)
    r = torch.where(z > 0, r, q)  # a row with Z = 0 always keeps: any valid row here, never used
    y = torch.multinomial(r, 1, generator=generator)[:, 0]
    return torch.where(keep, x, y)


batched_step.batch = 4


def mixed_rows(p, q, generator):
    """WRONG: each row's acceptance test reads the next row's target (an indexing slip in a batch)."""
    rows = torch.arange(p.shape[0])
    x = torch.multinomial(q, 1, generator=generator)[:, 0]
    shifted = p.roll(-1, dims=0)
    keep = _keep(shifted[rows, x], q[rows, x], generator)
    r, z = _residual(p, q)
    y = torch.multinomial(torch.where(z > 0, r, q), 1, generator=generator)[:, 0]
    return torch.where(keep, x, y)


mixed_rows.batch = 4


def floored_step(p, q, generator):
    """WRONG by a hair: vLLM 0.5.4's residual clamp(p - q, min=finfo(float32).tiny) / sum, in float32."""
    p32, q32 = p.float(), q.float()
    r = torch.clamp(p32 - q32, min=TINY)
    r = r / r.sum()
    x = torch.multinomial(q, 1, generator=generator)[0]
    if _keep(p[x], q[x], generator):
        return int(x), None
    return int(torch.multinomial(r, 1, generator=generator)[0]), r


floored_step.residual = lambda p, q: (lambda r: r / r.sum())(torch.clamp(p.float() - q.float(), min=TINY))


def block(target, draft, prefix, k, generator):
    """k drafts, tested left to right; the first rejection ends the block; nothing after a stop token."""
    stop = target.stop
    drafts, context = [], list(prefix)
    for _ in range(k):
        x = int(torch.multinomial(draft(context), 1, generator=generator)[0])
        drafts.append(x)
        context.append(x)
        if x == stop:
            break
    history = list(prefix)
    for x in drafts:
        p, q = target(history), draft(history)
        if not _keep(p[x], q[x], generator):
            r, _ = _residual(p, q)
            return history[len(prefix):] + [int(torch.multinomial(r, 1, generator=generator)[0])]
        history.append(x)
        if x == stop:
            return history[len(prefix):]
    return history[len(prefix):] + [int(torch.multinomial(target(history), 1, generator=generator)[0])]


def generate(target, draft, prefix, max_new, generator, k=3):
    """A whole-generation loop written against causal LMs (`model(ids, past_key_values=...).logits`): it
    runs blocks of k drafts until max_new tokens or EOS; the check cuts its output at L and at EOS."""
    target_lm, draft_lm = causal_lm(target), causal_lm(draft)
    ids = [target_lm.bos, *prefix]
    cache = None
    while len(ids) - 1 - len(prefix) < max_new and (len(ids) == 1 or ids[-1] != target_lm.eos_token_id):
        drafts, q_rows, context = [], [], list(ids)
        for _ in range(k):
            q = draft_lm(torch.tensor([context])).logits[0, -1].softmax(-1)
            x = int(torch.multinomial(q, 1, generator=generator)[0])
            drafts.append(x)
            q_rows.append(q)
            context.append(x)
            if x == draft_lm.eos_token_id:
                break
        new = torch.tensor([ids[-1:] + drafts]) if cache is not None else torch.tensor([ids + drafts])
        out = target_lm(new, past_key_values=cache)
        p_rows = out.logits[0, -len(drafts) - 1:].softmax(-1)
        accepted = 0
        for i, x in enumerate(drafts):
            if not _keep(p_rows[i, x], q_rows[i][x], generator):
                break
            accepted += 1
        ids += drafts[:accepted]
        if accepted < len(drafts):
            r, _ = _residual(p_rows[accepted], q_rows[accepted])
            ids.append(int(torch.multinomial(r, 1, generator=generator)[0]))
        elif drafts[-1] != target_lm.eos_token_id:
            ids.append(int(torch.multinomial(p_rows[-1], 1, generator=generator)[0]))
        cache = None  # rejected drafts are in the cache: recompute from the kept text (simple and right)
    return ids[1 + len(prefix):]


for _sampler in (step, batched_step, mixed_rows, floored_step, block, generate):
    _sampler.tensors = "torch"
    _sampler.backend = f"torch {torch.__version__} cpu"


def batched_block(target, draft, prefixes, k, generator):
    """B rows at once, vLLM-style: drafts [B, k], q [B, k, V], p [B, k + 1, V], one uniform per draft;
    per row the first rejection ends the block and a kept stop token ends the text (no bonus)."""
    batch = len(prefixes)
    contexts = [list(prefix) for prefix in prefixes]
    drafts, q_rows, p_rows = [], [], [target(contexts)]
    for _ in range(k):
        q = draft(contexts)
        x = torch.multinomial(q, 1, generator=generator)[:, 0]
        drafts.append(x)
        q_rows.append(q)
        contexts = [c + [int(t)] for c, t in zip(contexts, x)]
        p_rows.append(target(contexts))  # drafting past a stop token is harmless: those drafts are never tested
    drafts, q_all, p_all = torch.stack(drafts, 1), torch.stack(q_rows, 1), torch.stack(p_rows, 1)
    rows, steps = torch.arange(batch)[:, None], torch.arange(k)[None, :]
    u = torch.rand((batch, k), generator=generator, dtype=p_all.dtype)
    keep = u * q_all[rows, steps, drafts] < p_all[rows, steps, drafts]  # [B, k]
    out = []
    for b in range(batch):
        committed = []
        for i in range(k):
            x = int(drafts[b, i])
            if not keep[b, i]:
                r, _ = _residual(p_all[b, i], q_all[b, i])
                committed.append(int(torch.multinomial(r, 1, generator=generator)[0]))
                break
            committed.append(x)
            if x == target.stop[b]:
                break
        else:
            committed.append(int(torch.multinomial(p_all[b, k], 1, generator=generator)[0]))
        out.append(committed)
    return out


def batched_block_mixed(target, draft, prefixes, k, generator):
    """WRONG: the residual of each row is formed from the next row's target (an indexing slip)."""
    original = target

    def shifted(contexts):
        return original(contexts).roll(-1, dims=0)

    shifted.stop = target.stop
    return batched_block(shifted, draft, prefixes, k, generator)


batched_block.batch = batched_block_mixed.batch = 4
batched_block.tensors = batched_block_mixed.tensors = "torch"
batched_block.backend = batched_block_mixed.backend = f"torch {torch.__version__} cpu"


# --- several candidates: verify(p, q, candidates, generator) ------------------------------------------------


def verify_top_k(p, q, candidates, generator):
    """EAGLE-2/3's rule in torch: each of q's top-k tokens is a one-hot draft, kept with the target left."""
    target = p.clone()
    for i, c in enumerate(candidates.tolist()):
        if torch.rand((), generator=generator, dtype=p.dtype) < target[c]:
            return c, i
        target[c] = 0
        target = target / target.sum()
    return int(torch.multinomial(target, 1, generator=generator)[0]), None


verify_top_k.tensors = "torch"
verify_top_k.rule = "top-k"


def _verify_rows(p, q, candidates, generator, residual_from):
    """SpecInfer's rule on B rows at once; ``residual_from(target)`` is the [B, V] target each row's residual is
    formed from (the row's own: the rule)."""
    rows = torch.arange(p.shape[0])
    target = p.clone()
    token = torch.full((p.shape[0],), -1, dtype=torch.long)
    kept = torch.full((p.shape[0],), -1, dtype=torch.long)
    for i in range(candidates.shape[1]):
        x = candidates[:, i]
        live = kept < 0
        keep = live & _keep(target[rows, x], q[rows, x], generator)
        token = torch.where(keep, x, token)
        kept = torch.where(keep, torch.full_like(kept, i), kept)
        r, z = _residual(residual_from(target), q)
        target = torch.where((live & ~keep)[:, None] & (z > 0), r, target)  # rejected rows: their residual
    y = torch.multinomial(target, 1, generator=generator)[:, 0]
    return torch.where(kept < 0, y, token), kept


def verify_batched(p, q, candidates, generator):
    """B nodes at once (p, q: [B, V]; candidates: [B, K], drawn with replacement): SpecInfer's rule per row,
    returning B tokens and B kept indices (-1: the correction)."""
    return _verify_rows(p, q, candidates, generator, lambda target: target)


verify_batched.tensors = "torch"
verify_batched.rule = "with-replacement"
verify_batched.batch = 4


def verify_batched_mixed(p, q, candidates, generator):
    """WRONG: the residual of row b is formed from row b + 1's target (an indexing slip in a batch)."""
    return _verify_rows(p, q, candidates, generator, lambda target: target.roll(-1, dims=0))


verify_batched_mixed.tensors = "torch"
verify_batched_mixed.rule = "with-replacement"
verify_batched_mixed.batch = 4


def tree(target, draft, prefix, k, generator):
    """A token tree in torch (widths (2, 2), top-k children verified by verify_top_k): target(prefix) and
    draft(prefix) return torch rows, as for block samplers."""
    context, committed = list(prefix), []
    for width in tree.tree:
        p, q = target(context), draft(context)
        children = torch.argsort(-q, stable=True)[:width]
        token, kept = verify_top_k(p, q, children, generator)
        committed.append(token)
        if kept is None or token == target.stop:
            return committed
        context.append(token)
    committed.append(int(torch.multinomial(target(context), 1, generator=generator)[0]))  # the bonus token
    return committed


tree.tensors = "torch"
tree.tree = (2, 2)
tree.rule = "top-k"


def tree_causal_lm(target, draft, prefix, k, generator):
    """The same tree written against causal LMs (lab.check.causal_lm: `model(ids).logits`, -inf where p = 0, a
    start-of-text token at index V): each depth reads the next-token logits of the accepted path."""
    target_lm, draft_lm = causal_lm(target), causal_lm(draft)
    ids, committed = [target_lm.bos, *prefix], []
    for width in tree_causal_lm.tree:
        p = target_lm(torch.tensor([ids])).logits[0, -1].softmax(-1)
        q = draft_lm(torch.tensor([ids])).logits[0, -1].softmax(-1)
        token, kept = verify_top_k(p, q, torch.argsort(-q, stable=True)[:width], generator)
        committed.append(token)
        if kept is None or token == target_lm.eos_token_id:
            return committed
        ids.append(token)
    p = target_lm(torch.tensor([ids])).logits[0, -1].softmax(-1)
    committed.append(int(torch.multinomial(p, 1, generator=generator)[0]))  # the bonus token
    return committed


tree_causal_lm.tensors = "torch"
tree_causal_lm.tree = (2, 2)
tree_causal_lm.rule = "top-k"

# Torch calls cost about a millisecond: the check looks for a bias of TV 0.2 (its default 0.01 takes 400 times the
# draws; --tv overrides this).
for _sampler in (step, batched_step, mixed_rows, floored_step, block, generate, batched_block, batched_block_mixed,
                 verify_top_k, verify_batched, verify_batched_mixed, tree, tree_causal_lm):
    _sampler.tv = 0.2
