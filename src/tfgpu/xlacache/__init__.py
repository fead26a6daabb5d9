"""The persistent XLA cache: XLA's compiled programs kept across runs, keyed by what they were built for.

Layer: beside ``monitor`` (above ``probe``, ``system`` and ``nvml``; below ``configure``, ``launch``
and ``cli``). It never imports TensorFlow: the flags it sets are checked in a child process.
"""
