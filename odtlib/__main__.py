from odtlib.cli import main

raise SystemExit(main())
