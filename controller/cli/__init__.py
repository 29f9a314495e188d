"""The ``croupier`` command line: :mod:`controller.cli.main` and one module per command."""
