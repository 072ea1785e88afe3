"""``python -m dokosim.cli ...``: the ``dokosim`` command."""
from . import main

if __name__ == "__main__":
    main()
