print("no opt-in: PRC402, not this rule")
