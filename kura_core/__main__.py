"""``python -m kura_core``: the ``kura`` command line, for an environment whose scripts
directory is not on the path."""

from .faces.cli import main

raise SystemExit(main())
