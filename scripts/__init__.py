"""Command-line entry points (`cardarena ...`)."""
