"""The search (pure, over a ``measure`` callable): greedy coordinate descent, not a grid.

Why: the dimensions interact weakly on most models, a grid of 3 pipelines × ~8 batch sizes ×
3 precisions × 2 XLA × 3 steps_per_execution × 2 allocators is ~900 trials, and each trial
costs a warm-up and a timed window. So each dimension is settled in turn, keeping the best so far.

XLA is judged last, on the winner. When the start has it on (Keras's jit_compile="auto" means
XLA on a GPU), the start is measured without it: each new input shape costs XLA a compilation
(55-62 s for the small MNIST CNN on the H200, minutes for ResNet-50), which would spend a 5-minute
budget in a few trials and tell nothing about the other dimensions. The final XLA trial on the
winner measures the compilation once (as its warm-up) and the warm rate, so the report can say
after how many samples it repays. In between: the input pipeline, precision (before
the batch: mixed precision halves activation memory, so the batch search then finds the
largest batch for the precision actually used), the batch size, and the small ones. Before
precision, for a model with BatchNormalization layers: Keras's layer against cuDNN's fused
kernel (``tfgpu.setup(batchnorm="fused")``, applied in a child of its own). The batch doubles until it stops paying (< 5 % gain) or runs out of memory, then a
binary search between the last size that fitted and the first that did not finds the largest
that fits, "fits" meaning with 10 % of GPU memory to spare (a batch whose peak takes more is
treated like an OOM). A change is kept only if it is faster and, for precision and XLA, if the loss after
the same steps stays within ``loss_tolerance`` of the float32 run of the same configuration.

With budget left, the winner is measured again in a fresh TensorFlow process (the "confirm"
trial): between processes one configuration has differed by more than between the epochs of
one, so the report states that difference as the noise a gain must beat.

The budget is a hard limit: each trial is given the time left and killed when it runs out, and
none starts when less is left than the quickest trial took; the allocator trial, which needs a
TensorFlow process of its own (and so compiles again what the winner compiled), not when less is
left than the start and the winner's own trial took together. The start is measured whatever the
budget, for at most a third of it (and at least a minute: it also starts TensorFlow). Data that are
arrays in memory skip the cache() trial, which could only add a copy. There is no parallel-map
trial: the script hands over its data, not its map function, and tf.data already runs a
stateless ``map()`` in parallel by default (``map_parallelization``, "If None, defaults to
True": https://www.tensorflow.org/api_docs/python/tf/data/experimental/OptimizationOptions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from tfgpu.model.tune import Trial, TrialConfig, TrialOutcome, TuneResult

Measure = Callable[[str, TrialConfig, float], Trial]
"""``measure(step, config, timeout_seconds)``: one trial, killed after the timeout."""
MIN_GAIN = 1.05
BASELINE_SHARE = 1 / 3
BASELINE_MIN_SECONDS = 60.0
"""The start is always measured (nothing can be compared without it), for up to a third of the
budget but at least this long (it includes importing TensorFlow: ~13 s on the H200)."""
MAX_BATCH = 1 << 16
HEADROOM = 0.9
"""A batch whose peak use of GPU memory is above this share counts as not fitting: fragmentation,
a longer sequence or a validation pass would push it over."""


def _better(candidate: Trial, best: Trial, gain: float = 1.02) -> bool:
    return bool(
        candidate.outcome is TrialOutcome.OK
        and candidate.samples_per_second
        and best.samples_per_second
        and candidate.samples_per_second > gain * best.samples_per_second
    )


def _numerically_close(candidate: Trial, reference: Trial, tolerance: float) -> bool:
    if candidate.loss is None or reference.loss is None:
        return False
    return abs(candidate.loss - reference.loss) <= tolerance * max(abs(reference.loss), 1e-8)


def search(
    baseline: TrialConfig,
    measure: Measure,
    *,
    budget_seconds: float,
    mixed_policies: Sequence[str],
    loss_tolerance: float = 0.1,
    clock: Callable[[], float] = time.monotonic,
    on_trial: Callable[[Trial], None] | None = None,
    on_best: Callable[[Trial], None] | None = None,
    new_process: Callable[[], None] | None = None,
) -> TuneResult:
    """Run the trials; ``mixed_policies`` are the Keras mixed policies worth trying on this GPU (may be empty).

    ``on_trial`` sees each trial once its fate is decided (kept, slower, numerically off, OOM…),
    ``on_best`` each new best after it (the recommendation so far). ``new_process`` makes the
    next trial start a fresh TensorFlow process: with it, the winner is measured again there.
    """
    start = clock()
    trials: list[Trial] = []
    pending: list[int] = []
    quickest: float | None = None  # wall time of the quickest trial that finished
    took: dict[int, float] = {}  # wall time of each trial, by id()
    plain = replace(baseline, jit_compile=False)
    best = Trial("start", plain, TrialOutcome.PENDING)  # until the start is measured: never announced
    announced: Trial | None = None

    def settle() -> None:
        nonlocal announced
        while pending:
            index = pending.pop(0)
            if on_trial:
                on_trial(trials[index])
        if on_best and best is not announced and best.outcome is TrialOutcome.OK:
            on_best(best)
            announced = best

    def record(trial: Trial) -> Trial:
        trials.append(trial)
        pending.append(len(trials) - 1)
        return trial

    def run(
        step: str, config: TrialConfig, timeout: float | None = None, needs: tuple[float, str] | None = None
    ) -> Trial:
        """A trial within the budget left (or ``timeout``, for the start), skipped when it cannot fit.

        ``needs``: the seconds this trial is expected to take and why, when more than the quickest's.
        """
        nonlocal quickest
        settle()
        left = budget_seconds - (clock() - start)
        if timeout is None:
            why = None
            if left <= 0:
                why = "time budget spent"
            elif needs is not None and left < needs[0]:
                why = f"{left:.0f} s left, {needs[1]}"
            elif quickest is not None and left < quickest:
                why = f"{left:.0f} s left, the quickest trial took {quickest:.0f} s"
            if why:
                return record(Trial(step, config, TrialOutcome.SKIPPED, reason=why))
        began = clock()
        trial = measure(step, config, left if timeout is None else timeout)
        took[id(trial)] = clock() - began
        if trial.outcome is TrialOutcome.TIMEOUT and timeout is None:
            trial = replace(trial, reason=f"the time budget ran out during the trial ({trial.reason})")
            took[id(trial)] = clock() - began
        if trial.outcome in (TrialOutcome.OK, TrialOutcome.OOM):
            quickest = took[id(trial)] if quickest is None else min(quickest, took[id(trial)])
        return record(trial)

    def mark(trial: Trial, outcome: TrialOutcome, reason: str) -> None:
        trials[trials.index(trial)] = replace(trial, outcome=outcome, reason=reason)

    def reject(trial: Trial, reason: str, gain: float) -> None:
        """Not kept: "slower", or "no-gain" when faster by less than ``gain`` (inside run-to-run noise)."""
        if (trial.samples_per_second or 0.0) >= (best.samples_per_second or 0.0):
            mark(trial, TrialOutcome.NO_GAIN, f"less than {gain - 1:.0%} faster than the best: not worth the change")
        else:
            mark(trial, TrialOutcome.SLOWER, reason)

    def keep_if_faster(
        step: str,
        config: TrialConfig,
        slower: str,
        numerics_note: str | None = None,
        reference: Trial | None = None,
        gain: float = 1.02,
        needs: tuple[float, str] | None = None,
    ) -> Trial:
        """Run a variant of the best and return the new best: the variant when it is ``gain`` times faster.

        With ``numerics_note`` the variant must also end at a loss close to ``reference``'s (the
        best's by default), since lower precision and XLA may change the numbers, not only the speed.
        """
        trial = run(step, config, needs=needs)
        ref = reference or best
        if (
            numerics_note is not None
            and trial.outcome is TrialOutcome.OK
            and not _numerically_close(trial, ref, loss_tolerance)
        ):
            mark(trial, TrialOutcome.NUMERICALLY_OFF, f"loss {trial.loss:.4g} vs {ref.loss:.4g}{numerics_note}")
            return best
        if _better(trial, best, gain):
            return trial
        if trial.outcome is TrialOutcome.OK:
            reject(trial, slower, gain)
        return best

    def too_full(trial: Trial) -> bool:
        """Fits, but without the headroom: kept as data, treated like an OOM."""
        if trial.outcome is not TrialOutcome.OK or (trial.memory_peak_fraction or 0.0) <= HEADROOM:
            return False
        mark(
            trial,
            TrialOutcome.MEMORY_HEADROOM,
            f"TF's allocator peaked at {trial.memory_peak_fraction:.0%} of GPU memory",
        )
        return True

    step = "start" if plain == baseline else "start, XLA off (tried last)"
    first = run(step, plain, max(BASELINE_MIN_SECONDS, budget_seconds * BASELINE_SHARE))
    if first.outcome is not TrialOutcome.OK:
        settle()
        return TuneResult(tuple(trials), first, first, clock() - start, baseline)
    best = first

    for pipeline in ("tf.data", "tf.data+cache", "tf.data+device"):
        config = replace(best.config, input=pipeline)
        if pipeline == "tf.data+cache" and best.data == "arrays":
            settle()
            record(
                Trial(
                    "input pipeline",
                    config,
                    TrialOutcome.SKIPPED,
                    reason="the data are arrays in memory: cache() saves nothing",
                )
            )
            continue
        best = keep_if_faster("input pipeline", config, "no faster than the current best")

    # Keras 3 normalises with separate elementwise ops on TensorFlow; cuDNN's fused kernel made
    # ResNet-50 1.9x faster on the H200 (docs/performance.md §5b). Only for models that have it.
    if first.batchnorm_layers:
        config = replace(best.config, batchnorm="fused")
        best = keep_if_faster(
            "batch normalization",
            config,
            "no faster than Keras's own",
            numerics_note=" with Keras's batch normalization",
        )

    # Both mixed policies where the GPU has both: which is faster depends on the model and on
    # TensorFlow's kernels (Grappler keeps NHWC convolutions only for float16, for one).
    full_precision = best
    for policy in mixed_policies:
        config = replace(full_precision.config, precision=policy)
        best = keep_if_faster(
            "precision", config, "no faster than the best so far", numerics_note=" in float32", reference=full_precision
        )

    fits, too_big = best.config.batch_size, None
    while fits * 2 <= MAX_BATCH:
        trial = run("batch size", replace(best.config, batch_size=fits * 2))
        if trial.outcome is TrialOutcome.OOM or too_full(trial):
            too_big = fits * 2
            break
        if trial.outcome is not TrialOutcome.OK:
            break
        if not _better(trial, best, MIN_GAIN):
            reject(trial, "slower than half the batch", MIN_GAIN)
            break
        best, fits = trial, fits * 2
    while too_big is not None and too_big - fits > max(8, fits // 4):
        middle = (fits + too_big) // 2 // 8 * 8
        trial = run("batch size (bisect)", replace(best.config, batch_size=middle))
        if trial.outcome is TrialOutcome.OOM or too_full(trial):
            too_big = middle
        elif trial.outcome is TrialOutcome.OK:
            fits = middle
            if _better(trial, best):
                best = trial
        else:
            break

    for steps in (8, 32):
        best = keep_if_faster("steps_per_execution", replace(best.config, steps_per_execution=steps), "no faster")

    config = replace(best.config, jit_compile=True)
    best = keep_if_faster("XLA", config, "jit_compile=True no faster", numerics_note="")

    def fresh_process_needs(what: str) -> tuple[float, str]:
        """A trial in a new process imports TensorFlow and compiles again: about the start's and the winner's time."""
        seconds = took.get(id(first), 0.0) + took.get(id(best), 0.0)
        return seconds, f"{what} need about {seconds:.0f} s"

    # Last: the allocator is read when TensorFlow starts, so this trial needs a process of its own.
    config = replace(best.config, allocator="cuda_malloc_async")
    needs = fresh_process_needs("a new TensorFlow process and the winner's trial")
    best = keep_if_faster("allocator", config, "no faster than the BFC allocator", needs=needs)

    # The winner again, in a fresh process: on the H200 one configuration measured 9% apart in two
    # TensorFlow processes while each stated ±2% between its epochs, so a figure to expect, and the
    # noise a gain must beat, need two processes.
    confirmation = None
    if new_process is not None and best is not first:
        needs = fresh_process_needs("a fresh process and the winner's trial")
        new_process()
        confirmation = run("confirm", best.config, needs=needs)
    settle()
    return TuneResult(tuple(trials), first, best, clock() - start, baseline, confirmation=confirmation)
