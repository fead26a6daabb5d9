from tfgpu.model.xla_cache import CacheMode, CachePlan, CacheUse
from tfgpu.xlacache.key import key_for
from tfgpu.xlacache.session import conclude, observe
from tfgpu.xlacache.store import key_directory, read_runs, write_key
from tfgpu.xlacache.watch import OpenWatch


def active_plan(root, mode=CacheMode.ON):
    key = key_for({"tensorflow": "2.21.0"})
    directory = key_directory(root / "xla", key)
    write_key(directory, key)
    return CachePlan(mode, str(directory), key, (("TF_XLA_FLAGS", f"--x={directory}"),))


def test_open_watch_sees_the_files_opened_in_the_directory(tmp_path):
    (tmp_path / "a.pb").write_bytes(b"1")
    with OpenWatch(tmp_path) as watch:
        (tmp_path / "a.pb").read_bytes()
    assert watch.opened() == {"a.pb"}


def test_open_watch_on_a_missing_directory_cannot_say(tmp_path):
    with OpenWatch(tmp_path / "missing") as watch:
        pass
    assert watch.opened() is None


def test_observe_counts_loads_of_existing_programs_and_new_programs_as_compiled(tmp_path):
    plan = active_plan(tmp_path)
    directory = key_directory(tmp_path / "xla", plan.key)
    (directory / "old.pb").write_bytes(b"program")
    environ = {"TFGPU_CACHE_DIR": str(tmp_path)}
    with observe(plan) as observation:
        (directory / "old.pb").read_bytes()  # what TF does on a hit
        (directory / "new.pb").write_bytes(b"compiled")  # and after a miss
    assert conclude(observation, environ, "python train.py", 5.5) == CacheUse(1, 1, 5.5)
    (run,) = read_runs(tmp_path / "xla")
    assert (run.digest, run.command, run.use.compiled) == (plan.key.digest, "python train.py", 1)


def test_conclude_names_the_first_epoch_of_the_run_that_compiled(tmp_path):
    plan = active_plan(tmp_path)
    directory = key_directory(tmp_path / "xla", plan.key)
    environ = {"TFGPU_CACHE_DIR": str(tmp_path)}
    with observe(plan) as first:
        (directory / "p.pb").write_bytes(b"compiled")
    conclude(first, environ, "train", 56.0)
    with observe(plan) as second:
        (directory / "p.pb").read_bytes()
    assert conclude(second, environ, "train", 5.0) == CacheUse(0, 1, 5.0, compiling_first_epoch_seconds=56.0)


def test_conclude_in_read_only_mode_records_nothing(tmp_path):
    plan = active_plan(tmp_path, CacheMode.READ_ONLY)
    with observe(plan) as observation:
        pass
    assert conclude(observation, {"TFGPU_CACHE_DIR": str(tmp_path)}, "train", None) == CacheUse(0, 0)
    assert read_runs(tmp_path / "xla") == []


def test_observe_an_inactive_plan_has_no_use(tmp_path):
    with observe(CachePlan(CacheMode.OFF, None, None)) as observation:
        pass
    assert conclude(observation, {}, "train", 1.0) is None
