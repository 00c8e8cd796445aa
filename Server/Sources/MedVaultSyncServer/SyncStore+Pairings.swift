import Foundation
import Logging
import MedVaultSyncWire
import PostgresNIO

/// Pairings (docs/sync-server.md, "Pairings"): a new device's request, read by anyone who
/// knows its id (derived from a code the server never sees), answered once by a device of
/// a vault.
extension SyncStore {
    /// How long a pairing is kept, in seconds.
    static let pairingLifetimeSeconds = 600

    /// The most pairings pending at once on one server: anyone may start one (a new device
    /// has no token), so the address rate limit alone would let a botnet fill the table.
    static let maximumPendingPairings = 10_000

    /// Stores a new pairing request, dropping expired ones first.
    ///
    /// - Throws: ``SyncServerError/pairingExists`` when the id is taken; 429 when
    ///   ``maximumPendingPairings`` are pending.
    func createPairing(_ request: SyncPairingRequest) async throws {
        try await transaction { connection in
            try await connection.guardedQuery("DELETE FROM pairings WHERE expires_at < now()", logger: logger)
            let pending = try await connection.guardedQuery("SELECT count(*) FROM pairings", logger: logger)
            for try await count in pending.decode(Int64.self) where count >= Self.maximumPendingPairings {
                throw SyncServerError.rateLimited(retryAfterSeconds: 60)
            }
            let rows = try await connection.guardedQuery("""
                INSERT INTO pairings (pairing_id, box_key, mac, expires_at)
                VALUES (\(request.pairingID), \(request.boxKey), \(request.mac),
                        now() + make_interval(secs => \(Double(Self.pairingLifetimeSeconds))))
                ON CONFLICT (pairing_id) DO NOTHING RETURNING 1
                """, logger: logger)
            var created = false
            for try await _ in rows.decode(Int32.self) { created = true }
            guard created else { throw SyncServerError.pairingExists }
        }
    }

    /// A pairing that has not expired, or `nil`.
    func pairing(id: UUID) async throws -> SyncPairingState? {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT box_key, mac, sealed, answer_mac FROM pairings WHERE pairing_id = \(id) AND expires_at >= now()
                """, logger: logger)
            var state: SyncPairingState?
            for try await (boxKey, mac, sealed, answerMac) in rows.decode((Data, Data, Data?, Data?).self) {
                state = SyncPairingState(request: try SyncPairingRequest(pairingID: id, boxKey: boxKey, mac: mac),
                                         approval: try answerMac.map { try SyncPairingApproval(sealed: sealed, mac: $0) })
            }
            return state
        }
    }

    /// Records the answer of `deviceID` of `vaultID`, once.
    ///
    /// - Throws: ``SyncServerError/notFound`` for no such (unexpired) pairing;
    ///   ``SyncServerError/pairingAnswered`` when it was answered already;
    ///   ``SyncServerError/badToken`` when the device was revoked meanwhile.
    func answerPairing(id: UUID, _ approval: SyncPairingApproval, vaultID: UUID, deviceID: UUID) async throws {
        try await transaction { connection in
            try await Self.requireActive(vaultID: vaultID, deviceID: deviceID, connection, logger)
            let rows = try await connection.guardedQuery("""
                SELECT answer_mac IS NOT NULL FROM pairings WHERE pairing_id = \(id) AND expires_at >= now() FOR UPDATE
                """, logger: logger)
            var answered: Bool?
            for try await value in rows.decode(Bool.self) { answered = value }
            guard let answered else { throw SyncServerError.notFound }
            guard !answered else { throw SyncServerError.pairingAnswered }
            try await connection.guardedQuery("""
                UPDATE pairings SET vault_id = \(vaultID), sealed = \(approval.sealed), answer_mac = \(approval.mac)
                WHERE pairing_id = \(id)
                """, logger: logger)
        }
    }
}
