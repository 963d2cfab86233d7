#!/usr/bin/env python
# Error
# pytest: e2e and ollama
"""An expression is not a list."""
print("x")
