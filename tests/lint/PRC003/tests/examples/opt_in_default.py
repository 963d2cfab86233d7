# Error
# pytest: unit
"""An example that opts in with the default tier: flagged, without a fix."""
print("ok")
