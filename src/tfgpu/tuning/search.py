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
XLA_RESERVE_SHARE = 0.3
XLA_RESERVE_MIN_SECONDS = 60.0
"""When the start compiles with XLA, this share of the budget (at least this long, at most half) is
kept for the XLA trial: ResNet-50's compilation took 38-47 s on the H200."""
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


def xla_reserve_seconds(baseline: TrialConfig, budget_seconds: float) -> float:
    """The seconds kept back for the XLA trial: the start compiles with XLA, so it must be compared with XLA.

    On the H200 a 5-minute tune of Keras's ResNet-50 spent its budget on the other dimensions and
    gave XLA 34 s, less than its compilation (38-47 s), while XLA was 2x the winner's rate: the
    recommendation would have switched the script's XLA off. A start without XLA reserves nothing
    (XLA is tried with what is left).
    """
    if not baseline.xla:
        return 0.0
    return min(budget_seconds / 2, max(XLA_RESERVE_MIN_SECONDS, budget_seconds * XLA_RESERVE_SHARE))


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
    state = _Search(baseline, measure, budget_seconds, loss_tolerance, clock, on_trial, on_best)
    first = state.start()
    if first.outcome is not TrialOutcome.OK:
        state.settle()
        return TuneResult(tuple(state.trials), first, first, state.elapsed(), baseline)
    state.input_pipeline()
    state.batchnorm()
    state.precision(mixed_policies)
    state.batch_size()
    state.steps_per_execution()
    state.xla()
    state.allocator()
    confirmation = state.confirm(new_process) if new_process is not None else None
    state.settle()
    return TuneResult(tuple(state.trials), first, state.best, state.elapsed(), baseline, confirmation=confirmation)


class _Search:
    """One search's state: the trials so far, the best, the budget, and what the callbacks have been told.

    Each dimension is a method that runs its trials and leaves ``best`` at the fastest kept.
    """

    def __init__(
        self,
        baseline: TrialConfig,
        measure: Measure,
        budget_seconds: float,
        loss_tolerance: float,
        clock: Callable[[], float],
        on_trial: Callable[[Trial], None] | None,
        on_best: Callable[[Trial], None] | None,
    ) -> None:
        self.baseline, self.measure, self.budget = baseline, measure, budget_seconds
        self.loss_tolerance, self.clock = loss_tolerance, clock
        self.on_trial, self.on_best = on_trial, on_best
        self.began = clock()
        self.reserve = xla_reserve_seconds(baseline, budget_seconds)
        self.trials: list[Trial] = []
        self.pending: list[int] = []
        self.quickest: float | None = None  # wall time of the quickest trial that finished
        self.took: dict[int, float] = {}  # wall time of each trial, by id()
        self.plain = replace(baseline, jit_compile=False)
        self.first = self.best = Trial("start", self.plain, TrialOutcome.PENDING)  # never announced while pending
        self.announced: Trial | None = None

    def elapsed(self) -> float:
        return self.clock() - self.began

    def settle(self) -> None:
        """Tell on_trial about each trial whose fate is decided, then on_best about a new best."""
        while self.pending:
            index = self.pending.pop(0)
            if self.on_trial:
                self.on_trial(self.trials[index])
        if self.on_best and self.best is not self.announced and self.best.outcome is TrialOutcome.OK:
            self.on_best(self.best)
            self.announced = self.best

    def record(self, trial: Trial) -> Trial:
        self.trials.append(trial)
        self.pending.append(len(self.trials) - 1)
        return trial

    def run(
        self,
        step: str,
        config: TrialConfig,
        timeout: float | None = None,
        needs: tuple[float, str] | None = None,
        reserve: float | None = None,
    ) -> Trial:
        """A trial within the budget left (or ``timeout``, for the start), skipped when it cannot fit.

        ``needs``: the seconds this trial is expected to take and why, when more than the quickest's.
        ``reserve``: seconds of the budget this trial may not use (the XLA trial's, by default).
        """
        self.settle()
        kept_back = self.reserve if reserve is None else reserve
        left = self.budget - self.elapsed() - kept_back
        if timeout is None:
            why = None
            if left <= 0:
                why = "time budget spent" + (f" ({kept_back:.0f} s are kept for the XLA trial)" if kept_back else "")
            elif needs is not None and left < needs[0]:
                why = f"{left:.0f} s left, {needs[1]}"
            elif self.quickest is not None and left < self.quickest:
                why = f"{left:.0f} s left, the quickest trial took {self.quickest:.0f} s"
            if why:
                return self.record(Trial(step, config, TrialOutcome.SKIPPED, reason=why))
        began = self.clock()
        trial = self.measure(step, config, left if timeout is None else timeout)
        if trial.outcome is TrialOutcome.TIMEOUT and timeout is None:
            trial = replace(trial, reason=f"the time budget ran out during the trial ({trial.reason})")
        seconds = self.took[id(trial)] = self.clock() - began
        if trial.outcome in (TrialOutcome.OK, TrialOutcome.OOM):
            self.quickest = seconds if self.quickest is None else min(self.quickest, seconds)
        return self.record(trial)

    def mark(self, trial: Trial, outcome: TrialOutcome, reason: str) -> None:
        self.trials[self.trials.index(trial)] = replace(trial, outcome=outcome, reason=reason)

    def reject(self, trial: Trial, reason: str, gain: float) -> None:
        """Not kept: "slower", or "no-gain" when faster by less than ``gain`` (inside run-to-run noise)."""
        if (trial.samples_per_second or 0.0) >= (self.best.samples_per_second or 0.0):
            self.mark(
                trial, TrialOutcome.NO_GAIN, f"less than {gain - 1:.0%} faster than the best: not worth the change"
            )
        else:
            self.mark(trial, TrialOutcome.SLOWER, reason)

    def keep_if_faster(
        self,
        step: str,
        config: TrialConfig,
        slower: str,
        numerics_note: str | None = None,
        reference: Trial | None = None,
        gain: float = 1.02,
        needs: tuple[float, str] | None = None,
        reserve: float | None = None,
    ) -> None:
        """Run a variant of the best and make it the best when it is ``gain`` times faster.

        With ``numerics_note`` the variant must also end at a loss close to ``reference``'s (the
        best's by default), since lower precision and XLA may change the numbers, not only the speed.
        """
        trial = self.run(step, config, needs=needs, reserve=reserve)
        ref = reference or self.best
        if (
            numerics_note is not None
            and trial.outcome is TrialOutcome.OK
            and not _numerically_close(trial, ref, self.loss_tolerance)
        ):
            self.mark(trial, TrialOutcome.NUMERICALLY_OFF, f"loss {trial.loss:.4g} vs {ref.loss:.4g}{numerics_note}")
        elif _better(trial, self.best, gain):
            self.best = trial
        elif trial.outcome is TrialOutcome.OK:
            self.reject(trial, slower, gain)

    def too_full(self, trial: Trial) -> bool:
        """Fits, but without the headroom: kept as data, treated like an OOM."""
        if trial.outcome is not TrialOutcome.OK or (trial.memory_peak_fraction or 0.0) <= HEADROOM:
            return False
        self.mark(
            trial,
            TrialOutcome.MEMORY_HEADROOM,
            f"TF's allocator peaked at {trial.memory_peak_fraction:.0%} of GPU memory",
        )
        return True

    def start(self) -> Trial:
        """The start, XLA off (judged last), whatever the budget: for up to a third of it, at least a minute."""
        step = "start" if self.plain == self.baseline else "start, XLA off (tried last)"
        timeout = max(BASELINE_MIN_SECONDS, self.budget * BASELINE_SHARE)
        self.first = self.run(step, self.plain, timeout)
        if self.first.outcome is TrialOutcome.OK:
            self.best = self.first
        return self.first

    def input_pipeline(self) -> None:
        for pipeline in ("tf.data", "tf.data+cache", "tf.data+device"):
            config = replace(self.best.config, input=pipeline)
            if pipeline == "tf.data+cache" and self.best.data == "arrays":
                self.settle()
                reason = "the data are arrays in memory: cache() saves nothing"
                self.record(Trial("input pipeline", config, TrialOutcome.SKIPPED, reason=reason))
                continue
            self.keep_if_faster("input pipeline", config, "no faster than the current best")

    def batchnorm(self) -> None:
        """Keras's batch norm against cuDNN's fused kernel, for models that have the layer.

        Keras 3 normalises with separate elementwise ops on TensorFlow; cuDNN's fused kernel made
        ResNet-50 1.9x faster on the H200 (docs/performance.md §5b).
        """
        if self.first.batchnorm_layers:
            self.keep_if_faster(
                "batch normalization",
                replace(self.best.config, batchnorm="fused"),
                "no faster than Keras's own",
                numerics_note=" with Keras's batch normalization",
            )

    def precision(self, mixed_policies: Sequence[str]) -> None:
        """Both mixed policies where the GPU has both, each against the float32 best.

        Which is faster depends on the model and on TensorFlow's kernels (Grappler keeps NHWC
        convolutions only for float16, for one).
        """
        full_precision = self.best
        for policy in mixed_policies:
            self.keep_if_faster(
                "precision",
                replace(full_precision.config, precision=policy),
                "no faster than the best so far",
                numerics_note=" in float32",
                reference=full_precision,
            )

    def batch_size(self) -> None:
        """Double while it pays; after an OOM (or no headroom), bisect to the largest batch that fits."""
        fits, too_big = self.best.config.batch_size, None
        while fits * 2 <= MAX_BATCH:
            trial = self.run("batch size", replace(self.best.config, batch_size=fits * 2))
            if trial.outcome is TrialOutcome.OOM or self.too_full(trial):
                too_big = fits * 2
                break
            if trial.outcome is not TrialOutcome.OK:
                break
            if not _better(trial, self.best, MIN_GAIN):
                self.reject(trial, "slower than half the batch", MIN_GAIN)
                break
            self.best, fits = trial, fits * 2
        while too_big is not None and too_big - fits > max(8, fits // 4):
            middle = (fits + too_big) // 2 // 8 * 8
            trial = self.run("batch size (bisect)", replace(self.best.config, batch_size=middle))
            if trial.outcome is TrialOutcome.OOM or self.too_full(trial):
                too_big = middle
            elif trial.outcome is TrialOutcome.OK:
                fits = middle
                if _better(trial, self.best):
                    self.best = trial
            else:
                break

    def steps_per_execution(self) -> None:
        for steps in (8, 32):
            self.keep_if_faster(
                "steps_per_execution", replace(self.best.config, steps_per_execution=steps), "no faster"
            )

    def xla(self) -> None:
        """On the winner, with the budget kept back for it."""
        config = replace(self.best.config, jit_compile=True)
        self.keep_if_faster("XLA", config, "jit_compile=True no faster", numerics_note="", reserve=0.0)

    def fresh_process_needs(self, what: str) -> tuple[float, str]:
        """A trial in a new process imports TensorFlow and compiles again: about the start's and the winner's time."""
        seconds = self.took.get(id(self.first), 0.0) + self.took.get(id(self.best), 0.0)
        return seconds, f"{what} need about {seconds:.0f} s"

    def allocator(self) -> None:
        """Last: the allocator is read when TensorFlow starts, so this trial needs a process of its own."""
        needs = self.fresh_process_needs("a new TensorFlow process and the winner's trial")
        config = replace(self.best.config, allocator="cuda_malloc_async")
        self.keep_if_faster("allocator", config, "no faster than the BFC allocator", needs=needs, reserve=0.0)

    def confirm(self, new_process: Callable[[], None]) -> Trial | None:
        """The winner again, in a fresh process.

        On the H200 one configuration measured 9% apart in two TensorFlow processes while each stated
        ±2% between its epochs, so a figure to expect, and the noise a gain must beat, need two processes.
        """
        if self.best is self.first:
            return None
        needs = self.fresh_process_needs("a fresh process and the winner's trial")
        new_process()
        return self.run("confirm", self.best.config, needs=needs, reserve=0.0)
