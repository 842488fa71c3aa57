"""One module per CLI command, kept thin: parse options, call the domain, render."""
