# pytest: e2e
"""Opted in."""
print("runs")
