"""``python -m analysis.<study>`` (or ``python -m dokosim.studies.<study>``): the same as
``dokosim study <study>``, with the same options and errors."""
from __future__ import annotations

import sys


def script_main(study: str) -> None:
    """Run ``dokosim study <study>`` with the options of sys.argv."""
    from dokosim.cli import main
    main(["study", study, *sys.argv[1:]], prog_name="dokosim")  # its messages name the same command
