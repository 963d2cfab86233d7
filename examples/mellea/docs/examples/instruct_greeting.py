# pytest: e2e, ollama, qualitative
"""Greeting example: demonstrates session.instruct() against Ollama."""

print("Hello! (a real run would call session.instruct())")
