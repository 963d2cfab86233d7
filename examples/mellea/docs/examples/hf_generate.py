# pytest: e2e, huggingface
"""Local generation with a HuggingFace model (needs a GPU)."""

print("generated")
