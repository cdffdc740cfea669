"""``python -m kura_core.mcp``, the form MCP host configurations use to start kura's MCP
server over stdio (the same server as ``kura mcp``). The server itself is
:mod:`kura_core.faces.mcp`; this package is only its entry, so starting it does not load
the command line."""
