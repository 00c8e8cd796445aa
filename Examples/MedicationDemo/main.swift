print("MedicationDemo: pending")
