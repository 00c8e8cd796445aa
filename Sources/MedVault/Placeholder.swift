enum MedVaultPlaceholder {}
