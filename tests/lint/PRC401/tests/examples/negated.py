# Error
# pytest: e2e, not ollama
print("x")
