"""What regenerates ``results/`` from the checkout. The studies themselves live in the installed
package, ``dokosim/studies/`` (``dokosim study NAME``); ``python -m analysis.NAME`` runs the same
command. ``realism.py`` is a separate script (results/realism/)."""
