"""`python -m agentrt` is the `agentrt` CLI."""

from agentrt.cli import main

raise SystemExit(main())
