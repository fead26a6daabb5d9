import os
import sys

print("Segmentation fault in libcudnn_engines_precompiled.so.9 (simulated)", file=sys.stderr, flush=True)
os.abort()
