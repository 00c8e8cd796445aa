import Foundation
import MedVaultSyncWire
import PostgresNIO

/// What one vault may store: envelopes (never deleted, so its last sequence) and the
/// bytes of their ciphertexts and record keys.
struct VaultQuota: Sendable {
    var maximumEnvelopes = Int64.max
    var maximumBytes = Int64.max
}

extension SyncStore {
    /// Stores a batch of envelopes in one transaction and returns each one's sequence,
    /// in request order.
    ///
    /// The transaction first locks the vault's row (`UPDATE vaults … RETURNING`), so the
    /// pushes of one vault run one after another: sequences are handed out in commit
    /// order and a puller that has seen sequence n never later finds a new envelope below
    /// n. An envelope id already stored with the same bytes keeps its sequence (a retry);
    /// with other bytes the whole batch fails with ``SyncServerError/envelopeConflict``.
    /// New envelopes that would take the vault past `quota` fail the whole batch with
    /// ``SyncServerError/quotaExceeded`` (a retry of stored ones still answers).
    ///
    /// - Throws: ``SyncServerError/badToken`` when the device was revoked meanwhile.
    func push(_ envelopes: [SyncEnvelope], vaultID: UUID, deviceID: UUID, signature: SyncPushSignature? = nil,
              quota: VaultQuota = VaultQuota()) async throws -> [Int64] {
        guard !envelopes.isEmpty else { return [] }
        return try await transaction { connection in
            // The vault's row first, then the device's, as every transaction that takes
            // both (a new epoch, a revocation): no two wait for each other.
            let locked = try await connection.guardedQuery(
                "SELECT last_sequence, stored_bytes, epoch FROM vaults WHERE vault_id = \(vaultID) FOR UPDATE", logger: logger)
            var state: (sequence: Int64, bytes: Int64, epoch: Int64)?
            for try await (sequence, bytes, epoch) in locked.decode((Int64, Int64, Int64).self) { state = (sequence, bytes, epoch) }
            guard let (lastSequence, storedBytes, epoch) = state else { throw SyncServerError.notFound }
            try await Self.requireActive(vaultID: vaultID, deviceID: deviceID, connection, logger)
            var next = lastSequence

            // Envelopes already stored under these ids.
            let ids = Array(Set(envelopes.map(\.id)))
            var stored: [UUID: (sequence: Int64, recordKey: Data, ciphertext: Data)] = [:]
            let existing = try await connection.guardedQuery("""
                SELECT envelope_id, sequence, record_key, ciphertext FROM envelopes
                WHERE vault_id = \(vaultID) AND envelope_id = ANY(\(ids))
                """, logger: logger)
            for try await (id, sequence, recordKey, ciphertext) in existing.decode((UUID, Int64, Data, Data).self) {
                stored[id] = (sequence, recordKey, ciphertext)
            }

            var sequences: [Int64] = []
            sequences.reserveCapacity(envelopes.count)
            var fresh: [(sequence: Int64, envelope: SyncEnvelope)] = []
            for envelope in envelopes {
                if let previous = stored[envelope.id] {
                    guard previous.recordKey == envelope.recordKey, previous.ciphertext == envelope.ciphertext else {
                        throw SyncServerError.envelopeConflict
                    }
                    sequences.append(previous.sequence)
                    continue
                }
                next += 1
                stored[envelope.id] = (next, envelope.recordKey, envelope.ciphertext)
                fresh.append((next, envelope))
                sequences.append(next)
            }
            guard !fresh.isEmpty else { return sequences }
            // New envelopes are sealed in the vault's current epoch: one sealed before a
            // revocation under keys the revoked device holds is refused, and its device
            // re-seals it. A retry of one stored before (above) still answers.
            for item in fresh where Int64(item.envelope.epoch) != epoch {
                throw Int64(item.envelope.epoch) < epoch
                    ? SyncServerError.staleEpoch : SyncServerError.badRequest("An envelope names an epoch the vault has not reached.")
            }
            // Envelopes are never deleted: the last sequence is the vault's envelope count.
            let freshBytes = fresh.reduce(Int64(0)) { $0 + Int64($1.envelope.ciphertext.count + $1.envelope.recordKey.count) }
            guard next <= quota.maximumEnvelopes, storedBytes + freshBytes <= quota.maximumBytes else {
                throw SyncServerError.quotaExceeded
            }

            // The push's signature, kept for the receivers to check (the server checks nothing
            // of it: it cannot make one, and a wrong one only gets its envelopes refused).
            var signatureID: Int64?
            if let signature {
                let rows = try await connection.guardedQuery("""
                    INSERT INTO push_signatures (vault_id, signer, epoch, entries, certificate, signature)
                    VALUES (\(vaultID), \(signature.signer), \(Int64(signature.epoch)), \(signature.entries),
                            \(try Self.encode(signature.certificate)), \(signature.signature))
                    RETURNING id
                    """, logger: logger)
                for try await id in rows.decode(Int64.self) { signatureID = id }
            }
            // One multi-row INSERT: 5 parameters a row, far below PostgreSQL's 65,535.
            var binds = PostgresBindings(capacity: fresh.count * 5 + 3)
            binds.append(vaultID)
            binds.append(epoch)
            binds.append(signatureID)
            var sql = """
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext, epoch, signature_id) \
                VALUES
                """
            for (index, item) in fresh.enumerated() {
                let base = binds.count
                binds.append(item.sequence)
                binds.append(item.envelope.id)
                try binds.append(item.envelope.recordKey)
                binds.append(deviceID)
                try binds.append(item.envelope.ciphertext)
                sql += (index == 0 ? "" : ", ")
                    + "($1, $\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5), $2, $3)"
            }
            try await connection.guardedQuery(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            try await connection.guardedQuery("""
                UPDATE vaults SET last_sequence = \(next), stored_bytes = stored_bytes + \(freshBytes)
                WHERE vault_id = \(vaultID)
                """, logger: logger)
            return sequences
        }
    }

    /// One page of envelopes after `after`, in sequence order: a range scan of the
    /// primary key (vault_id, sequence).
    func pull(vaultID: UUID, after: Int64, limit: Int, maximumBytes: Int) async throws -> SyncPullResponse {
        try await withConnection { connection in
            let rows = try await connection.guardedQuery("""
                SELECT sequence, device_id, envelope_id, record_key, ciphertext, epoch, signature_id FROM envelopes
                WHERE vault_id = \(vaultID) AND sequence > \(after)
                ORDER BY sequence LIMIT \(Int64(limit) + 1)
                """, logger: logger)
            var page: [SyncPulledEnvelope] = []
            var bytes = 0
            var hasMore = false
            var signatureIDs: [Int64] = []
            var signatureIndex: [Int64: Int] = [:]
            for try await (sequence, device, id, recordKey, ciphertext, epoch, signatureID)
                in rows.decode((Int64, UUID, UUID, Data, Data, Int64, Int64?).self) {
                // Once the page is cut, every later row stays out too: a smaller envelope
                // after a large one (an attachment's metadata after its chunks) must not
                // slip in, or the cursor would jump over the rows left out.
                if hasMore || page.count == limit || (!page.isEmpty && bytes + ciphertext.count > maximumBytes) {
                    hasMore = true
                    continue // drain the rows so the connection returns to the pool clean
                }
                bytes += ciphertext.count
                let index = signatureID.map { signatureID in
                    signatureIndex[signatureID] ?? {
                        signatureIDs.append(signatureID)
                        signatureIndex[signatureID] = signatureIDs.count - 1
                        return signatureIDs.count - 1
                    }()
                }
                page.append(SyncPulledEnvelope(sequence: sequence, deviceID: device,
                                               envelope: try SyncEnvelope(id: id, recordKey: recordKey, ciphertext: ciphertext,
                                                                          epoch: UInt32(clamping: epoch)),
                                               signature: index))
            }
            var signatures: [SyncPushSignature] = []
            if !signatureIDs.isEmpty {
                var byID: [Int64: SyncPushSignature] = [:]
                let rows = try await connection.guardedQuery("""
                    SELECT id, signer, epoch, entries, certificate, signature FROM push_signatures
                    WHERE vault_id = \(vaultID) AND id = ANY(\(signatureIDs))
                    """, logger: logger)
                for try await (id, signer, epoch, entries, certificate, signature)
                    in rows.decode((Int64, UUID, Int64, Data, Data, Data).self) {
                    byID[id] = try SyncPushSignature(signer: signer, epoch: UInt32(clamping: epoch), entries: entries,
                                                     certificate: try Self.decodeCertificate(certificate), signature: signature)
                }
                signatures = try signatureIDs.map { id in
                    guard let signature = byID[id] else { throw SyncServerError.internalError }
                    return signature
                }
            }
            return SyncPullResponse(envelopes: page, lastSequence: page.last?.sequence ?? after, hasMore: hasMore,
                                    signatures: signatures.isEmpty ? nil : signatures)
        }
    }
}
