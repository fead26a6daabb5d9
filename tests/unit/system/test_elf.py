import pytest
from tests.fakes.elf import write_elf

from tfgpu.system.elf import ElfError, expand_origin, read_dynamic, read_symbols


def test_read_dynamic_returns_soname_needed_and_deduplicated_runpath(tmp_path):
    lib = write_elf(
        tmp_path / "libx.so.1",
        soname="libx.so.1",
        needed=("libc.so.6", "libm.so.6"),
        runpath="$ORIGIN/../a:$ORIGIN/../b:$ORIGIN/../a",
    )
    info = read_dynamic(str(lib))
    assert info.soname == "libx.so.1"
    assert info.needed == ("libc.so.6", "libm.so.6")
    assert info.runpath == ("$ORIGIN/../a", "$ORIGIN/../b")
    assert info.rpath == ()


def test_read_dynamic_without_runpath(tmp_path):
    assert read_dynamic(str(write_elf(tmp_path / "liby.so", soname="liby.so"))).runpath == ()


@pytest.mark.parametrize("read", [read_dynamic, read_symbols])
@pytest.mark.parametrize("content", [b"", b"not an elf at all", b"\x7fELF\x02\x01\x01" + bytes(20)])
def test_both_readers_reject_non_elf_and_truncated_files(tmp_path, content, read):
    bad = tmp_path / "bad.so"
    bad.write_bytes(content)
    with pytest.raises(ElfError):
        read(str(bad))


def test_expand_origin_handles_both_spellings():
    assert expand_origin("${ORIGIN}/lib", "/a/b/c.so") == "/a/b/lib"
    assert expand_origin("$ORIGIN/../x", "/a/b/c.so") == "/a/x"


def test_read_symbols_returns_what_an_object_defines_and_binds_by_the_file_its_version_names(tmp_path):
    lib = write_elf(
        tmp_path / "libloader.so",
        soname="libloader.so",
        defines=("loader_api", "loader_helper"),
        binds={"libnvJitLink.so.12": ("__nvJitLinkCreate_12_5",), "libc.so.6": ("malloc", "free")},
    )
    symbols = read_symbols(str(lib))
    assert symbols.defined == {"loader_api", "loader_helper"}
    assert symbols.needed == {"libnvJitLink.so.12": {"__nvJitLinkCreate_12_5"}, "libc.so.6": {"malloc", "free"}}


def test_read_symbols_of_an_object_without_a_symbol_table_is_empty(tmp_path):
    symbols = read_symbols(str(write_elf(tmp_path / "libz.so", soname="libz.so")))
    assert symbols.defined == frozenset() and symbols.needed == {}
