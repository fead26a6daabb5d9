"""The resemblance tier: a paste in words no signature has is named by the public reports it is most like, and says so."""

from __future__ import annotations

import importlib
import io
from pathlib import Path

import pytest
from rich.console import Console

from tfgpu.explain.explain import explain_lines
from tfgpu.knowledge.resemblance import Resemblance, features, load_resemblance
from tfgpu.knowledge.scanner import LogScanner
from tfgpu.knowledge.signatures import load_signatures
from tfgpu.model.explanation import Reading
from tfgpu.report.explanation import render_explanation_text

ROOT = Path(__file__).parents[3]
SEED_CORPUS = ROOT.parent / "shared" / "data" / "errors" / "corpus.jsonl"
"""The seed corpus beside the checkout, which the model is learnt from with the public threads."""


def scan(lines):
    scanner = LogScanner()
    for line in lines:
        scanner.feed(line)
    return scanner.result()


def test_features_are_words_terms_and_libraries_without_their_versions():
    found = features("Could not load libcublas.so.11 and cudart64_110.dll: CUBLAS_STATUS_NOT_INITIALIZED")
    assert {"lib:libcublas", "lib:cudart", "cublas_status_not_initialized"} <= found
    assert "term:cublas_status_not_initialized" not in found  # an identifier is one word, not also a term
    assert not [f for f in found if f.startswith("lib:") and any(ch.isdigit() for ch in f)]


def test_a_gpu_s_product_name_is_not_a_feature():
    found = features("mixed_float16 is slow on my NVIDIA GeForce RTX 3090, Quadro and Tesla too")
    assert "slow" in found
    assert not [
        f for f in found if {"nvidia", "geforce", "rtx", "quadro", "tesla"} & set(f.removeprefix("term:").split())
    ]


def test_a_model_names_the_problem_whose_reports_share_the_most_and_round_trips_through_its_document():
    model = Resemblance.learn(
        [
            ("oom", "ResourceExhaustedError: OOM when allocating tensor, batch too large"),
            ("oom", "ran out of GPU memory with a large batch"),
            ("missing_cuda_library", "libcudnn.so.8 cannot open shared object file"),
            ("missing_cuda_library", "libcublas.so.11 not found on LD_LIBRARY_PATH"),
        ]
    )
    likeness = model.nearest("my large batch runs out of memory")
    assert likeness is not None and likeness.category == "oom" and likeness.reports == 2 and likeness.margin > 0
    assert model.nearest("libcudnn.so.8 refuses to open").category == "missing_cuda_library"
    assert model.nearest("hello") is None  # shares fewer than two features with every report
    assert Resemblance.from_document(model.to_document()) == model


def test_a_small_problem_does_not_outweigh_a_large_one_by_the_features_it_lacks():
    """A feature no report of a small problem holds is about as rare there as everywhere, not one in three."""
    reports = [("oom", f"ran out of GPU memory in epoch {i} training the big model") for i in range(60)]
    reports += [("oom", "got an OutOfMemory error loading weights"), ("oom", "not enough RAM on the GPU for a batch")]
    reports += [
        ("memory_growth_mixed", "Memory growth cannot differ between GPU devices"),
        ("memory_growth_mixed", "set_memory_growth differs between GPU devices"),
    ]
    likeness = Resemblance.learn(reports).nearest("with 12GB RAM I get OutOfMemory")
    assert likeness is not None and likeness.category == "oom"


def test_a_pair_of_sentence_words_is_not_a_term():
    assert "term:even though" not in features("tensorflow cannot find libcudnn.so.8 even though cuDNN is installed")


def test_a_paste_in_words_no_signature_has_is_named_by_resemblance_and_the_answer_says_so():
    explanation = explain_lines(["tensorflow cannot find libcudnn.so.8 even though cuDNN is installed"])
    (problem,) = explanation.problems
    assert problem.category == "missing_cuda_library" and problem.reading is Reading.BY_RESEMBLANCE
    assert "resemblance" in problem.cause and "{" not in problem.title
    out = io.StringIO()
    render_explanation_text(explanation, Console(file=out, width=200))
    assert f"perhaps: {problem.title}" in out.getvalue()


def test_a_longer_report_is_resembled_by_its_poster_s_complaints_unless_a_harmless_line_is_their_subject():
    """OpenNMT-tf#80's words (its title reworded, as written it is a paste pattern's), and Chiron#99's question about a CPU machine's driver lines (a benign public log)."""
    post = [
        "gpu_allow_growth option is not respected",
        "Calling the tutorial code with additional argument gpu_allow_growth",
        "python -m bin.main train_and_eval --gpu_allow_growth --model config/models/nmt_small.py",
        "does not prevent GPU memory being fully allocated.",
    ]
    (hit,) = scan(post).hits
    assert hit.reading is Reading.BY_RESEMBLANCE and hit.quotes[0] == (1, post[0])
    assert hit.signature.category == "memory_growth_after_init"
    (as_titled,) = scan(["gpu_allow_growth is not working", *post[1:]]).hits
    assert as_titled.reading is Reading.AS_WRITTEN and as_titled.signature.id == "allow-growth-ignored-said"
    question = [
        "After processing I receive a number of lines from tensorflow, mostly information, but also these:",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libcuda.so.1'; "
        "dlerror: libcuda.so.1: cannot open shared object file: No such file or directory",
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: UNKNOWN ERROR (303)",
        "My first run is still running, but I'm not sure if these will effect the results.",
    ]
    assert scan(question).hits and all(h.signature.benign for h in scan(question).hits)


def test_without_a_complaint_or_where_a_message_matched_nothing_is_guessed():
    assert not scan(["my RTX 3090 trains the model in ten minutes"]).hits
    # an issue template's label and the platform are no problem's words: "[Bug]" is on every kind of report
    assert not scan(["[Bug]: Tensorflow error in Colab"]).hits
    matched = scan(
        ["E tensorflow/core/common_runtime/bfc_allocator.cc] OOM when allocating tensor with shape[64,3]"]
    ).hits
    assert matched and all(h.reading is Reading.AS_WRITTEN for h in matched)


def test_a_scanner_with_its_own_signatures_brings_its_own_model():
    assert LogScanner().resemblance is load_resemblance()
    assert LogScanner(load_signatures()).resemblance is None


@pytest.mark.skipif(not SEED_CORPUS.exists(), reason="shared corpus not present")
def test_the_packaged_model_is_what_the_corpus_gives(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    build = importlib.import_module("build_resemblance")
    assert build.PACKAGED.read_text() == build.document(), "run scripts/build_resemblance.py"


def test_a_warning_tf_printed_that_no_signature_knows_is_not_named_a_problem_by_its_words():
    """TF's glog WARNING record is TF's own word that it only warns: before the base knew tf.data's auto-shard notice,
    resembling its words to reports of failures made "TensorFlow sees no GPU" of two benign logs of the thirty-ninth
    late set. The record names nothing by its words; the same words as a poster's own are still read."""
    words = "AUTO sharding policy failed to apply FILE sharding policy: did not find a shardable source"
    model = Resemblance.learn(
        [("no_gpu_visible", f"{words} and the GPU is idle")] * 3
        + [("oom", "OOM when allocating a tensor of memory")] * 3
    )

    def hits(line):
        scanner = LogScanner(load_signatures(), model)
        scanner.feed(line)
        return scanner.result().hits

    assert not hits(
        f"2022-04-03 16:22:04.058728: W tensorflow/core/grappler/optimizers/data/auto_shard.cc:776] {words}"
    )
    (guess,) = hits(words)
    assert (guess.signature.category, guess.reading) == ("no_gpu_visible", Reading.BY_RESEMBLANCE)
