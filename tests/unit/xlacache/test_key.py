from tfgpu.xlacache.key import cpu_model, key_for, key_parts

VERSIONS = {"tensorflow": "2.21.0", "nvidia-cudnn-cu12": "9.3.0.75", "python": "CPython 3.12.3"}


def parts(**changes):
    base = {"versions": VERSIONS, "driver": "580.159.04", "gpus": ["NVIDIA H200 sm_90"], "environ": {}, "cpu": "x86_64"}
    base.update(changes)
    return key_parts(base.pop("versions"), **base)


def test_key_for_the_same_parts_is_the_same_directory_whatever_their_order():
    assert key_for(parts()).digest == key_for(dict(reversed(list(parts().items())))).digest


def test_key_for_changes_with_every_version_that_invalidates_a_program():
    digest = key_for(parts()).digest
    changed = [
        parts(versions={**VERSIONS, "tensorflow": "2.20.0"}),
        parts(versions={**VERSIONS, "nvidia-cudnn-cu12": "9.1.0.70"}),
        parts(driver="570.86.15"),
        parts(gpus=["NVIDIA A100-SXM4-80GB sm_80"]),
        parts(cpu="aarch64"),
        parts(environ={"XLA_FLAGS": "--xla_gpu_autotune_level=1"}),
        parts(environ={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"}),
        parts(environ={"LD_LIBRARY_PATH": "/usr/local/cuda/lib64"}),
    ]
    digests = {key_for(p).digest for p in changed}
    assert digest not in digests
    assert len(digests) == len(changed)


def test_key_parts_names_what_it_was_made_of():
    key = key_for(parts())
    assert key.part("tensorflow") == "2.21.0"
    assert key.part("gpus") == "NVIDIA H200 sm_90"
    assert key.part("driver") == "580.159.04"
    assert key.part("XLA_FLAGS") is None


def test_cpu_model_reads_the_model_and_digests_the_flags(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC 9654\nflags\t\t: fpu avx512f\n")
    first = cpu_model(info)
    assert "AMD EPYC 9654" in first
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC 9654\nflags\t\t: fpu\n")
    assert cpu_model(info) != first


def test_cpu_model_without_cpuinfo_falls_back_to_the_machine(tmp_path):
    assert cpu_model(tmp_path / "missing")
