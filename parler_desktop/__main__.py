from parler_desktop.cli import main

raise SystemExit(main())
