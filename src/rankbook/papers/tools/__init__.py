"""The IR evaluation tools' issue reports and conventions: one module per page."""
