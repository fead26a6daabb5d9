"""Runs at the start of the child interpreter of ``tfgpu run`` (its directory is on PYTHONPATH).

It applies the options that need code (precision, XLA, TF32, split, memory limits) by calling
the configure layer once TensorFlow has been imported by the user's own code, instead of
importing TF into every Python process the command starts.
"""

import builtins
import os
import sys


def _apply_after_tensorflow_import() -> None:
    original = builtins.__import__
    state = {"done": False}

    def hook(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        module = original(name, *args, **kwargs)
        # Only once `import tensorflow` has finished: TF's own imports of its submodules run
        # while the package is still initialising and must not trigger the setup.
        spec = getattr(module, "__spec__", None)
        if (
            not state["done"]
            and name == "tensorflow"
            and not getattr(spec, "_initializing", False)
            and hasattr(module, "config")
        ):
            state["done"] = True
            builtins.__import__ = original
            from tfgpu.configure.apply import apply_options, options_from_environment

            options = options_from_environment(os.environ)
            if options is not None:
                print(apply_options(options).summary(), file=sys.stderr)
        return module

    builtins.__import__ = hook


if os.environ.get("TFGPU_SETUP_JSON"):
    _apply_after_tensorflow_import()
