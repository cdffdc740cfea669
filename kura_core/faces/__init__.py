"""The faces: what a person or an agent talks to. The command line (``cli``), the HTTP
server (``http``, on the connection loop ``httpd``, which knows framing and nothing of kura)
and the MCP server (``mcp``). Each parses its input, calls one method of
:class:`kura_core.kura.Kura`, and renders what comes back; none reaches below ``Kura``.
The full-screen app (``kura_tui``) is a face too, in a package of its own."""
