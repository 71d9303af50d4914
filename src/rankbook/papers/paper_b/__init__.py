"""Paper B (Lin, Li and Guo, consensus measure of rankings): one module per page."""
