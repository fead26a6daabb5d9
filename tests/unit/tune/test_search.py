"""The search over a synthetic throughput model: OOM and bisection, tolerance, budget, advice."""

from __future__ import annotations

from dataclasses import replace

from tfgpu.model.tune import Trial, TrialConfig, TrialOutcome, TuneResult
from tfgpu.report.tune import winner_line
from tfgpu.tuning.advice import batch_caveat, batchnorm_note, code_change
from tfgpu.tuning.search import search


def fake_measure(
    oom_above: int = 1024,
    mixed_loss_shift: float = 0.0,
    calls: list | None = None,
    precision_gain: dict | None = None,
    xla_gain: float = 0.5,
    data: str = "dataset",
):
    """Throughput grows with batch (saturating), tf.data helps, mixed helps, XLA hurts."""

    def measure(step: str, config: TrialConfig, timeout: float) -> Trial:
        if calls is not None:
            calls.append((step, config, timeout))
        if config.batch_size > oom_above:
            return Trial(step, config, TrialOutcome.OOM, reason="OOM when allocating tensor")
        rate = 1000.0 * min(config.batch_size, 512) ** 0.8
        rate *= {"numpy": 0.2, "tf.data": 1.0, "tf.data+cache": 1.1, "tf.data+device": 1.05}[config.input]
        rate *= (precision_gain or {}).get(config.precision, 1.6 if config.precision != "float32" else 1.0)
        rate *= xla_gain if config.jit_compile is True else 1.0
        rate *= xla_gain if config.jit_compile == "auto" and xla_gain > 1 else 1.0  # "auto" is XLA on a GPU
        loss = 0.5 + (mixed_loss_shift if config.precision != "float32" else 0.0)
        return Trial(step, config, TrialOutcome.OK, rate, loss, 40.0, data=data)

    return measure


def test_search_finds_the_largest_useful_batch_the_pipeline_and_precision():
    result = search(
        TrialConfig(batch_size=64), fake_measure(oom_above=1024), budget_seconds=1e9, mixed_policies=("mixed_bfloat16",)
    )
    best = result.best.config
    assert best.input == "tf.data+cache" and best.batch_size == 512 and best.precision == "mixed_bfloat16"
    # the start is measured without XLA; XLA must earn its compile time on the winner, last
    assert result.trials[0].step == "start, XLA off (tried last)" and result.trials[0].config.jit_compile is False
    assert best.jit_compile is False and result.speedup > 10 and result.start_config == TrialConfig(batch_size=64)
    assert [t.outcome for t in result.trials if t.step == "XLA"] == ["slower"]
    assert any(t.outcome == "slower" for t in result.trials)


def test_oom_is_bisected_to_the_largest_batch_that_fits():
    result = search(TrialConfig(batch_size=64), fake_measure(oom_above=300), budget_seconds=1e9, mixed_policies=())
    bisected = [t.config.batch_size for t in result.trials if t.step == "batch size (bisect)"]
    assert [t.outcome for t in result.trials if t.config.batch_size == 512] == ["oom"]
    assert bisected == [384, 320]  # halving the gap down to a quarter of the size that fits
    assert result.best.config.batch_size == 256


def test_a_batch_without_memory_headroom_counts_as_not_fitting():
    def measure(step, config, timeout):
        batch = config.batch_size
        return Trial(step, config, TrialOutcome.OK, 1000.0 * batch, 0.5, memory_peak_fraction=batch / 1200)

    result = search(TrialConfig(batch_size=64), measure, budget_seconds=1e9, mixed_policies=())
    crowded = [t for t in result.trials if t.outcome == "memory-headroom"]
    assert [t.config.batch_size for t in crowded] == [2048, 1536, 1280]
    assert "peaked at 171% of GPU memory" in crowded[0].reason and result.best.config.batch_size == 1024


def test_mixed_precision_off_the_float32_loss_is_rejected():
    result = search(
        TrialConfig(batch_size=64),
        fake_measure(mixed_loss_shift=0.3),
        budget_seconds=1e9,
        mixed_policies=("mixed_float16",),
    )
    assert result.best.config.precision == "float32"
    assert [t.outcome for t in result.trials if t.step == "precision"] == ["numerically-off"]


def test_both_mixed_policies_are_measured_against_the_float32_loss():
    gains = {"mixed_bfloat16": 1.0, "mixed_float16": 2.5}  # bf16 no faster, as ResNet-50 under Grappler's NCHW rewrite
    result = search(
        TrialConfig(batch_size=64),
        fake_measure(precision_gain=gains),
        budget_seconds=1e9,
        mixed_policies=("mixed_bfloat16", "mixed_float16"),
    )
    precision = [(t.config.precision, t.outcome) for t in result.trials if t.step == "precision"]
    assert precision == [("mixed_bfloat16", "no-gain"), ("mixed_float16", "ok")]  # as fast: inside the noise
    assert result.best.config.precision == "mixed_float16"


def test_xla_is_judged_last_even_when_it_wins_at_the_start():
    # As on the H200: XLA faster at the seed's batch 64, but each XLA trial pays its compilation.
    result = search(TrialConfig(batch_size=64), fake_measure(xla_gain=1.4), budget_seconds=1e9, mixed_policies=())
    steps = [(t.step, t.config.jit_compile) for t in result.trials]
    xla = steps.index(("XLA", True))
    assert all(jit is False for step, jit in steps[:xla]) and steps[xla + 1 :] == [("allocator", True)]
    assert result.best.config.jit_compile is True and result.best.config.batch_size == 512
    code = code_change(result.start_config, result.best.config)
    assert "jit_compile" not in code  # Keras's "auto" is XLA on already: only the batch and pipeline change


def test_on_best_sees_each_new_recommendation_once_after_its_trial():
    events: list = []
    search(
        TrialConfig(batch_size=64),
        fake_measure(oom_above=256),
        budget_seconds=1e9,
        mixed_policies=(),
        on_trial=lambda t: events.append(("trial", t.step, t.config.batch_size, t.config.input)),
        on_best=lambda t: events.append(("best", t.step, t.config.batch_size, t.config.input)),
    )
    bests = [e for e in events if e[0] == "best"]
    assert bests[0] == ("best", "start, XLA off (tried last)", 64, "numpy") and events[1] == bests[0]
    assert [b[2] for b in bests if b[1] == "batch size"] == [128, 256] and len(set(bests)) == len(bests)
    assert all(events.index(("trial", *b[1:])) < events.index(b) for b in bests)


def test_no_change_is_no_diff():
    assert code_change(TrialConfig(64), TrialConfig(64, jit_compile=False)) == (
        "- model.compile(optimizer=..., loss=...)\n+ model.compile(optimizer=..., loss=..., jit_compile=False)"
    )
    assert code_change(TrialConfig(64), TrialConfig(64, jit_compile=True)) == ""


def test_the_start_stays_the_winner_when_nothing_beats_it():
    def measure(step, config, timeout):
        rate = 900.0 if config == TrialConfig(batch_size=64) else 500.0
        return Trial(step, config, TrialOutcome.OK, rate, 0.5)

    result = search(TrialConfig(batch_size=64), measure, budget_seconds=1e9, mixed_policies=())
    assert result.best is result.trials[0] and result.speedup == 1.0


def test_budget_skips_the_remaining_trials_and_on_trial_sees_each_once():
    ticks = iter(range(0, 10_000, 10))
    seen: list[Trial] = []
    result = search(
        TrialConfig(batch_size=64),
        fake_measure(),
        budget_seconds=25,
        mixed_policies=(),
        clock=lambda: next(ticks),
        on_trial=seen.append,
    )
    assert any(t.outcome == "skipped" for t in result.trials) and len(seen) == len(result.trials)


def test_a_failing_baseline_ends_the_search():
    def broken(step, config, timeout):
        return Trial(step, config, TrialOutcome.ERROR, reason="ImportError: no module named keras")

    result = search(TrialConfig(batch_size=64), broken, budget_seconds=1e9, mixed_policies=())
    assert len(result.trials) == 1 and result.best.outcome == "error"


def test_code_change_and_the_learning_rate_caveat():
    base = TrialConfig(batch_size=64)
    best = replace(
        base,
        batch_size=1024,
        input="tf.data+cache",
        precision="mixed_bfloat16",
        jit_compile=False,
        steps_per_execution=32,
    )
    code = code_change(base, best)
    # issue 23: fit(x, y) shuffles every epoch, and the pipeline that replaces it must too
    assert 'tfgpu.setup(precision="mixed")' in code and ".cache().shuffle(len(x)).batch(1024).prefetch" in code
    assert "jit_compile=False, steps_per_execution=32" in code and "- model.fit(x, y, batch_size=64)" in code
    assert "16x" in batch_caveat(base, best) and batch_caveat(base, base) is None


def test_xla_break_even_counts_the_samples_that_repay_its_compilation():
    from tfgpu.model.tune import TuneResult
    from tfgpu.tuning.advice import xla_break_even

    plain = Trial(
        "batch size", TrialConfig(1024, "tf.data", jit_compile=False), "ok", 289_228.0, 0.5, warmup_seconds=0.5
    )
    xla = Trial("XLA", replace(plain.config, jit_compile=True), TrialOutcome.OK, 330_102.0, 0.5, warmup_seconds=54.7)
    note = xla_break_even(TuneResult((plain, xla), plain, xla, 100.0))
    # 54.2 s / (1/289228 - 1/330102 s per sample) = 126.6 million samples: 2,110 epochs of MNIST
    assert "14% faster" in note and "after 126,602,0" in note
    assert xla_break_even(TuneResult((plain,), plain, plain, 10.0)) is None


def test_a_start_without_xla_that_times_out_ends_the_search():
    def measure(step, config, timeout):
        return Trial(step, config, TrialOutcome.TIMEOUT, reason="no answer within 120 s")

    result = search(TrialConfig(batch_size=64, jit_compile=False), measure, budget_seconds=10, mixed_policies=())
    assert len(result.trials) == 1 and result.best.outcome == "timeout"


def test_later_trials_get_the_budget_left_and_none_starts_that_cannot_finish():
    now = [0.0]
    calls: list = []
    plain = fake_measure(calls=calls)

    def measure(step, config, timeout):
        now[0] += 30.0  # every trial takes 30 s
        return plain(step, config, timeout)

    start = TrialConfig(batch_size=64, jit_compile=False)  # nothing kept back for XLA
    result = search(start, measure, budget_seconds=100, mixed_policies=(), clock=lambda: now[0])
    assert [c[2] for c in calls] == [60.0, 70.0, 40.0]  # the start's floor, then what is left
    skipped = [t for t in result.trials if t.outcome == "skipped"]
    assert skipped and skipped[0].reason == "10 s left, the quickest trial took 30 s"


def test_a_trial_cut_by_the_budget_says_so():
    def measure(step, config, timeout):
        if step == "start":
            return Trial(step, config, TrialOutcome.OK, 100.0, 0.5, data="arrays")
        return Trial(step, config, TrialOutcome.TIMEOUT, reason=f"no answer within {timeout:.0f} s")

    result = search(TrialConfig(batch_size=64, jit_compile=False), measure, budget_seconds=50, mixed_policies=())
    assert result.trials[1].reason.startswith("the time budget ran out during the trial (no answer within")


def test_arrays_in_memory_skip_the_cache_trial():
    calls: list = []
    result = search(
        TrialConfig(batch_size=64), fake_measure(calls=calls, data="arrays"), budget_seconds=1e9, mixed_policies=()
    )
    cache = [t for t in result.trials if t.config.input == "tf.data+cache"]
    assert [t.outcome for t in cache] == ["skipped"] and "arrays in memory" in cache[0].reason
    assert all(c[1].input != "tf.data+cache" for c in calls) and result.best.config.input == "tf.data+device"


def recorded(name: str):
    """A tune run recorded on the H200 (benchmarks/tune_*.py --json), as a TuneResult."""
    import json
    from pathlib import Path

    from tfgpu.model.tune import TuneResult

    doc = json.loads((Path(__file__).parents[3] / "docs" / "examples" / name).read_text())
    trials = tuple(
        Trial(**{**t, "config": TrialConfig(**t["config"]), "outcome": TrialOutcome(t["outcome"])})
        for t in doc["trials"]
    )
    best = next(t for t in trials if t.config == TrialConfig(**doc["winner"]) and t.outcome == "ok")
    return TuneResult(trials, trials[0], best, doc["seconds"])


def test_precision_note_on_the_h200_runs_names_the_kernels_only_when_the_gpu_was_busy():
    from tfgpu.report.tune import winner_line
    from tfgpu.tuning.advice import precision_note

    resnet = recorded("h200-tune-resnet50.json")
    note = precision_note(resnet)
    assert "(mixed_bfloat16 604, mixed_float16 604 vs float32 740 samples/s) with the GPU 86% busy" in note
    assert "gave no figure (timeout: no answer within 180 s)" in winner_line(resnet)
    # MNIST's mixed trials lost too, but with the GPU 19% busy: the step overhead, not the kernels
    assert precision_note(recorded("h200-tune-mnist.json")) is None


def test_the_allocator_trial_is_not_started_when_a_new_process_could_not_recompile_the_winner():
    # As MNIST on the H200: XLA won after a 116 s compilation, 60 s were left, and the allocator
    # trial (a new process: import, then XLA's compilation again) ran out of budget.
    now = [0.0]
    plain = fake_measure(xla_gain=1.2)

    def measure(step, config, timeout):
        now[0] += 120.0 if config.jit_compile is True else 10.0
        return plain(step, config, timeout)

    result = search(TrialConfig(batch_size=64), measure, budget_seconds=300, mixed_policies=(), clock=lambda: now[0])
    assert result.best.config.jit_compile is True
    allocator = result.trials[-1]
    assert allocator.step == "allocator" and allocator.outcome == "skipped"
    assert allocator.reason.endswith("a new TensorFlow process and the winner's trial need about 130 s")


def test_fused_batch_normalization_is_tried_for_models_that_have_it_and_kept_when_faster():
    def measure(step, config, timeout):
        rate = 1000.0 * (1.9 if config.batchnorm == "fused" else 1.0)
        return Trial(step, config, TrialOutcome.OK, rate, 0.5, batchnorm_layers=layers)

    layers = 53  # ResNet-50
    result = search(TrialConfig(batch_size=64), measure, budget_seconds=1e9, mixed_policies=())
    assert [t.outcome for t in result.trials if t.step == "batch normalization"] == ["ok"]
    assert result.best.config.batchnorm == "fused"
    assert 'tfgpu.setup(batchnorm="fused")' in code_change(result.start_config, result.best.config)
    assert batchnorm_note(result).startswith(
        "Fused batch normalization won (1.90x on its own): Keras 3 on TensorFlow runs the model's 53 "
        "BatchNormalization layers as separate small ops"
    )
    layers = 0  # an MLP: nothing to fuse, no trial
    result = search(TrialConfig(batch_size=64), measure, budget_seconds=1e9, mixed_policies=())
    assert not [t for t in result.trials if t.step == "batch normalization"] and batchnorm_note(result) is None


def test_the_winner_is_measured_again_in_a_fresh_process_when_the_caller_can_start_one():
    """Issue 15: one configuration measured 9% apart in two TF processes while stating ±2% between epochs."""
    calls, fresh = [], []

    def new_process():
        fresh.append(len(calls))

    result = search(
        TrialConfig(batch_size=64),
        fake_measure(calls=calls),
        budget_seconds=1e9,
        mixed_policies=(),
        new_process=new_process,
    )
    assert result.trials[-1].step == "confirm" and result.confirmation is result.trials[-1]
    assert result.confirmation.config == result.best.config and fresh == [len(calls) - 1]
    assert result.process_noise == 0.0  # the fake is deterministic
    quiet = search(TrialConfig(batch_size=64), fake_measure(), budget_seconds=1e9, mixed_policies=())
    assert quiet.confirmation is None and all(t.step != "confirm" for t in quiet.trials)


def test_no_confirmation_when_nothing_won_or_the_budget_is_short():
    def flat(step, config, timeout):  # nothing beats the start
        return Trial(step, config, TrialOutcome.OK, 1000.0, 0.5, data="arrays")

    same = search(TrialConfig(batch_size=64), flat, budget_seconds=1e9, mixed_policies=(), new_process=lambda: None)
    assert same.confirmation is None
    now = [0.0]
    measure = fake_measure()

    def slow(step, config, timeout):  # every trial takes 10 s of the budget
        now[0] += 10.0
        return measure(step, config, timeout)

    start = TrialConfig(batch_size=64, jit_compile=False)  # no budget kept back for XLA
    full = search(start, slow, budget_seconds=1e9, mixed_policies=(), clock=lambda: now[0])
    before_confirm = now[0]  # what every trial but the confirmation takes, then 15 s: less than start + winner
    now[0] = 0.0
    short = search(
        start,
        slow,
        budget_seconds=before_confirm + 15,
        mixed_policies=(),
        clock=lambda: now[0],
        new_process=lambda: None,
    )
    assert full.confirmation is None and short.confirmation.outcome == "skipped"
    assert short.confirmation.reason == "15 s left, a fresh process and the winner's trial need about 20 s"


def test_a_gain_within_the_noise_is_no_winner_and_changes_nothing():
    # issue 23: a 1.05x "winner" while the same start measured 1,370-2,477 samples/s across runs
    start = Trial("baseline", TrialConfig(64), TrialOutcome.OK, 1000.0, spread=0.30)
    best = Trial("input", TrialConfig(64, input="tf.data"), TrialOutcome.OK, 1050.0, spread=0.10)
    within = TuneResult((start, best), start, best, 60.0)
    assert within.noise == 0.15 and not within.beats_noise
    assert winner_line(within).startswith("No change measured beyond the noise: the fastest, ")
    clear = TuneResult(
        (start, replace(best, samples_per_second=1500.0)), start, replace(best, samples_per_second=1500.0), 60.0
    )
    assert clear.beats_noise and winner_line(clear).startswith("Winner: ")
    confirmed_lower = replace(clear, confirmation=replace(best, samples_per_second=1100.0))
    assert not confirmed_lower.beats_noise  # judged by the lower figure, against the noise between processes


def test_a_single_trial_declares_no_winner():
    start = Trial("baseline", TrialConfig(64), TrialOutcome.OK, 1000.0)
    assert winner_line(TuneResult((start,), start, start, 30.0)).startswith(
        "Only the starting configuration was measured"
    )


def test_a_start_with_xla_keeps_budget_for_the_xla_trial_as_the_h200_resnet50_tune_needed():
    # On the H200 a 300 s tune of ResNet-50 (jit_compile="auto") left XLA 34 s, less than its
    # compilation, while XLA was 2x the winner: the other dimensions now stop at 210 s.
    now = [0.0]
    calls: list = []
    plain = fake_measure(calls=calls, xla_gain=2.0)

    def measure(step, config, timeout):
        now[0] += 60.0 if config.jit_compile is True else 30.0
        return plain(step, config, timeout)

    result = search(TrialConfig(batch_size=64), measure, budget_seconds=300, mixed_policies=(), clock=lambda: now[0])
    xla = next(c for c in calls if c[0] == "XLA")
    assert xla[2] >= 90.0 and all(now_timeout <= 210.0 for step, _, now_timeout in calls if step != "XLA")
    assert result.best.config.jit_compile is True
    kept = [t for t in result.trials if t.outcome == "skipped" and t.step != "allocator"]
    assert kept and all("XLA" in t.reason or "quickest" in t.reason for t in kept)


def test_an_unmeasured_xla_is_not_switched_off_by_the_recommendation():
    from tfgpu.tuning.api import tune_report

    def measure(step, config, timeout):
        if config.jit_compile is True:
            return Trial(step, config, TrialOutcome.TIMEOUT, reason=f"no answer within {timeout:.0f} s")
        return fake_measure()(step, config, timeout)

    result = search(TrialConfig(batch_size=64), measure, budget_seconds=1e9, mixed_policies=())
    assert result.best.config.jit_compile is False and result.best is not result.baseline
    report = tune_report(result, 1)
    assert "jit_compile" not in report.code_change and report.code_change
    assert report.xla_note and report.xla_note.startswith("XLA (on in the script")
