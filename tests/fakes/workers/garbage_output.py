import sys

out = sys.argv[sys.argv.index("--output") + 1]
with open(out, "wb") as fh:
    fh.write(b"\x00\xff{not json")
