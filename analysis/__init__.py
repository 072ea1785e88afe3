"""What regenerates ``results/`` from the checkout. The studies themselves live in the installed
package, ``dokosim/studies/`` (``dokosim study NAME``); ``python -m analysis.NAME`` runs the same
command. ``realism.py`` is a separate script (results/realism/)."""
import sys


def script_main(study: str) -> None:
    """Run ``dokosim study <study>`` with the options of sys.argv (its messages name that command)."""
    from dokosim.cli import main
    main(["study", study, *sys.argv[1:]], prog_name="dokosim")
