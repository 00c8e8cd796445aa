print("MedVaultBenchmarks: harness pending")
