print("ClinicDemo: not yet")
