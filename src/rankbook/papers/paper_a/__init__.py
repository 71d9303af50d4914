"""Paper A (ranking evaluation metrics from a group-theoretic perspective): one module per page."""
