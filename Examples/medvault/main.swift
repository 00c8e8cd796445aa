print("medvault: pending")
