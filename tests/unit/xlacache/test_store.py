import os

from tfgpu.model.xla_cache import CacheRun, CacheUse
from tfgpu.xlacache.key import key_for
from tfgpu.xlacache.store import (
    MAX_RUNS,
    RUNS_FILE,
    clear,
    evict,
    first_written,
    key_directory,
    mark_used,
    read_directories,
    read_runs,
    record_run,
    snapshot,
    write_key,
)


def program(directory, name, size, used):
    path = directory / f"xla_compile_cache__{name}__1__GPU.pb"
    path.write_bytes(b"x" * size)
    os.utime(path, (used, used))
    return path


def keyed(root, version):
    key = key_for({"tensorflow": version})
    directory = key_directory(root, key)
    write_key(directory, key)
    return directory


def test_read_directories_lists_each_key_with_its_programs(tmp_path):
    directory = keyed(tmp_path, "2.21.0")
    program(directory, "a", 100, 1000)
    program(directory, "b", 50, 2000)
    (listing,) = read_directories(tmp_path)
    assert listing.key.part("tensorflow") == "2.21.0"
    assert (listing.programs, listing.size_bytes, listing.last_used_unix) == (2, 150, 2000)


def test_evict_removes_the_longest_unused_programs_of_other_keys_first(tmp_path):
    old, current = keyed(tmp_path, "2.20.0"), keyed(tmp_path, "2.21.0")
    oldest = program(old, "old", 100, 1000)
    kept_old = program(old, "newer", 100, 5000)
    mine = program(current, "mine", 100, 10)  # older than everything, but the current key's
    removed = evict(tmp_path, limit_bytes=200, keep=current)
    assert removed == 100
    assert not oldest.exists()
    assert kept_old.exists() and mine.exists()


def test_evict_removes_a_key_directory_left_empty_but_never_the_current_one(tmp_path):
    old, current = keyed(tmp_path, "2.20.0"), keyed(tmp_path, "2.21.0")
    program(old, "old", 100, 1000)
    evict(tmp_path, limit_bytes=0, keep=current)
    assert not old.exists()
    assert current.exists()


def test_evict_under_the_limit_removes_nothing(tmp_path):
    directory = keyed(tmp_path, "2.21.0")
    path = program(directory, "a", 100, 1000)
    assert evict(tmp_path, limit_bytes=100, keep=None) == 0
    assert path.exists()


def test_mark_used_makes_a_loaded_program_the_last_to_go(tmp_path):
    directory = keyed(tmp_path, "2.21.0")
    loaded = program(directory, "loaded", 100, 1000)
    other = program(directory, "other", 100, 2000)
    mark_used(directory, [loaded.name])
    evict(tmp_path, limit_bytes=100, keep=None)
    assert loaded.exists() and not other.exists()


def test_first_written_is_the_earliest_of_the_named_programs_only(tmp_path):
    directory = keyed(tmp_path, "2.21.0")
    old = program(directory, "old", 10, 500)
    names = [program(directory, "b", 10, 3000).name, program(directory, "a", 10, 2000).name]
    assert first_written(directory, names) == 2000
    assert first_written(directory, []) is None and old.exists()


def test_clear_deletes_only_what_tfgpu_recognises(tmp_path):
    directory = keyed(tmp_path, "2.21.0")
    program(directory, "a", 100, 1000)
    theirs = tmp_path / "notes.txt"
    theirs.write_text("mine")
    foreign_dir = tmp_path / "not-a-key"
    foreign_dir.mkdir()
    (foreign_dir / "x.pb").write_text("keep")
    stray = directory / "their-file"
    stray.write_text("keep")
    record_run(tmp_path, CacheRun(1.0, "d", "cmd", CacheUse(1, 0)))
    assert clear(tmp_path) == 100
    assert theirs.exists() and (foreign_dir / "x.pb").exists() and stray.exists()
    assert not (tmp_path / RUNS_FILE).exists()
    assert snapshot(directory) == frozenset()


def test_record_run_keeps_the_newest_runs_and_reads_them_back(tmp_path):
    for number in range(MAX_RUNS + 5):
        record_run(tmp_path, CacheRun(float(number), "d", f"cmd {number}", CacheUse(number, None, 1.5)))
    runs = read_runs(tmp_path)
    assert len(runs) == MAX_RUNS
    assert runs[-1] == CacheRun(float(MAX_RUNS + 4), "d", f"cmd {MAX_RUNS + 4}", CacheUse(MAX_RUNS + 4, None, 1.5))


def test_read_runs_skips_lines_that_are_not_runs(tmp_path):
    record_run(tmp_path, CacheRun(1.0, "d", "cmd", CacheUse(2, 3)))
    with (tmp_path / RUNS_FILE).open("a") as handle:
        handle.write("not json\n{}\n[1]\n")
    assert [r.use for r in read_runs(tmp_path)] == [CacheUse(2, 3)]
