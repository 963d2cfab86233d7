# pytest: integration, fast
"""An example with markers that may be written."""
print("ok")
