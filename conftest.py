"""pytest configuration at the repository root."""

# Importing __main__ would run the command line.
collect_ignore = ["bayesfair/__main__.py"]
