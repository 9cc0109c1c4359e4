"""Samplers that take torch tensors, logits or batches: converted at the boundary, the check's seeds in charge.

A sampler states what it takes with attributes (or the command line's ``--torch``, ``--logits``,
``--batch``):

- ``sampler.tensors = "torch"``: p and q (or the rows ``target(prefix)`` / ``draft(prefix)`` return) are
  torch tensors on the CPU, copied once per case (``torch.tensor``, so the check's read-only arrays raise
  no warning), and ``rng`` is a ``torch.Generator``. Before every call the check seeds that generator and
  torch's global one (``torch.default_generator``, which code such as transformers draws from) from the
  case's numpy generator (``Generator.manual_seed`` of each, not ``torch.manual_seed``, which seeds every
  backend and costs far more). Returned tokens and residuals may be tensors; they come back as ints and numpy arrays.
- ``sampler.inputs = "logits"``: log-probabilities instead (``-inf`` where p = 0): softmax gives p back.
  The sampler's own softmax rounds p and q, so a residual it returns is not compared with the exact
  residual (it is left out); the law is tested as always.
- ``sampler.batch = B`` (one-step samplers): called with p and q of shape [B, V], returns B tokens. Row
  b holds the case's p and q with the vocabulary rotated by b places, so the rows differ; each row's
  token is rotated back and counted against the case's exact law, B draws a call. Rows that are not
  independent, or one row computed with another's p or q, change that law.

Nothing here imports torch until a sampler asks for it: torch is not a dependency of the lab.
"""

from __future__ import annotations

import numpy as np

from lab.check.boundary import kept_flag

TENSORS = ("numpy", "torch")
INPUTS = ("probs", "logits")


def wants(sampler, name: str, default):
    return getattr(sampler, name, None) or default


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise ImportError(f"the sampler asks for torch tensors, but torch cannot be imported ({exc})") from None
    return torch


def as_logits(p: np.ndarray) -> np.ndarray:
    """log p with -inf where p = 0, computed without numpy's divide-by-zero event (the check's own
    arithmetic must not count as the sampler's)."""
    with np.errstate(divide="ignore"):
        out = np.log(p)
    out.flags.writeable = False
    return out


class Boundary:
    """Converts the check's read-only numpy rows for a sampler, once per row, and seeds its generators."""

    def __init__(self, tensors: str, inputs: str):
        self.tensors, self.inputs = tensors, inputs
        self._rows: dict[int, tuple[np.ndarray, object]] = {}
        self._generators: dict[int, object] = {}
        if tensors == "torch":
            self.torch = _torch()

    def row(self, values: np.ndarray):
        key = id(values)
        hit = self._rows.get(key)
        if hit is not None and hit[0] is values:
            return hit[1]
        out = as_logits(values) if self.inputs == "logits" else values
        if self.tensors == "torch":
            out = self.torch.tensor(out)  # a copy: no warning about read-only memory
        self._rows[key] = (values, out)  # the numpy row is kept alive, so its id stays its own
        return out

    def rows(self, values: np.ndarray):
        """A [B, V] stack (already built by the check) converted as one tensor."""
        out = as_logits(values) if self.inputs == "logits" else values
        return self.torch.tensor(out) if self.tensors == "torch" else out

    def generator(self, rng: np.random.Generator):
        """The generator the sampler gets: the check's numpy one, or a torch.Generator seeded from it
        before each call (torch's global generator too, from an independent seed)."""
        if self.tensors != "torch":
            return rng
        gen = self._generators.get(id(rng))
        if gen is None:
            gen = self._generators[id(rng)] = self.torch.Generator()
        own, shared = rng.integers(2**63, size=2).tolist()
        gen.manual_seed(own)
        self.torch.default_generator.manual_seed(shared)
        return gen


def to_numpy(value):
    """A tensor (or anything array-like) as numpy; ints stay ints."""
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if value.ndim == 0:
            return value.item()
        return value.numpy()
    return value


def token_out(out):
    """(token, residual) or token, with tensors turned into an int and a numpy array."""
    if type(out) is tuple and len(out) == 2:
        token, r = out
        return to_numpy(token), (None if r is None else np.asarray(to_numpy(r)))
    return to_numpy(out)


def described(wrapped, sampler):
    """The wrapper keeps the sampler's name and what it states about itself (backend, dtype)."""
    for name in ("backend", "dtype", "__name__", "__qualname__", "__module__"):
        if hasattr(sampler, name):
            setattr(wrapped, name, getattr(sampler, name))
    return wrapped


def wrap_step(step, tensors: str, inputs: str, batch: int | None):
    """The step sampler as the check calls it: step(p, q, rng) on numpy, one token a call."""
    if tensors == "numpy" and inputs == "probs" and not batch:
        return step
    boundary = Boundary(tensors, inputs)

    if not batch:
        def wrapped(p, q, rng, **processing):
            out = token_out(step(boundary.row(p), boundary.row(q), boundary.generator(rng), **processing))
            if inputs == "logits" and type(out) is tuple:
                # its softmax rounded p and q: a residual cannot be compared exactly, but it says the draft
                # was not kept (False), as None says it was
                token, r = out
                return token, (None if r is None else r if kept_flag(r) is not None else False)
            return out

    else:
        buffer: list = []
        held = [None, None]  # the inputs the buffered tokens were drawn for: a new case starts afresh

        def wrapped(p, q, rng, **processing):
            if held[0] is not p or held[-1] is not q:
                buffer.clear()
                held[:] = [p, q]
            if not buffer:
                size = len(p)
                order = [np.roll(np.arange(size), -b) for b in range(batch)]  # row b: token (t + b) mod V
                p_rows = np.stack([p[o] for o in order])
                q_rows = np.stack([q[o] for o in order])
                out = step(boundary.rows(p_rows), boundary.rows(q_rows), boundary.generator(rng), **processing)
                if type(out) is tuple and len(out) == 2:
                    out = out[0]  # batched residuals are not checked
                tokens = np.asarray(to_numpy(out)).reshape(-1)
                if tokens.shape != (batch,):
                    raise ValueError(f"a batched sampler returned {tokens.shape[0]} tokens for a batch of {batch}")
                for b, t in enumerate(tokens.tolist()):
                    index = int(t)
                    buffer.append((index + b) % size if 0 <= index < size else index)
                buffer.reverse()
            return buffer.pop()

    # how the boundary uniforms reach it (lab.check.boundary): its numpy generator's random(), or torch's uniforms
    wrapped.boundary = None if batch else tensors
    if batch:
        wrapped.boundary_skipped = (
            "boundary uniforms not run: the sampler takes batches, whose rows would share the scripted uniforms "
            "(run it with --batch 1 to have u = 0 tried)"
        )
    wrapped.processing = getattr(step, "processing", None)
    described(wrapped, step)
    residual = getattr(step, "residual", None)
    if callable(residual) and inputs == "probs":
        wrapped.residual = lambda p, q: (lambda r: None if r is None else np.asarray(to_numpy(r)))(
            residual(boundary.row(p), boundary.row(q))
        )
    return wrapped


def wrap_block(block, tensors: str, inputs: str, batch: int | None = None):
    """The block sampler (or whole-generation loop) as the check calls it, on numpy rows."""
    if batch:
        return wrap_batched_block(block, Boundary(tensors, inputs), batch)
    if tensors == "numpy" and inputs == "probs":
        return block
    boundary = Boundary(tensors, inputs)
    served: dict = {}

    def serving(fn):
        key = id(fn)
        hit = served.get(key)
        if hit is None or hit[0] is not fn:
            def rows(prefix):
                if hasattr(prefix, "tolist"):
                    prefix = prefix.tolist()
                return boundary.row(fn(tuple(int(t) for t in prefix)))

            rows.stop = getattr(fn, "stop", None)
            rows.vocab_size = getattr(fn, "vocab_size", None)
            hit = served[key] = (fn, rows)
        return hit[1]

    def wrapped(target, draft, prefix, k, rng, **processing):
        out = block(serving(target), serving(draft), tuple(prefix), k, boundary.generator(rng), **processing)
        out = to_numpy(out)
        return np.asarray(out).reshape(-1).tolist() if isinstance(out, np.ndarray) else out

    wrapped.processing = getattr(block, "processing", None)
    return described(wrapped, block)


def wrap_batched_block(block, boundary: Boundary, batch: int):
    """A batched block sampler ``block(target, draft, prefixes, k, rng)`` as the check calls it.

    ``target(prefixes)`` / ``draft(prefixes)`` take B prefixes and return [B, V] rows; the sampler returns B
    committed lists. Row b serves the case's model with its vocabulary rotated by b (token t is t + b mod V,
    its stop token too: ``target.stop`` is the list of the B rows' stop tokens), so the rows differ. The
    check asks for one prefix at a time: the B rows all continue that prefix (rotated), row 0's block is
    used now and the others, rotated back, are kept for the next time the same prefix comes (each is an
    independent draw of the same conditional law when the rows are independent)."""
    kept: dict = {}

    def rows_of(fn, size):
        def rows(prefixes):
            out = []
            for b, prefix in enumerate(prefixes):
                prefix = prefix.tolist() if hasattr(prefix, "tolist") else prefix
                original = tuple((int(t) - b) % size for t in prefix)
                out.append(np.roll(fn(original), b))
            return boundary.rows(np.stack(out))

        stop = getattr(fn, "stop", None)
        rows.stop = [None if stop is None else (stop + b) % size for b in range(batch)]
        rows.vocab_size = size
        return rows

    def wrapped(target, draft, prefix, k, rng):
        key = (id(target), tuple(prefix))
        entry = kept.get(key)
        if entry is not None and entry[0] is target and entry[1]:
            return entry[1].pop()
        size = len(target(()))
        prefixes = [[(t + b) % size for t in prefix] for b in range(batch)]
        out = block(rows_of(target, size), rows_of(draft, size), prefixes, k, boundary.generator(rng))
        out = [np.asarray(to_numpy(row)).reshape(-1).tolist() for row in out]
        if len(out) != batch:
            raise ValueError(f"a batched block sampler returned {len(out)} rows for a batch of {batch}")
        back = [[(int(t) - b) % size if 0 <= int(t) < size else int(t) for t in row] for b, row in enumerate(out)]
        kept[key] = (target, back[1:][::-1])
        return back[0]

    return described(wrapped, block)


def _kept_out(value):
    """A kept index from a sampler: None (or -1, a tensor's way of saying it) for the correction."""
    value = to_numpy(value)
    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    return None if isinstance(value, (int, np.integer)) and value == -1 else value


def verify_out(out):
    """token or (token, kept_index), tensors turned into ints (kept_index None or -1: the correction)."""
    if type(out) is tuple and len(out) == 2:
        return to_numpy(out[0]), _kept_out(out[1])
    return to_numpy(out)


def wrap_verify(verify, tensors: str, inputs: str, batch: int | None):
    """A multi-candidate verifier as the check calls it: ``call(p, q, candidate_sets, rng)`` -> one output per
    set (token, or (token, kept_index)), on numpy. ``batch`` B: B sets a call, as [B, V] rows of p and q and
    [B, K] candidates, row b with the vocabulary rotated by b (as for batched step samplers); the sampler returns
    B tokens, or (B tokens, B kept indices, -1 for the correction)."""
    boundary = Boundary(tensors, inputs)
    plain = tensors == "numpy" and inputs == "probs"

    def candidates_in(values: np.ndarray):
        return boundary.torch.tensor(values, dtype=boundary.torch.long) if tensors == "torch" else values

    if not batch:
        def call(p, q, sets, rng):
            if plain:
                return [verify(p, q, sets[0], rng)]
            return [verify_out(verify(boundary.row(p), boundary.row(q), candidates_in(sets[0]),
                                      boundary.generator(rng)))]

        return call

    def call(p, q, sets, rng):
        size = len(p)
        order = [np.roll(np.arange(size), -b) for b in range(batch)]  # row b: token (t + b) mod V
        p_rows = np.stack([p[o] for o in order])
        q_rows = np.stack([q[o] for o in order])
        c_rows = np.stack([(np.asarray(s) - b) % size for b, s in enumerate(sets)])
        out = verify(boundary.rows(p_rows), boundary.rows(q_rows), candidates_in(c_rows), boundary.generator(rng))
        joint = type(out) is tuple and len(out) == 2
        tokens = np.asarray(to_numpy(out[0] if joint else out)).reshape(-1)
        if tokens.shape != (batch,):
            raise ValueError(f"a batched verifier returned {tokens.shape[0]} tokens for a batch of {batch}")
        kept = [None] * batch
        if joint:
            raw = out[1]
            raw = list(raw) if isinstance(raw, (list, tuple)) else np.asarray(to_numpy(raw)).reshape(-1).tolist()
            if len(raw) != batch:
                raise ValueError(f"a batched verifier returned {len(raw)} kept indices for a batch of {batch}")
            kept = [_kept_out(v) for v in raw]
        back = []
        for b, t in enumerate(tokens.tolist()):
            token = (int(t) + b) % size if 0 <= int(t) < size else int(t)
            back.append((token, kept[b]) if joint else token)
        return back

    return call
