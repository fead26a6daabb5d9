"""One module per subcommand, each with ``add_arguments(parser)`` and ``run(args, env) -> int``."""
