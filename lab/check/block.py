"""Checking a block sampler ``block(target, draft, prefix, k, rng) -> committed token indices``.

The check serves a model through two functions of the committed prefix (a sequence of token indices):
``target(prefix)`` and ``draft(prefix)`` return the next-token probabilities as read-only numpy arrays
over the whole vocabulary; ``target.stop`` (and ``draft.stop``) is the stop token's index, or None for a
model that never stops. It calls ``block`` from the empty prefix, appends what each call commits, and
calls again until the output is complete - L tokens, or a block that committed the stop token - then
counts each output (cut to L tokens) against the exact law of the target's complete outputs, and of
every named mistake when it is off.
"""

from __future__ import annotations

import operator

from lab.check.acceptance import block_acceptance, first_block_law
from lab.check.cases import BlockCase, TreeCase
from lab.check.power import PowerTarget, required_draws
from lab.check.processing import no_processing
from lab.check.report import CaseResult
from lab.check.step import Tally, case_rng, conclude
from lab.check.watch import Clock, Findings, StopDrawing, run_draws
from lab.core.formatting import fraction_text

MAX_BLOCKS_PER_SEQUENCE = 1_000  # a sampler that commits nothing would loop forever


def serve(case: BlockCase, dtype: str):
    """``target(prefix)`` and ``draft(prefix)`` for a first-order model: the row of the last token."""
    target_rows, draft_rows = case.rows(dtype)
    size = len(case.vocab)

    def row_of(rows, prefix):
        if len(prefix) == 0:
            return rows[0]
        last = operator.index(prefix[-1])
        if not 0 <= last < size:
            raise IndexError(f"the prefix ends in token index {last}, outside 0..{size - 1}")
        return rows[last + 1]

    def target(prefix):
        return row_of(target_rows, prefix)

    def draft(prefix):
        return row_of(draft_rows, prefix)

    # the stop token's index, for the sampler to read (None: the model never stops); the vocabulary's size
    target.stop = draft.stop = case.stop
    target.vocab_size = draft.vocab_size = size
    return target, draft


def committed_tokens(out, k: int, size: int) -> tuple[tuple[int, ...] | None, str | None]:
    """The tokens one call committed, or (None, what is wrong with its return value)."""
    try:
        tokens = tuple(operator.index(t) for t in out)
    except TypeError:
        return None, f"returned {out!r:.60}, not a sequence of token indices"
    if not tokens:
        return None, "committed no token (a block commits at least one)"
    if len(tokens) > k + 1:
        return None, f"committed {len(tokens)} tokens from a block of k = {k} drafts (at most k + 1)"
    bad = [t for t in tokens if not 0 <= t < size]
    if bad:
        return None, f"returned token index {bad[0]}, outside 0..{size - 1}"
    return tokens, None


def generated_tokens(out, case: BlockCase) -> tuple[tuple[int, ...] | None, str | None]:
    """A whole generation cut as its caller would: after the first stop token, and at L tokens."""
    size = len(case.vocab)
    try:
        tokens = tuple(operator.index(t) for t in out)
    except TypeError:
        return None, f"returned {out!r:.60}, not a sequence of token indices"
    bad = [t for t in tokens if not 0 <= t < size]
    if bad:
        return None, f"returned token index {bad[0]}, outside 0..{size - 1}"
    if case.stop is not None and case.stop in tokens:
        tokens = tokens[: tokens.index(case.stop) + 1]
    if len(tokens) < case.length and not (tokens and tokens[-1] == case.stop):
        return None, f"generated {len(tokens)} tokens without the stop token (max_new = {case.length})"
    return tokens[: case.length], None


def with_processing(block, case: BlockCase, size: int):
    """A sampler that takes the processing (``block.processing = True``) gets it as ``processing=``: the case's
    (its rows are raw), or on an ordinary case the processing that changes nothing."""
    processing = getattr(case, "processing", None)
    if not processing and not getattr(block, "processing", None):
        return block
    given = dict(processing) if processing else no_processing(size)

    def processed(target, draft, prefix, k, rng):
        return block(target, draft, prefix, k, rng, processing=dict(given))

    return processed


def run_generate_case(generate, case: BlockCase, *args, progress) -> CaseResult:
    """A whole-generation loop ``generate(target, draft, prefix, max_new, rng)``: called once per output
    from the empty prefix with max_new = L; the check cuts what it returns after the first stop token and
    at L tokens, and counts that."""
    return run_block_case(generate, case, *args, progress=progress, whole=True)


def run_block_case(block, case: BlockCase, target: PowerTarget, seed: int, dtype: str, max_draws: int | None,
                   time_limit: float | None, budget: str | None = None, *, progress, whole: bool = False) -> CaseResult:
    law = case.law()
    needed, df = required_draws(law, target)
    draws = needed if max_draws is None else min(needed, max_draws)
    target_fn, draft_fn = serve(case, dtype)
    size = len(case.vocab)
    k = case.block
    block = with_processing(block, case, size)
    rng = case_rng(seed, case.name)
    counts: dict[tuple[int, ...], int] = {}
    findings = Findings()
    blocks = tokens_committed = 0
    first_blocks: dict[int, int] = {}  # tokens the first block of an output committed -> outputs

    def draw(i: int) -> None:
        nonlocal blocks, tokens_committed
        sequence: tuple[int, ...] = ()
        calls = 0
        committed: tuple[int, ...] = ()
        while not case.finished(sequence, committed):
            invalid = findings.invalid
            try:
                out = block(target_fn, draft_fn, sequence, case.length if whole else k, rng)
            except Exception as exc:  # the user's code: named, never a traceback
                findings.record_exception(exc, i)
                raise StopDrawing from None
            if findings.invalid != invalid and findings.invalid_at is None:
                findings.invalid_at = i
            committed, problem = generated_tokens(out, case) if whole else committed_tokens(out, k, size)
            if problem:
                findings.bad_output = f"{problem} (sequence {i}, prefix {list(sequence)})"
                raise StopDrawing
            sequence += committed
            if not calls:
                first_blocks[len(committed)] = first_blocks.get(len(committed), 0) + 1
            blocks += 1
            tokens_committed += len(committed)
            calls += 1
            if calls > MAX_BLOCKS_PER_SEQUENCE:
                findings.bad_output = f"needed more than {MAX_BLOCKS_PER_SEQUENCE} blocks for one sequence"
                raise StopDrawing
        outcome = case.outcome(sequence)
        counts[outcome] = counts.get(outcome, 0) + 1

    done, cut, hung, seconds = run_draws(draws, case.name, Clock(time_limit), progress, findings, draw)
    tally = Tally(needed, draws, df, done, cut, hung, unit="sequences", seconds=seconds, budget=budget)
    data: dict = {
        "model": case.model.name,
        "block": None if whole else k,
        "interface": "generate" if whole else "block",
        "length": case.length,
        "stop_token": None if case.stop is None else case.vocab[case.stop],
        "vocab": list(case.vocab),
        "target_law": {case.outcome_text(o): fraction_text(v) for o, v in sorted(law.items())},
        "input_dtype": dtype,
        "blocks": blocks,
        "mean_tokens_per_block": tokens_committed / blocks if blocks else None,
        "counts": {case.outcome_text(o): c for o, c in sorted(counts.items())},
    }
    result = conclude(case, "block", tally, counts, law, case.outcome_text, case.variant_laws, findings, target,
                      data, [], [])
    if not whole and not isinstance(case, TreeCase) and first_blocks:  # what its blocks commit, beside the rule's
        data["block_acceptance"], notes = block_acceptance(first_blocks, first_block_law(case.model, k),
                                                           target.false_alarm)
        if result.passed:  # "correct but wasteful" only of a sampler the law test passed
            result.notes.extend(notes)
    return result
