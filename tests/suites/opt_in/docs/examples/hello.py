# pytest: e2e
"""Greeting example: runs clean, so it passes."""
print("hello from an example")
