import Foundation

extension ClinicalSessionRepository {
    /// A patient's whole history, newest first: every page of
    /// ``history(of:after:limit:)`` read in turn.
    ///
    /// For a patient with a long history, page through ``history(of:after:limit:)``
    /// instead of holding everything at once.
    ///
    /// - Parameters:
    ///   - patientID: The patient (active or inactive).
    ///   - pageSize: Sessions per read (default 200).
    /// - Returns: Every session with its diagnoses, newest first.
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown patient; storage errors.
    public func fullHistory(of patientID: UUID, pageSize: Int = 200) async throws -> [SessionHistoryEntry] {
        var entries: [SessionHistoryEntry] = []
        var cursor: SessionHistoryCursor?
        repeat {
            let page = try await history(of: patientID, after: cursor, limit: pageSize)
            entries += page.entries
            cursor = page.nextCursor
        } while cursor != nil
        return entries
    }
}
