"""Runs at the start of the child interpreter of ``tfgpu run`` (its directory is on PYTHONPATH).

It starts the phase recorder (launch/phase_recorder.py: when the training's phases begin and
end, measured in the process itself) and applies the options that need code (precision, XLA, TF32, split, memory limits) by calling
the configure layer once TensorFlow has been imported by the user's own code, instead of
importing TF into every Python process the command starts. Being first on PYTHONPATH, it
shadows any other sitecustomize (a virtualenv's, a site's), so it runs that one too.

Nothing else of the tool's environment enters the child: ``tfgpu`` itself is found by a finder
that answers for that one package (from TFGPU_PACKAGE_PARENT, after every other finder, so a
tfgpu of the training environment wins), and this directory leaves ``sys.path`` once it has run.
The training environment's NumPy, TensorFlow and the user's own PYTHONPATH entries stay first.
"""

import builtins
import importlib.machinery
import importlib.util
import os
import sys


def _initializing(name: str) -> bool:
    module = sys.modules.get(name)
    return module is not None and bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


def _ready() -> bool:
    """TensorFlow has finished importing, and Keras is not halfway through its own import.

    `import keras` imports TensorFlow inside it: calling the setup then (it touches tf.keras,
    and the batch norm option patches Keras) meets a partially initialised keras module
    ("AttributeError: partially initialized module 'keras'"), which crashed the user's script.
    The outer `import keras` returns through the hook too, and the setup runs then.
    """
    tf = sys.modules.get("tensorflow")
    return tf is not None and not _initializing("tensorflow") and hasattr(tf, "config") and not _initializing("keras")


def _apply_after_tensorflow_import() -> None:
    original = builtins.__import__
    state = {"done": False}

    def hook(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        module = original(name, *args, **kwargs)
        # Only once `import tensorflow` has finished: TF's own imports of its submodules run
        # while the package is still initialising and must not trigger the setup.
        if not state["done"] and _ready():
            state["done"] = True
            builtins.__import__ = original
            from tfgpu.configure.apply import apply_options, options_from_environment

            options = options_from_environment(os.environ)
            if options is not None:
                setup = apply_options(options)
                print(setup.summary(), file=sys.stderr)
                if setup.num_replicas > 1:
                    # The strategy exists, but an unmodified script never enters its scope, and entering
                    # it for the whole run breaks Keras's fit() (an AssertionError in the optimizer's
                    # distributed update, seen with Keras 3.15): say what the script really gets.
                    print(
                        f"tfgpu run: the devices are ready, but an unmodified script trains on the default "
                        f"strategy (1 replica). To use all {setup.num_replicas}: s = tfgpu.setup(...) in the "
                        "script and build the model inside `with s.scope():` (tf.distribute.get_strategy() "
                        "there is the strategy above).",
                        file=sys.stderr,
                    )
        return module

    builtins.__import__ = hook


class _TfgpuFinder:
    """Finds the top-level ``tfgpu`` package in one directory; its submodules follow its ``__path__``."""

    def __init__(self, parent: str) -> None:
        self.parent = parent

    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name != "tfgpu":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [self.parent])


def _leave_sys_path() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]


def _run_the_shadowed_sitecustomize() -> None:
    """Execute the next sitecustomize on sys.path, as Python would have without this one.

    Its errors propagate, so site.py reports them as it would have ("Error in sitecustomize").
    """
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


if os.environ.get("TFGPU_PACKAGE_PARENT"):
    sys.meta_path.append(_TfgpuFinder(os.environ["TFGPU_PACKAGE_PARENT"]))
if os.environ.get("TFGPU_PHASES_FILE"):
    from tfgpu.launch.phase_recorder import start

    start()
if os.environ.get("TFGPU_SETUP_JSON"):
    _apply_after_tensorflow_import()
_run_the_shadowed_sitecustomize()
_leave_sys_path()
