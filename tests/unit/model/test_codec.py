import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfgpu.model.codec import decode, encode
from tfgpu.model.facts import DriverFacts, GpuFacts, GpuProcess
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.unavailable import Unavailable

maybe_int = st.one_of(st.integers(0, 2**40), st.builds(Unavailable, st.text(), st.text()))


@given(
    index=st.integers(0, 16),
    name=st.text(),
    used=maybe_int,
    total=maybe_int,
    procs=st.lists(
        st.builds(GpuProcess, st.integers(1, 2**22), st.text(), st.one_of(st.none(), st.integers(0, 2**40)))
    ),
)
def test_gpu_facts_round_trip(index, name, used, total, procs):
    gpu = GpuFacts(index, name, "GPU-x", Unavailable("r", "s"), "9.0", total, used, processes=tuple(procs))
    assert decode(GpuFacts, encode(gpu)) == gpu


def test_finding_round_trip_and_enum_values():
    f = Finding("gpu-hot", Severity.WARNING, Section.HARDWARE, "hot")
    assert encode(f)["severity"] == "warning"
    assert decode(Finding, encode(f)) == f


@pytest.mark.parametrize("bad", [[], {"driver_version": 3, "source": "x"}, {"source": "x"}])
def test_decode_rejects_wrong_shapes(bad):
    with pytest.raises(ValueError):
        decode(DriverFacts, {**bad, "cuda_driver_version": "12.4"} if isinstance(bad, dict) else bad)


def test_finding_ids_must_be_kebab_case():
    with pytest.raises(ValueError):
        Finding("GPU_hot", Severity.OK, Section.HARDWARE, "x")
