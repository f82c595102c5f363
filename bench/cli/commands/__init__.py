"""One module per ``bench`` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""
