import sys

print("exiting without writing the envelope", file=sys.stderr)
sys.exit(0)
