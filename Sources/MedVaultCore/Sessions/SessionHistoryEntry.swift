/// One session of a patient's history with the diagnoses made in it.
public struct SessionHistoryEntry: Sendable, Hashable {
    /// The session.
    public var session: ClinicalSession
    /// Its diagnoses, oldest `diagnosedAt` first (then by id).
    public var diagnoses: [Diagnosis]

    /// Creates an entry.
    public init(session: ClinicalSession, diagnoses: [Diagnosis]) {
        self.session = session
        self.diagnoses = diagnoses
    }
}
