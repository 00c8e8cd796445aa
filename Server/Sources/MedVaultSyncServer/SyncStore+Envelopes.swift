import Crypto
import Foundation
import Logging
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
            let vault = (id: vaultID, lastSequence: lastSequence, storedBytes: storedBytes, epoch: epoch)
            if let sequences = try await Self.pushAsNew(envelopes, vault: vault, deviceID: deviceID, signature: signature,
                                                        quota: quota, connection, logger) {
                return sequences
            }
            var next = lastSequence

            // A retry (or a push naming one id twice): the envelopes already stored under these ids.
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
            // Envelopes are never deleted: the last sequence is the vault's envelope count. A
            // push's signature counts against the quota too.
            let freshBytes = Self.bytes(of: fresh, signature: signature)
            guard next <= quota.maximumEnvelopes, storedBytes + freshBytes <= quota.maximumBytes else {
                throw SyncServerError.quotaExceeded
            }
            // Under the vault's row lock, none of `fresh` can have been stored meanwhile.
            guard try await Self.store(fresh, freshBytes: freshBytes, vault: vault, deviceID: deviceID,
                                       signature: signature, allEnvelopes: envelopes, connection, logger) else {
                throw SyncServerError.internalError
            }
            return sequences
        }
    }

    /// The vault a push goes to, as its row lock read it.
    typealias LockedVault = (id: UUID, lastSequence: Int64, storedBytes: Int64, epoch: Int64)

    /// Stores `envelopes` as new ones numbered after the vault's last, in the caller's
    /// transaction, when they are: the push's sequences, or `nil` (nothing changed) when
    /// one of its ids is stored already, it names an id twice, an envelope is not of the
    /// vault's epoch, or the quota would be passed counting them all as new. The caller
    /// then takes the path that reads what is stored (a retry's).
    ///
    /// A push is new envelopes unless it is a retry, so this is tried first, under a
    /// savepoint: the insert itself finds a stored id (`ON CONFLICT … DO NOTHING` on the
    /// unique index of (vault_id, envelope_id)), and no statement reads the vault's
    /// envelopes. A look-up first (`envelope_id = ANY(…)`), planned with statistics taken
    /// while the vault was small or did not exist yet (a first push of a whole clinic adds
    /// 210,000 envelopes long before autovacuum analyses), read every envelope of the
    /// vault and filtered them by id, for every push (SyncPushCostTests).
    static func pushAsNew(_ envelopes: [SyncEnvelope], vault: LockedVault, deviceID: UUID,
                          signature: SyncPushSignature?, quota: VaultQuota,
                          _ connection: PostgresConnection, _ logger: Logger) async throws -> [Int64]? {
        guard Set(envelopes.map(\.id)).count == envelopes.count,
              envelopes.allSatisfy({ Int64($0.epoch) == vault.epoch }) else { return nil }
        let fresh = envelopes.enumerated().map { (sequence: vault.lastSequence + Int64($0.offset) + 1, envelope: $0.element) }
        let freshBytes = bytes(of: fresh, signature: signature)
        guard vault.lastSequence + Int64(envelopes.count) <= quota.maximumEnvelopes,
              vault.storedBytes + freshBytes <= quota.maximumBytes else { return nil }
        // A signature the old path would refuse, it refuses only when something new is to
        // be stored: a retry of stored envelopes still answers. So a refusal here leaves
        // the push to that path, which decides.
        do {
            try await checkSignature(signature, envelopes: envelopes, vault: vault, deviceID: deviceID, connection, logger)
        } catch let refused as SyncServerError {
            logger.debug("push: signature refused as new envelopes (\(refused)); reading what is stored")
            return nil
        }
        try await connection.guardedQuery("SAVEPOINT push_as_new", logger: logger)
        guard try await store(fresh, freshBytes: freshBytes, vault: vault, deviceID: deviceID, signature: signature,
                              signatureChecked: true, allEnvelopes: envelopes, connection, logger) else {
            try await connection.guardedQuery("ROLLBACK TO SAVEPOINT push_as_new", logger: logger)
            try await connection.guardedQuery("RELEASE SAVEPOINT push_as_new", logger: logger)
            return nil
        }
        try await connection.guardedQuery("RELEASE SAVEPOINT push_as_new", logger: logger)
        return fresh.map(\.sequence)
    }

    /// The bytes new envelopes and the push's signature add to the vault's quota.
    static func bytes(of fresh: [(sequence: Int64, envelope: SyncEnvelope)], signature: SyncPushSignature?) -> Int64 {
        fresh.reduce(Int64(0)) { $0 + Int64($1.envelope.ciphertext.count + $1.envelope.recordKey.count) }
            + Int64(signature.map { $0.entries.count + SyncStore.signatureOverhead } ?? 0)
    }

    /// Checks and stores the push's signature, inserts `fresh`, and moves the vault's last
    /// sequence and stored bytes; `false`, with the insert having skipped some, when one
    /// of `fresh` was stored already (the caller rolls back).
    private static func store(_ fresh: [(sequence: Int64, envelope: SyncEnvelope)], freshBytes: Int64,
                              vault: LockedVault, deviceID: UUID, signature: SyncPushSignature?,
                              signatureChecked: Bool = false, allEnvelopes: [SyncEnvelope],
                              _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        if !signatureChecked {
            try await checkSignature(signature, envelopes: allEnvelopes, vault: vault, deviceID: deviceID,
                                     connection, logger)
        }
        var signatureID: Int64?
        if let signature {
            let rows = try await connection.guardedQuery("""
                INSERT INTO push_signatures (vault_id, signer, epoch, entries, certificate, signature)
                VALUES (\(vault.id), \(signature.signer), \(Int64(signature.epoch)), \(signature.entries),
                        \(try encode(signature.certificate)), \(signature.signature))
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { signatureID = id }
        }
        let inserted = try await insert(fresh, vaultID: vault.id, deviceID: deviceID, epoch: vault.epoch,
                                        signatureID: signatureID, connection, logger)
        guard inserted == fresh.count, let last = fresh.last?.sequence else { return false }
        try await connection.guardedQuery("""
            UPDATE vaults SET last_sequence = \(last), stored_bytes = stored_bytes + \(freshBytes)
            WHERE vault_id = \(vault.id)
            """, logger: logger)
        return true
    }

    /// The push's signature, kept for the receivers to check. Required from epoch 1, and
    /// checked so that nothing the devices would refuse is stored: the pushing device's,
    /// of the vault's epoch, listing exactly this push's envelopes, with the device's
    /// stored certificate, and verifying under it.
    private static func checkSignature(_ signature: SyncPushSignature?, envelopes: [SyncEnvelope], vault: LockedVault,
                                       deviceID: UUID, _ connection: PostgresConnection,
                                       _ logger: Logger) async throws {
        guard vault.epoch > 0 || signature != nil else { return }
        guard let signature else {
            throw SyncServerError.badRequest("A push to a vault with sync epochs is signed by its device.")
        }
        try await check(signature, envelopes: envelopes, vaultID: vault.id, deviceID: deviceID, epoch: vault.epoch,
                        connection, logger)
    }

    /// Inserts a push's new envelopes in one statement of eight parameters whatever their
    /// number: the columns travel as arrays and `unnest` turns them back into rows. The
    /// statement's text never changes, so PostgreSQL parses and plans a short statement;
    /// the multi-row `VALUES` it replaces (2,503 parameters for 500 rows, a new text per
    /// row count) made PostgreSQL use about a fifth more CPU for a push of 500
    /// (docs/benchmarks-method.md, "The HTTP client and the push").
    ///
    /// - Returns: How many were inserted: an envelope whose id the vault holds already is
    ///   skipped (`ON CONFLICT … DO NOTHING`), not an error.
    static func insert(_ fresh: [(sequence: Int64, envelope: SyncEnvelope)], vaultID: UUID, deviceID: UUID,
                       epoch: Int64, signatureID: Int64?, _ connection: PostgresConnection,
                       _ logger: Logger) async throws -> Int {
        var sequences: [Int64] = []
        var ids: [UUID] = []
        var recordKeys: [ByteBuffer] = []
        var ciphertexts: [ByteBuffer] = []
        sequences.reserveCapacity(fresh.count)
        ids.reserveCapacity(fresh.count)
        recordKeys.reserveCapacity(fresh.count)
        ciphertexts.reserveCapacity(fresh.count)
        for item in fresh {
            sequences.append(item.sequence)
            ids.append(item.envelope.id)
            recordKeys.append(ByteBuffer(bytes: item.envelope.recordKey))
            ciphertexts.append(ByteBuffer(bytes: item.envelope.ciphertext))
        }
        let rows = try await connection.guardedQuery("""
            WITH stored AS (
                INSERT INTO envelopes (vault_id, sequence, envelope_id, record_key, device_id, ciphertext, epoch, signature_id)
                SELECT \(vaultID), row.sequence, row.envelope_id, row.record_key, \(deviceID), row.ciphertext, \(epoch),
                       \(signatureID)
                FROM unnest(\(sequences)::bigint[], \(ids)::uuid[], \(recordKeys)::bytea[], \(ciphertexts)::bytea[])
                     AS row(sequence, envelope_id, record_key, ciphertext)
                ON CONFLICT (vault_id, envelope_id) DO NOTHING
                RETURNING 1
            )
            SELECT count(*) FROM stored
            """, logger: logger)
        var inserted: Int64 = 0
        for try await count in rows.decode(Int64.self) { inserted = count }
        return Int(inserted)
    }

    /// One page of envelopes after `after`, in sequence order: a range scan of the
    /// primary key (vault_id, sequence). See ``pullPage(_:logger:vaultID:after:limit:maximumBytes:)``.
    func pull(vaultID: UUID, after: Int64, limit: Int, maximumBytes: Int) async throws -> SyncPullResponse {
        try await withConnection { connection in
            try await Self.pullPage(connection, logger: logger, vaultID: vaultID, after: after, limit: limit,
                                    maximumBytes: maximumBytes)
        }
    }

    /// One page of envelopes after `after` on `connection`: at most `limit` envelopes and,
    /// past the first, at most `maximumBytes` of ciphertexts and of the signatures the page
    /// carries (each counted once, with the first envelope that names it).
    ///
    /// Two statements: the sizes of the `limit + 1` candidates first (`octet_length` reads
    /// a stored value's size without reading the value), the page cut from them, then the
    /// bodies of the envelopes kept only, as one range of the primary key. A pull of 1 MiB
    /// envelopes so reads about the 4 MiB it sends, not the 500 MiB of 501 candidates.
    /// Every envelope up to the last one kept was committed before the first statement
    /// (a vault's pushes commit in sequence order), so the second finds exactly those.
    static func pullPage(_ connection: PostgresConnection, logger: Logger, vaultID: UUID, after: Int64, limit: Int,
                         maximumBytes: Int) async throws -> SyncPullResponse {
        var kept: [Int64] = []
        var bytes = 0
        var hasMore = false
        var counted = Set<Int64>()
        let sizes = try await connection.guardedQuery(
            sizesQuery(vaultID: vaultID, after: after, limit: limit), logger: logger)
        for try await (sequence, size, signatureID, entriesLength)
            in sizes.decode((Int64, Int32, Int64?, Int32?).self) {
            // Once the page is cut, every later row stays out too: a smaller envelope
            // after a large one (an attachment's metadata after its chunks) must not
            // slip in, or the cursor would jump over the rows left out.
            let signatureBytes = signatureID.map { counted.contains($0) ? 0 : Int(entriesLength ?? 0) + signatureOverhead } ?? 0
            if hasMore || kept.count == limit || (!kept.isEmpty && bytes + Int(size) + signatureBytes > maximumBytes) {
                hasMore = true
                continue // drain the rows so the connection returns to the pool clean
            }
            bytes += Int(size) + signatureBytes
            if let signatureID { counted.insert(signatureID) }
            kept.append(sequence)
        }
        guard let last = kept.last else {
            return SyncPullResponse(envelopes: [], lastSequence: after, hasMore: false, signatures: nil)
        }

        var page: [SyncPulledEnvelope] = []
        var signatureIDs: [Int64] = []
        var signatureIndex: [Int64: Int] = [:]
        let rows = try await connection.guardedQuery(
            bodiesQuery(vaultID: vaultID, after: after, through: last, limit: limit), logger: logger)
        for try await (sequence, device, id, recordKey, ciphertext, epoch, signatureID)
            in rows.decode((Int64, UUID, UUID, Data, Data, Int64, Int64?).self) {
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
        guard page.map(\.sequence) == kept else { throw SyncServerError.internalError }
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
                                                 certificate: try decodeCertificate(certificate), signature: signature)
            }
            signatures = try signatureIDs.map { id in
                guard let signature = byID[id] else { throw SyncServerError.internalError }
                return signature
            }
        }
        return SyncPullResponse(envelopes: page, lastSequence: last, hasMore: hasMore,
                                signatures: signatures.isEmpty ? nil : signatures)
    }

    /// The sizes of the `limit + 1` envelopes after `after`: no body read. A vault's
    /// sequences are dense (a push numbers its envelopes after the vault's last one under
    /// the vault's row lock; envelopes are never deleted), so the candidates are
    /// after+1 … after+limit+1, and saying so bounds every plan, whatever the statistics.
    static func sizesQuery(vaultID: UUID, after: Int64, limit: Int) -> PostgresQuery {
        let (bound, overflow) = after.addingReportingOverflow(Int64(limit) + 1)
        let upper = overflow ? Int64.max : bound
        return """
            SELECT e.sequence, octet_length(e.ciphertext), e.signature_id, octet_length(s.entries)
            FROM envelopes e LEFT JOIN push_signatures s ON s.id = e.signature_id
            WHERE e.vault_id = \(vaultID) AND e.sequence > \(after) AND e.sequence <= \(upper)
            ORDER BY e.sequence LIMIT \(Int64(limit) + 1)
            """
    }

    /// The bodies of the envelopes after `after` through `last`: one range of the primary key.
    static func bodiesQuery(vaultID: UUID, after: Int64, through last: Int64, limit: Int) -> PostgresQuery {
        """
        SELECT sequence, device_id, envelope_id, record_key, ciphertext, epoch, signature_id FROM envelopes
        WHERE vault_id = \(vaultID) AND sequence > \(after) AND sequence <= \(last)
        ORDER BY sequence LIMIT \(Int64(limit))
        """
    }

    /// Bytes a push's signature adds besides its entries: the certificate and signature,
    /// with room for their encoding.
    static let signatureOverhead = 1_024

    /// Checks a push's signature (see ``push(_:vaultID:deviceID:signature:quota:)``).
    ///
    /// - Throws: ``SyncServerError/badRequest(_:)`` for one that is not the pushing device's
    ///   signature of exactly these envelopes in the vault's epoch.
    static func check(_ signature: SyncPushSignature, envelopes: [SyncEnvelope], vaultID: UUID, deviceID: UUID,
                      epoch: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let refused = SyncServerError.badRequest("The push's signature is not this device's signature of these envelopes.")
        guard signature.signer == deviceID, Int64(signature.epoch) == epoch,
              signature.entries.count == envelopes.count * SyncPushSignature.entryLength else { throw refused }
        var expected = Data(capacity: signature.entries.count)
        for envelope in envelopes {
            expected.append(contentsOf: envelope.id.uuidBytes)
            var hasher = SHA256()
            for part in SyncPushSignature.digestInput(envelope) { hasher.update(data: part) }
            expected.append(contentsOf: hasher.finalize())
        }
        guard expected == signature.entries else { throw refused }
        // The device's keys as the server holds them, certified (whoever signed this copy of
        // the certificate: Ed25519 may be randomised) by the vault's current authority key.
        let rows = try await connection.guardedQuery("""
            SELECT d.certificate, v.verification_key FROM devices d JOIN vaults v ON v.vault_id = d.vault_id
            WHERE d.vault_id = \(vaultID) AND d.device_id = \(deviceID)
            """, logger: logger)
        var found: (certificate: Data?, key: Data)?
        for try await (certificate, key) in rows.decode((Data?, Data).self) { found = (certificate, key) }
        let certificate = signature.certificate
        guard let found, let stored = try found.certificate.map(decodeCertificate),
              stored.signingKey == certificate.signingKey, stored.boxKey == certificate.boxKey,
              verify(certificate.signature, certificate.message(vaultID: vaultID), found.key),
              verify(signature.signature, SyncPushSignature.message(vaultID: vaultID, signer: deviceID,
                                                                    epoch: signature.epoch, entries: signature.entries),
                     certificate.signingKey) else { throw refused }
    }
}

extension UUID {
    /// The UUID's 16 bytes.
    var uuidBytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }
}
