"""The argparse front end.

Layer rule: cli may import every tfgpu layer; nothing imports cli. Subcommands are imported
lazily, so ``tfgpu --help`` loads neither TensorFlow nor NVML.
"""
