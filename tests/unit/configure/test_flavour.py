import json

import pytest
from tests.fakes.tf import fake_tf

from tfgpu.configure.apply import apply_options
from tfgpu.configure.flavour import KerasFlavour, keras_flavour, options_beyond_flavour
from tfgpu.configure.options import make_options


@pytest.mark.parametrize(
    ("environ", "flavour"),
    [
        ({"TF_USE_LEGACY_KERAS": "1", "KERAS_BACKEND": "jax"}, KerasFlavour.TF_KERAS),
        ({"TF_USE_LEGACY_KERAS": "True"}, KerasFlavour.TF_KERAS),
        ({"TF_USE_LEGACY_KERAS": "yes"}, KerasFlavour.TENSORFLOW),  # TF's own test accepts only true/True/1
        ({"KERAS_BACKEND": "JAX"}, KerasFlavour.JAX),
        ({"KERAS_BACKEND": "torch"}, KerasFlavour.TORCH),
        ({"KERAS_BACKEND": "openvino"}, KerasFlavour.OTHER),
        ({}, KerasFlavour.TENSORFLOW),
    ],
)
def test_keras_flavour_reads_the_variables_as_keras_and_tf_do(environ, flavour, tmp_path):
    assert keras_flavour({"HOME": str(tmp_path), **environ}) is flavour


def test_keras_flavour_reads_the_backend_from_keras_json_under_keras_home(tmp_path):
    (tmp_path / "keras.json").write_text(json.dumps({"backend": "torch", "floatx": "float32"}))
    assert keras_flavour({"KERAS_HOME": str(tmp_path)}) is KerasFlavour.TORCH
    assert keras_flavour({"KERAS_HOME": str(tmp_path), "KERAS_BACKEND": "jax"}) is KerasFlavour.JAX
    (tmp_path / "keras.json").write_text("{not json")
    assert keras_flavour({"KERAS_HOME": str(tmp_path)}) is KerasFlavour.TENSORFLOW


def test_options_beyond_flavour_names_each_tensorflow_option_set_under_another_backend():
    options = make_options(xla=False, memory="growth", precision="mixed", gpus="0")
    notes = options_beyond_flavour(options, KerasFlavour.JAX)
    assert [n.split("=")[0] for n in notes] == ["xla", "memory"]  # precision and gpus reach every backend
    assert options_beyond_flavour(options, KerasFlavour.TENSORFLOW) == []
    assert options_beyond_flavour(options, KerasFlavour.TF_KERAS) == []


def test_setup_xla_off_under_the_jax_backend_leaves_keras_alone_and_says_so():
    # issue 23: `tfgpu run --xla off` with KERAS_BACKEND=jax switched JAX's compilation off (7.0 s -> 25.8 s)
    setup = apply_options(make_options(xla=False), tf=fake_tf()[0], environ={"KERAS_BACKEND": "jax"})
    assert not any("jit_compile='auto' means no XLA" in line for line in setup.applied)
    assert any(w.startswith("xla=False configures TensorFlow") and "jax" in w for w in setup.warnings)


def test_setup_memory_growth_without_a_gpu_says_it_once():
    # issue 23: "memory growth on every visible GPU" and then "no GPU for it to apply to"
    setup = apply_options(make_options(memory="growth"), tf=fake_tf(gpus=0)[0], environ={})
    assert not any("memory growth" in line for line in setup.applied)
    assert any("no GPU for it to apply to" in w for w in setup.warnings)


def test_setup_precision_mixed_without_a_gpu_is_honoured_and_auto_stays_float32():
    mixed = apply_options(make_options(precision="mixed"), tf=fake_tf(gpus=0)[0], environ={})
    assert mixed.precision_policy == "mixed_bfloat16" and any("AMX" in w for w in mixed.warnings)
    auto = apply_options(make_options(precision="auto"), tf=fake_tf(gpus=0)[0], environ={})
    assert auto.precision_policy == "float32"
