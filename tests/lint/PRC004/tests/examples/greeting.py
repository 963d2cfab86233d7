# Error
# pytest: llm, slow
"""An example opted in with the deprecated alias: --fix renames it in the comment."""
print("hello")
