"""``python -m s2sad``: the command line (see ``s2sad.cli``)."""

from .cli import main

raise SystemExit(main())
