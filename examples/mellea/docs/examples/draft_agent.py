"""A draft example without the opt-in comment: it never runs (PRC402)."""

print("draft")
