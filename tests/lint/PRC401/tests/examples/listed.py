# pytest: e2e, ollama
"""A list of marker names: fine."""
print("ok")
