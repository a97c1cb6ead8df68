"""The ``palace`` command line (click). Commands only: no game logic lives here."""
