"""``python -m hydrocalc``: the same command line as the ``hydrocalc`` script."""

from hydrocalc.cli import main

if __name__ == "__main__":
    main()
