/// Every workload, in table order.
enum WorkloadRegistry {
    static let all: [any Workload] = [
        BulkInsertWorkload(),
        OpenWorkload(),
        VaultOpenWorkload(),
        HistoryWorkload(),
        SearchWorkload(),
        NoteSearchWorkload(),
        WriteLatencyWorkload(),
        GetUpdateWorkload(),
        ConcurrencyWorkload(),
        MedicationWorkload(),
        UnlockWorkload(),
        PasswordChangeWorkload(),
        RotationWorkload(),
        BackupWorkload(),
        ScaleWorkload(),
        AttachmentMemoryWorkload(),
        AuditVerifyWorkload(),
        SealingWorkload(),
        SyncCloneWorkload(),
    ]

    /// The workloads named in `only` (case-insensitive), or all of them.
    ///
    /// - Throws: ``BenchmarkError`` naming an identifier that matches no workload.
    static func select(only: [String]?) throws -> [any Workload] {
        guard let only, !only.isEmpty else { return all }
        let wanted = Set(only.map { $0.uppercased() })
        let known = Set(all.map { $0.id.uppercased() })
        if let unknown = wanted.subtracting(known).sorted().first {
            throw BenchmarkError("unknown workload \(unknown); known: \(all.map(\.id).joined(separator: ", "))")
        }
        return all.filter { wanted.contains($0.id.uppercased()) }
    }
}
