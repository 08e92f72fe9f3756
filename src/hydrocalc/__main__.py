import sys
from hydrocalc.cli import main
sys.exit(main())
