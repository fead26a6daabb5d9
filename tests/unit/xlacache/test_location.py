import pytest

from tfgpu.model.errors import UsageError
from tfgpu.model.xla_cache import CacheMode
from tfgpu.xlacache.location import DEFAULT_LIMIT_BYTES, cache_limit_bytes, cache_mode, cache_root


def test_cache_root_follows_tfgpu_then_xdg_then_home():
    assert str(cache_root({"TFGPU_CACHE_DIR": "/t", "XDG_CACHE_HOME": "/x", "HOME": "/h"})) == "/t/xla"
    assert str(cache_root({"XDG_CACHE_HOME": "/x", "HOME": "/h"})) == "/x/tfgpu/xla"
    assert str(cache_root({"HOME": "/h"})) == "/h/.cache/tfgpu/xla"


def test_cache_mode_the_option_wins_over_the_variable():
    assert cache_mode({"TFGPU_XLA_CACHE": "read-only"}) is CacheMode.READ_ONLY
    assert cache_mode({"TFGPU_XLA_CACHE": "read-only"}, CacheMode.OFF) is CacheMode.OFF
    assert cache_mode({}) is CacheMode.ON


def test_cache_mode_with_a_bad_variable_is_a_usage_error():
    with pytest.raises(UsageError, match="TFGPU_XLA_CACHE"):
        cache_mode({"TFGPU_XLA_CACHE": "yes please"})


@pytest.mark.parametrize(("value", "expected"), [("", DEFAULT_LIMIT_BYTES), ("500M", 500 * 2**20), ("2GiB", 2 * 2**30)])
def test_cache_limit_bytes_reads_sizes(value, expected):
    assert cache_limit_bytes({"TFGPU_XLA_CACHE_LIMIT": value}) == expected


@pytest.mark.parametrize("value", ["nan", "-1G", "10", "1.5G", "2X", "99999999T"])
def test_cache_limit_bytes_refuses_what_is_not_a_sane_size(value):
    with pytest.raises(UsageError, match="TFGPU_XLA_CACHE_LIMIT"):
        cache_limit_bytes({"TFGPU_XLA_CACHE_LIMIT": value})
