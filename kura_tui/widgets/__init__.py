"""The panes and small widgets of kura's TUI."""
