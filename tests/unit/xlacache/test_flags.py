from tfgpu.xlacache.flags import flag_names, merge_flags, safe_value


def test_merge_flags_appends_ours_after_the_users_untouched():
    merged = merge_flags(
        {"TF_XLA_FLAGS": "  --tf_xla_auto_jit=2  "}, {"TF_XLA_FLAGS": [("tf_xla_persistent_cache_directory", "/c")]}
    )
    assert merged.variables == {"TF_XLA_FLAGS": "--tf_xla_auto_jit=2 --tf_xla_persistent_cache_directory=/c"}
    assert merged.kept == ()


def test_merge_flags_when_the_user_set_the_same_flag_keeps_theirs_and_says_so():
    merged = merge_flags(
        {"TF_XLA_FLAGS": "--tf_xla_persistent_cache_read_only=false"},
        {"TF_XLA_FLAGS": [("tf_xla_persistent_cache_read_only", "true"), ("tf_xla_persistent_cache_directory", "/c")]},
    )
    assert merged.variables["TF_XLA_FLAGS"] == (
        "--tf_xla_persistent_cache_read_only=false --tf_xla_persistent_cache_directory=/c"
    )
    assert merged.kept == ("TF_XLA_FLAGS: --tf_xla_persistent_cache_read_only",)


def test_merge_flags_with_nothing_to_add_exports_nothing():
    merged = merge_flags({"XLA_FLAGS": "--xla_x=1"}, {"XLA_FLAGS": [("xla_x", "2")]})
    assert merged.variables == {}
    assert merged.kept == ("XLA_FLAGS: --xla_x",)


def test_flag_names_ignores_words_that_are_not_flags():
    assert flag_names("--a=1 b -c --d") == {"a", "d"}


def test_safe_value_refuses_what_would_split_the_flags_string():
    assert safe_value("/home/me/.cache/tfgpu/xla/0123")
    for bad in ("/a b", "/a'b", '/a"b', "/a\\b", "/a\tb"):
        assert not safe_value(bad)
