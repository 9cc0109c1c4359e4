"""``lab check`` on PyTorch samplers and on Hugging Face transformers' own speculative sampling.

torch and transformers are test-only requirements (requirements-torch.txt, installed by .ci/run): in CI
these tests run; elsewhere they skip when torch is missing. Small settings keep them to a few minutes:
TV 0.1 or 0.2 (1/100 to 1/400 of the default draws) on the cases that tell.
"""

import os

import pytest

if os.environ.get("CI"):
    import torch  # CI installs it: never skip there
else:
    torch = pytest.importorskip("torch")

from lab.check import PowerTarget, check_block, check_step  # noqa: E402
from lab.check.causal_lm import causal_lm  # noqa: E402
from tests.test_check import load_example  # noqa: E402

QUICK = PowerTarget(tv=0.1)
QUICKER = PowerTarget(tv=0.2)
STOPS = ["markov-ab-end-K2-L3", "markov-sentences-end-K2-L3"]


@pytest.fixture(scope="module")
def samplers():
    return load_example("torch_samplers")


def test_a_torch_step_sampler_passes_with_tensors_and_a_seeded_generator(samplers):
    seen = []

    def spy(p, q, generator):
        seen.append((type(p), p.dtype, type(generator)))
        return samplers.step(p, q, generator)

    spy.tensors = "torch"
    report = check_step(spy, cases=["bernoulli-residual", "partial-zeros"], target=QUICK)
    assert report.passed, report.text()
    assert seen[0] == (torch.Tensor, torch.float64, torch.Generator)
    again = check_step(spy, cases=["bernoulli-residual"], target=QUICK)  # the check's seeds are in charge
    assert again.cases[0].data["counts"] == report.cases[0].data["counts"]


def test_logits_are_log_probabilities_with_minus_inf_where_p_is_0():
    seen = []

    def spy(p, q, generator):
        seen.append(p.clone())
        return int(torch.multinomial(p.softmax(-1), 1, generator=generator)[0])

    spy.tensors, spy.inputs = "torch", "logits"
    (case,) = check_step(spy, cases=["partial-zeros"], target=QUICKER).cases
    assert case.passed, case.reasons
    row = seen[0]  # partial-zeros: p = (1/2, 0, 1/4, 1/4)
    assert row[1] == -float("inf") and torch.allclose(row[[0, 2, 3]].exp(), torch.tensor([0.5, 0.25, 0.25],
                                                                                          dtype=row.dtype))


def test_a_batched_sampler_with_b_4_passes_and_one_with_a_row_mixed_up_fails(samplers):
    cases = ["bernoulli-residual", "partial-zeros"]
    good = check_step(samplers.batched_step, cases=cases, target=QUICK)
    assert good.passed and good.environment["batch"] == 4, good.text()
    bad = check_step(samplers.mixed_rows, cases=cases, target=QUICK)
    assert [c.verdict for c in bad.cases] == ["fail", "fail"], bad.text()


def test_a_batched_block_sampler_with_b_4_passes_and_one_with_a_row_mixed_up_fails(samplers):
    cases = ["markov-ab-end-K2-L3", "markov-three-K2-L2"]
    good = check_block(samplers.batched_block, cases=cases, target=QUICKER)
    assert good.passed and good.environment["batch"] == 4, good.text()
    bad = check_block(samplers.batched_block_mixed, cases=cases, target=QUICKER)
    assert [c.verdict for c in bad.cases] == ["fail", "fail"], bad.text()


def test_a_torch_floor_of_float32_tiny_is_named_with_its_size(samplers):
    (case,) = check_step(samplers.floored_step, cases=["bernoulli-residual"], target=QUICKER).cases
    assert case.verdict == "fail" and case.data["residual_matches"] == ["epsilon-floor"]
    assert case.data["epsilon_floor"]["known_as"].startswith("float32's smallest normal number")


def test_torch_verifiers_of_several_candidates_one_node_and_b_4_pass_and_a_mixed_row_fails(samplers):
    """A verifier in torch (tensors, a torch.Generator, candidates as a long tensor), and a batch of 4 nodes (p, q:
    [4, V], candidates [4, K], kept indices -1 for the correction): pass; a row's residual formed from the next
    row's target fails with draws of probability 0."""
    from lab.check.api import check_candidates

    cases = ["bernoulli-residual-K2", "partial-zeros-K3", "zero-in-the-middle-K2"]
    one = check_candidates(samplers.verify_top_k, cases=cases, target=QUICK)
    assert one.passed and one.environment["tensors"] == "torch", one.text()
    assert all(c.data["returns_kept_index"] for c in one.cases)
    batched = check_candidates(samplers.verify_batched, cases=cases, target=QUICK)
    assert batched.passed and batched.environment["batch"] == 4, batched.text()
    mixed = check_candidates(samplers.verify_batched_mixed, cases=["bernoulli-residual-K2"], target=QUICK)
    assert not mixed.passed
    assert "probability 0" in " ".join(mixed.cases[0].reasons)
    for sampler in (samplers.tree, samplers.tree_causal_lm):  # rows, and the causal-LM helper's logits
        tree = check_block(sampler, cases=["markov-three-tree2,2-L2", "markov-ab-end-tree2,2-L3"], target=QUICK)
        assert tree.passed and tree.kind == "tree" and tree.environment["tensors"] == "torch", tree.text()


def test_eagles_own_verifier_passes_and_medusas_typical_acceptance_fails():
    """The shipped functions, imported unchanged (examples/real_multi_draft.py): EAGLE's evaluate_posterior (eagle-llm
    1.2.1) follows the target law with K = 2 and 3 children drawn without replacement, Z = 0 at a middle stage too;
    Medusa's (medusa-llm 0.1) keeps candidates above a threshold and falls back to the argmax: it fails."""
    from lab.check.api import check_candidates

    real = load_example("real_multi_draft")
    cases = ["bernoulli-residual-K2", "bernoulli-residual-K3", "partial-zeros-K3", "zero-in-the-middle-K3"]
    eagle = check_candidates(real.eagle, cases=cases, target=QUICK)
    assert eagle.passed, eagle.text()
    assert real.EXPECTED_VERDICTS["eagle"]["exit"] == eagle.exit_status == 0
    medusa = check_candidates(real.medusa, cases=["eight-words-K2"], target=QUICK)
    assert medusa.exit_status == real.EXPECTED_VERDICTS["medusa"]["exit"] == 1
    assert medusa.cases[0].data["best_variant"]["variant"] == "typical-acceptance"


def test_a_torch_block_sampler_and_a_whole_generation_loop_pass(samplers):
    block = check_block(samplers.block, cases=STOPS[:1] + ["markov-three-K2-L2"], target=QUICK)
    assert block.passed, block.text()
    loop = check_block(samplers.generate, interface="generate", cases=STOPS[:1], target=QUICKER)
    assert loop.passed and loop.kind == "generate", loop.text()


def test_the_causal_lm_helper_serves_the_models_rows_as_logits_with_a_cache():
    from lab.check.block import serve
    from lab.check.cases import block_cases

    case = next(c for c in block_cases() if c.name.startswith("markov-ab-end"))
    target, _ = serve(case, "float64")
    model = causal_lm(target)
    assert model.vocab_size == 3 and model.bos == 3 and model.eos_token_id == 2
    out = model(torch.tensor([[model.bos, 0, 1]]))
    assert out.logits.shape == (1, 3, 4)
    for t, prefix in enumerate([(), (0,), (0, 1)]):  # position t predicts the token after ids[:t + 1]
        expected = torch.tensor(target(prefix), dtype=torch.float64)
        assert torch.allclose(out.logits[0, t, :3].exp(), expected) and out.logits[0, t, 3] == -float("inf")
    step = model(torch.tensor([[0]]), past_key_values=out.past_key_values)  # only the new token
    assert torch.allclose(step.logits[0, 0, :3].exp(), torch.tensor(target((0, 1, 0)), dtype=torch.float64))


# --- transformers' own function -------------------------------------------------------------------


@pytest.fixture(scope="module")
def hf():
    if not os.environ.get("CI"):
        pytest.importorskip("transformers")
    return load_example("transformers_speculative")


def test_transformers_one_step_follows_the_law_but_keeps_a_draft_of_probability_0_when_rand_gives_0(hf):
    """`_speculative_sampling` keeps on `r_i <= probability_ratio`: with torch.rand_like scripted to 0, a draft
    with p = 0 (ratio 0) is kept. The counts cannot show it (float32 torch.rand gives 0 about once in 3*10^7)."""
    report = check_step(hf.step, cases=["bernoulli-residual", "disjoint-support"], target=QUICKER)
    plain, disjoint = report.cases
    assert plain.passed, plain.reasons
    assert disjoint.verdict == "fail" and disjoint.data["test"]["p_value"] > 1e-6  # the counts pass
    (reason,) = [r for r in disjoint.reasons if r.startswith("boundary uniforms")]
    assert "kept a draft with p = 0" in reason and "u <= p/q" in reason and "torch.rand" in reason
    assert disjoint.data["boundary_uniforms"]["mode"] == "torch"
    # it says whether it kept its draft (transformers' n_matches): bernoulli-residual keeps 3/5 at most
    assert plain.data["acceptance"]["optimum"] == "3/5" and not plain.data["acceptance"]["wasteful"]


def test_transformers_blocks_cut_at_eos_as_its_caller_does_pass(hf):
    report = check_block(hf.block, cases=STOPS, target=QUICKER)
    assert report.passed, report.text()


def test_transformers_bare_function_fails_the_stop_models_naming_the_bonus_after_stop(hf):
    report = check_block(hf.bare_block, cases=[*STOPS, "markov-three-K2-L2"], target=QUICKER)
    stop_a, stop_b, plain = report.cases
    assert plain.passed, plain.reasons
    for case in (stop_a, stop_b):
        assert case.verdict == "fail" and case.data["certain"], case.name
        fit = case.data["best_variant"]
        assert "bonus-after-stop" in [fit["variant"], *fit["same_law_on_this_case"]], fit


def test_temperature_top_k_and_top_p_through_transformers_warpers_follow_the_exact_processed_law(hf):
    # raw p = (8, 5, 3, 2, 1, 1)/20; temperature 1/2 squares it: (64, 25, 9, 4, 1, 1)/104; top-3 keeps
    # (64, 25, 9)/98; top-p 0.75 drops the tokens whose ascending cumulative mass is <= 1/4: 9/98. So
    # (64/89, 25/89, 0, 0, 0, 0).
    name = "processed-temperature-top-k-top-p"
    (case,) = check_step(hf.processed_step, cases=[name], target=QUICKER).cases
    assert case.passed, case.reasons
    assert case.data["target_law"] == {"w0": "64/89", "w1": "25/89", "w2": "0", "w3": "0", "w4": "0", "w5": "0"}

    def unprocessed(p_logits, q_logits, generator, processing):  # ignores the processing: the raw law
        return hf.step(p_logits, q_logits, generator)

    unprocessed.tensors, unprocessed.inputs, unprocessed.processing = "torch", "logits", True
    (wrong,) = check_step(unprocessed, cases=[name], target=QUICKER).cases
    assert wrong.verdict == "fail" and wrong.data["certain"]  # raw p puts mass on w2..w5


def test_the_command_line_takes_torch_batches_and_a_whole_generation_loop(capsys):
    from lab.cli import main

    code = main(["check", "examples/torch_samplers.py:batched_step", "--batch", "2", "--cases", "bernoulli-residual",
                 "--tv", "0.2", "--jobs", "1", "--json"])
    out, _ = capsys.readouterr()
    import json

    report = json.loads(out)  # --batch overrides the sampler's own batch = 4
    assert code == 0 and report["environment"]["batch"] == 2 and report["environment"]["tensors"] == "torch"
    # an unbatched step handed [4, V] rows raises: the message and the sampler's own line are shown
    code = main(["check", "examples/torch_samplers.py:step", "--batch", "4", "--cases", "bernoulli-residual",
                 "--tv", "0.2", "--jobs", "1"])
    out, _ = capsys.readouterr()
    assert code == 1 and "the sampler raised RuntimeError: " in out
    assert "at examples/torch_samplers.py:" in out and " in step: " in out
    code = main(["check", "examples/torch_samplers.py:generate", "--cases", "markov-three-K2-L2", "--tv", "0.2",
                 "--jobs", "1"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("generate sampler examples/torch_samplers.py:generate")


def test_a_processing_sampler_is_a_step_sampler_and_runs_every_case(hf):
    """examples/transformers_speculative.py:processed_step takes (p, q, generator, processing): the command line
    called it a four-argument verifier (exit 2), and every unprocessed case failed with a TypeError. Its kind is
    step, and a case with nothing to process hands it the identity processing (temperature 1, top-k = every token,
    top-p 1), under which transformers' warpers change nothing."""
    from lab.check import sampler_kind

    assert sampler_kind(hf.processed_step) == "step"
    report = check_step(hf.processed_step, cases=["bernoulli-residual", "eight-words"], target=QUICKER)
    assert report.passed, report.text()


# --- boundary uniforms through torch ------------------------------------------------------------------


def _le_step(p, q, generator):
    """u <= p/q on torch.rand: right for every u > 0."""
    x = int(torch.multinomial(q, 1, generator=generator)[0])
    if torch.rand((), generator=generator, dtype=p.dtype) <= p[x] / q[x]:
        return x, None
    excess = torch.clamp(p - q, min=0)
    return int(torch.multinomial(excess / excess.sum(), 1, generator=generator)[0]), excess / excess.sum()


def test_torch_samplers_get_the_boundary_uniforms_through_torch_rand(samplers):
    _le_step.tensors = "torch"
    (wrong,) = check_step(_le_step, cases=["disjoint-support"], target=QUICKER).cases
    (reason,) = [r for r in wrong.reasons if r.startswith("boundary uniforms")]
    assert wrong.verdict == "fail" and "kept a draft with p = 0" in reason
    (right,) = check_step(samplers.step, cases=["disjoint-support"], target=QUICKER).cases  # u * q < p
    assert right.passed and right.data["boundary_uniforms"]["applied"], right.reasons
    assert right.data["boundary_uniforms"]["mode"] == "torch"


def test_a_torch_sampler_drawing_no_scripted_uniform_is_told_so_in_one_line():
    def bernoulli_keep(p, q, generator):
        x = int(torch.multinomial(q, 1, generator=generator)[0])
        if torch.bernoulli(torch.clamp(p[x] / q[x], max=1), generator=generator):
            return x
        excess = torch.clamp(p - q, min=0)
        return int(torch.multinomial(excess / excess.sum(), 1, generator=generator)[0])

    bernoulli_keep.tensors = "torch"
    (case,) = check_step(bernoulli_keep, cases=["disjoint-support"], target=QUICKER).cases
    assert case.passed and not case.data["boundary_uniforms"]["applied"]
    (note,) = [n for n in case.notes if n.startswith("boundary uniforms not applied")]
    assert "torch.rand" in note


def test_logits_samplers_on_numpy_get_the_boundary_uniforms_too():
    import numpy as np

    def le_logits(p_logits, q_logits, rng):
        p, q = np.exp(p_logits), np.exp(q_logits)
        x = int(np.searchsorted(np.cumsum(q), rng.random() * q.sum(), side="right"))
        if rng.random() <= p[x] / q[x]:
            return x, None
        excess = np.maximum(p - q, 0)
        return int(np.searchsorted(np.cumsum(excess), rng.random() * excess.sum(), side="right")), excess

    le_logits.inputs = "logits"
    (case,) = check_step(le_logits, cases=["disjoint-support"], target=QUICKER).cases
    assert case.verdict == "fail" and any("kept a draft with p = 0" in r for r in case.reasons), case.reasons


def test_a_batched_sampler_is_told_the_boundary_uniforms_were_not_run(samplers):
    (case,) = check_step(samplers.batched_step, cases=["disjoint-support"], target=QUICKER).cases
    assert case.passed and any(n.startswith("boundary uniforms not run") for n in case.notes)


# --- model.generate(assistant_model=...) on real transformers models -----------------------------------


def test_the_llama_helper_is_a_real_transformers_model_with_the_rows_of_the_check_model(hf):
    """lab.check.causal_lm.llama: a LlamaForCausalLM whose next-token law after any text is the served row of its
    last token (checked against the model file's rows read apart from the helper), through its KV cache too."""
    from transformers import LlamaForCausalLM

    from lab.check.block import serve
    from lab.check.cases import block_cases
    from lab.check.causal_lm import llama

    case = next(c for c in block_cases() if c.name.startswith("markov-ab-end"))
    model_rows = case.model.target  # exact Fractions: row 0 the start, row t + 1 after token t
    target, _ = serve(case, "float64")
    model = llama(target)
    assert isinstance(model, LlamaForCausalLM) and llama(target) is model  # built once per model function
    assert model.config.bos_token_id == 3 and model.config.eos_token_id == 2 == case.stop
    ids = torch.tensor([[3, 0, 1, 2, 1]])
    with torch.no_grad():
        out = model(ids, use_cache=True)
    probs = out.logits[0].double().softmax(-1)
    for position, token in enumerate(ids[0].tolist()):
        expected = [float(v) for v in model_rows[0 if token == 3 else token + 1]] + [0.0]
        assert torch.allclose(probs[position], torch.tensor(expected, dtype=torch.float64), atol=1e-6), position
        assert probs[position, 3] == 0.0  # the start of the text is never produced
    with torch.no_grad():  # one more token through the cache: the row of that token
        step = model(torch.tensor([[0]]), cache=out.cache, use_cache=True)
    expected = [float(v) for v in model_rows[1]] + [0.0]
    assert torch.allclose(step.logits[0, -1].double().softmax(-1), torch.tensor(expected, dtype=torch.float64),
                          atol=1e-6)


def test_model_generate_with_an_assistant_passes_with_and_without_the_processing(hf):
    """transformers' assisted decoding itself (examples/transformers_speculative.py:generate, ten lines on the
    helper), on a model that stops, one that does not, and the processed case (temperature, top-k, top-p)."""
    cases = ["markov-ab-end-K2-L3", "markov-three-K2-L2", "processed-markov-K2-L2"]
    report = check_block(hf.generate, interface="generate", cases=cases, target=QUICKER)
    assert report.passed, report.text()
    assert report.cases[2].data["target_law"] == {"w0 w1": "4096/7921", "w0 w2": "1600/7921", "w1 w2": "1600/7921",
                                                  "w1 w3": "625/7921"}  # (64/89)^2, 64·25/89^2 twice, (25/89)^2


def test_model_generate_with_the_models_swapped_fails(hf):
    """The same ten lines with the draft's model as the target: the check sees generate follow the wrong law."""
    from lab.check.causal_lm import llama

    def swapped(target, draft, prefix, max_new, generator, processing):
        model, assistant = llama(draft), llama(target)
        ids = torch.tensor([[model.config.bos_token_id, *prefix]])
        out = model.generate(ids, assistant_model=assistant, do_sample=True, max_new_tokens=max_new, **processing)
        return out[0, ids.shape[1]:].tolist()

    swapped.tensors, swapped.inputs, swapped.processing = "torch", "logits", True
    (case,) = check_block(swapped, interface="generate", cases=["markov-three-K2-L2"], target=QUICKER).cases
    assert case.verdict == "fail", case.reasons
