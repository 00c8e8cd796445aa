print("CrashProbe")
