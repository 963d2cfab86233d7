"""Forgotten: never runs."""  # Error
print("never runs")
