"""``python -m kura_core.mcp``: the MCP server over stdio (see :mod:`kura_core.faces.mcp`)."""

from ..faces.mcp import main

raise SystemExit(main())
