"""rankbook: a reproducible companion book on ranking evaluation."""
__version__ = "0.1.0"
