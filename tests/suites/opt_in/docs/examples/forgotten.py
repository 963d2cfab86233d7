"""No opt-in comment: never collected, listed by `proctor check` (PRC402)."""
print("never runs")
