"""One module per area; each ``check_*`` is a pure function ``Facts -> list[Finding]``."""
