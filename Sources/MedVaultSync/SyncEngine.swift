import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Syncs one vault (this device) with the other devices of the vault through a
/// ``SyncTransport``, end-to-end encrypted: the server stores and orders envelopes it
/// cannot read (see `docs/sync.md`).
///
/// For example:
///
/// ```swift
/// let engine = SyncEngine(vault: vault, transport: transport)
/// try await engine.register()            // the first device; the others `join()`
/// let result = try await engine.sync()   // push, pull, apply, push
/// for conflict in try await engine.conflicts() { … }
/// ```
///
/// State lives in the vault's encrypted database (migration "sync state"): the device
/// token, the outbox of sealed envelopes, the cursors, record clocks and conflicts. A
/// sync interrupted anywhere — offline, an error, the process killed — resumes at the
/// next ``sync()``: sealing, each push acknowledgement and each pulled page are
/// committed with their cursor in one transaction, and pushes are idempotent.
public actor SyncEngine {
    /// The vault this engine syncs.
    public let vault: Vault
    /// The server.
    public let transport: any SyncTransport
    /// Envelopes per push and per pull page.
    public let batchSize: Int
    /// The most pulled envelopes applied in one transaction: consecutive pages are
    /// pulled until this many (or the end), then opened and applied together with the
    /// last page's cursor. A kill leaves all of them applied with that cursor, or none.
    public let envelopesPerApply: Int
    /// The default ``envelopesPerApply``: ten server pages of 500. A clone applied in
    /// transactions of 500 re-encrypted the same random index pages four times as often
    /// (docs/benchmarks-method.md, "Y"); 5,000 opened records hold a few MiB.
    public static let defaultEnvelopesPerApply = 5_000
    /// The largest push body the engine builds, in bytes (the JSON a push sends).
    public let maximumPushBytes: Int
    /// The server's default push body limit (`MEDVAULT_SYNC_MAX_PUSH_BYTES`): 8 MiB,
    /// about 70 attachment-chunk envelopes.
    public static let defaultMaximumPushBytes = SyncProtocolLimits.maximumPushBytes
    /// The most ciphertext bytes of pulled envelopes opened and applied in one
    /// transaction (with ``envelopesPerApply``): 16 MiB, four full server pages of
    /// attachment chunks, so a batch of chunks is never held in memory by the thousand.
    public static let maximumBytesPerApply = 16 << 20
    /// How far ahead of this device's clock another device's change may be stamped and
    /// still win a conflict. A concurrent change stamped later than now plus this skew (its
    /// device's clock runs ahead) does not win: the stored version stays and the change is
    /// listed as a ``SyncConflict/Kind/clockAhead`` conflict (docs/sync.md, "Clocks").
    public let maximumClockSkew: Duration
    /// The default ``maximumClockSkew``: 10 minutes, far above what NTP leaves between
    /// devices, far below a clock set a day (or a year) ahead.
    public static let defaultMaximumClockSkew: Duration = .seconds(600)
    /// ``syncNow()``'s request to the running automatic sync.
    nonisolated let nowSignal = NowSignal()
    /// What sync is doing (``statusUpdates()``), and who is told of changes.
    var status: SyncStatus = .idle(lastSynced: nil)
    /// When this engine's last pass succeeded.
    var lastSynced: Date?
    var statusObservers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    /// The token renewal under way, which concurrent passes that found the token expired
    /// wait for instead of renewing twice (see SyncEngine+Token.swift).
    var tokenRenewal: Task<SyncCredentials, any Error>?
    /// The most change-log entries one seal step covers (tests make it smaller).
    var sealStepSize = PendingChangeSealer.stepSize

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - vault: An open vault.
    ///   - transport: The server (``InMemorySyncTransport`` in tests).
    ///   - batchSize: Envelopes per push and pull (1…500).
    ///   - envelopesPerApply: The most pulled envelopes applied in one transaction (at
    ///     least one page: `batchSize`).
    ///   - maximumPushBytes: The largest push body to build: the server's limit. A push
    ///     holds at least one envelope whatever its size.
    ///   - maximumClockSkew: How far ahead of this device's clock a change may be
    ///     stamped and still win a conflict (at least 1 second).
    public init(vault: Vault, transport: any SyncTransport, batchSize: Int = 200,
                envelopesPerApply: Int = SyncEngine.defaultEnvelopesPerApply,
                maximumPushBytes: Int = SyncEngine.defaultMaximumPushBytes,
                maximumClockSkew: Duration = SyncEngine.defaultMaximumClockSkew) {
        self.vault = vault
        self.transport = transport
        self.batchSize = min(max(batchSize, 1), SyncProtocolLimits.maximumEnvelopesPerPush)
        self.envelopesPerApply = max(envelopesPerApply, self.batchSize)
        self.maximumPushBytes = max(maximumPushBytes, 1)
        self.maximumClockSkew = max(maximumClockSkew, .seconds(1))
    }

    // MARK: - Devices

    /// This device's credentials once registered or joined; `nil` before.
    public func credentials() async throws -> SyncCredentials? {
        try await vault.database.read { db in try SyncStateStore.state(db).credentials }
    }

    /// Registers the vault at the server with this device as its first, publishing the
    /// vault's keyring sealed under a new sync secret (``syncSecret()``: show it to the
    /// user for the recovery kit; the server never sees it, so it cannot test password
    /// guesses against the keyring). The vault starts at sync epoch 1: a random epoch key
    /// (kept on the devices, and on the server sealed under the vault key and the sync
    /// secret for the recovery kit) gives the envelope key and the authority key whose
    /// public half the server checks proofs with, and this device's own key is certified
    /// by it (docs/sync.md, "Epochs").
    ///
    /// When the server already has the vault (this call's earlier answer was lost, or
    /// another device registered it), this device joins it instead (``join()``), which
    /// proves the same vault key.
    ///
    /// - Throws: `conflict` when the vault id is registered under another key;
    ///   `unauthorized` when the server refuses the proof; transport errors.
    public func register() async throws {
        let deviceID = try await localDeviceID()
        let vaultID = vault.vaultID
        let secret = try await createSyncSecret()
        // The first epoch's key and this device's, stored before the request: a register
        // retried after a crash presents the same ones.
        let (epochKey, deviceKey) = try await vault.database.write { db -> (SecureBytes, SyncDeviceKey) in
            if try SyncEpochRecord.currentEpoch(db) == 0 {
                let key = SecureBytes.random(count: SyncKeys.epochKeyLength)
                defer { key.wipe() }
                try SyncEpochRecord.addEpochKeys([1: key], db)
            }
            let keys = try SyncEpochRecord.epochKeys(db)
            defer { for key in keys.values { key.wipe() } }
            guard let first = keys[1] else { throw MedVaultError(.corrupted, reason: "the first sync epoch's key is missing") }
            return (try first.copy(), try SyncEpochRecord.deviceKeyCreatingIfNeeded(db))
        }
        defer { epochKey.wipe() }
        let epochKeys = try await vault.sealEpochKeys([1: epochKey], firstEpoch: 1, secret: secret)
        let counter = try await vault.database.read { db in try SyncSecretRecord.keyringCounter(db) } + 1
        let sealed = try SealedKeyring.seal(
            try await vault.keyringForPublication(try KeyringFile.read(at: vault.layout.keyring)),
            counter: counter, secret: secret)
        let keyring = try MedVaultError.fromWire { try SyncKeyringBlob(generation: 1, keyring: sealed) }
        let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: deviceID))
        let origin = transport.proofOrigin
        let message = SyncDeviceProof.message(.register, challenge: challenge.challenge, vaultID: vaultID,
                                              deviceID: deviceID, boundTo: origin)
        let (publicKey, signature, certificate) = try await vault.withSyncKeyChain { chain in
            let keys = try chain.keys(epoch: 1)
            return (try keys.deviceSigningPublicKey(), try keys.signForDevice(Array(message)),
                    try Self.certificate(of: deviceKey, deviceID: deviceID, vaultID: vaultID, keys: keys))
        }
        let token: SyncDeviceToken
        do {
            token = try await transport.register(try MedVaultError.fromWire {
                try SyncRegisterRequest(
                    vaultID: vaultID, deviceID: deviceID, verificationKey: Data(publicKey), keyring: keyring,
                    challenge: challenge.challenge, signature: Data(signature), origin: origin,
                    epoch: 1, epochKeys: epochKeys, certificate: certificate)
            })
        } catch let error as MedVaultError where error.code == .conflict {
            do {
                try await join()
            } catch let refused as MedVaultError where refused.code == .unauthorized {
                throw error // another vault key holds this id
            }
            return
        }
        let credentials = SyncCredentials(vaultID: vaultID, deviceID: deviceID, deviceToken: token.deviceToken)
        try await save(credentials)
        // The server holds a keyring sealed under this secret now: it is the vault's.
        try await vault.database.write { db in
            try SyncSecretRecord.setSecret(secret, confirmed: true, db)
            try SyncSecretRecord.raiseKeyringCounter(to: counter, db)
            try SyncSecretRecord.setSealedKeyringSeen(db)
            try SyncEpochRecord.setCertifiedEpoch(1, db)
            // Born at epoch 1: no envelope of epoch 0 is the vault's (one sealed with keys
            // derived from the vault key alone is a forgery).
            try SyncEpochRecord.raisePulledEpoch(to: 1, db)
            try SyncEpochRecord.setFirstEpoch(1, db)
        }
        try await syncKeyring(credentials)
    }

    /// Joins this device to a vault another device registered, proving with the authority
    /// key of the vault's current sync epoch: the epoch keys the server keeps sealed under
    /// the vault key and the sync secret are read without a token and opened with the vault
    /// key this vault was opened with (password or recovery key, see
    /// `Vault.join(at:keyring:syncSecret:password:options:)`) and the sync secret — the
    /// recovery kit. This device's own key is certified in the same request. (A vault at
    /// epoch 0, registered by an earlier build, takes a proof derived from the vault key.)
    ///
    /// When the server already has this device id (an earlier join or register whose
    /// answer was lost, or a copy of this vault, restored or copied by hand, that another
    /// device still uses), this vault draws a new change-log device id
    /// (`Vault.renewChangeLogDeviceID()`) and joins as a new device: the server never
    /// gives a second token to a device id, so a copy cannot take a live device's place.
    ///
    /// - Throws: `unauthorized` when the server refuses the proof or does not know the
    ///   vault; `wrongSyncSecret` when the server's epoch keys do not open with this
    ///   vault's key and sync secret (another secret, a device revoked since); transport
    ///   errors.
    public func join() async throws {
        var token: SyncDeviceToken
        var deviceID = try await localDeviceID()
        do {
            token = try await requestJoin(as: deviceID)
        } catch let error as MedVaultError where error.code == .conflict {
            // Only the server's answer to the join itself: this id is taken.
            deviceID = try await vault.renewChangeLogDeviceID()
            token = try await requestJoin(as: deviceID)
        }
        let credentials = SyncCredentials(vaultID: vault.vaultID, deviceID: deviceID, deviceToken: token.deviceToken)
        try await save(credentials)
        try await syncKeyring(credentials)
    }

    /// Proves the vault's current epoch key for `deviceID` and asks the server to add it
    /// to the vault, with its certificate.
    private func requestJoin(as deviceID: UUID) async throws -> SyncDeviceToken {
        let vaultID = vault.vaultID
        let epochs = try await recoverEpochKeys()
        // A new device id, a new key of its own: a copy of a vault (restored, copied by
        // hand) never shares its key with the device it was copied from.
        let deviceKey = try await vault.database.write { db in try SyncEpochRecord.renewDeviceKey(db) }
        let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: deviceID))
        let origin = transport.proofOrigin
        let message = SyncDeviceProof.message(.join, challenge: challenge.challenge, vaultID: vaultID,
                                              deviceID: deviceID, boundTo: origin)
        let (signature, certificate) = try await vault.withSyncKeyChain { chain in
            (try chain.current.signForDevice(Array(message)),
             epochs ? try Self.certificate(of: deviceKey, deviceID: deviceID, vaultID: vaultID, keys: chain.current) : nil)
        }
        let token = try await transport.join(vaultID: vaultID, try MedVaultError.fromWire {
            try SyncJoinRequest(
                deviceID: deviceID, challenge: challenge.challenge, signature: Data(signature), origin: origin,
                certificate: certificate)
        })
        if let certificate {
            try await vault.database.write { db in try SyncEpochRecord.setCertifiedEpoch(certificate.epoch, db) }
        }
        return token
    }

    /// Takes the vault's epoch keys from the server's recovery bundle, opened with the
    /// vault key and this device's sync secret, when the vault is past the epoch this
    /// device holds.
    ///
    /// - Returns: Whether the transport keeps epochs (the join then carries a certificate).
    /// - Throws: `wrongSyncSecret` when they do not open; transport errors.
    private func recoverEpochKeys() async throws -> Bool {
        let bundle: SyncRecoveryBundle
        do {
            bundle = try await transport.recovery(vaultID: vault.vaultID)
        } catch let error as MedVaultError where [.invalidArgument, .notFound].contains(error.code) {
            return false // a transport or server before epochs; or no such vault, which the join reports
        }
        let (current, stored) = try await vault.database.read { db in
            (try SyncEpochRecord.currentEpoch(db), try SyncSecretRecord.secret(db))
        }
        // The server's epoch keys are the vault's: they replace any held here (a register
        // that found the vault registered made a first epoch of its own).
        guard bundle.epoch > 0 else {
            if current > 0 { try await vault.database.write { db in try SyncEpochRecord.replaceEpochKeys([:], db) } }
            return true
        }
        guard let sealed = bundle.epochKeys, let stored else {
            throw MedVaultError(.wrongSyncSecret, reason: "the vault's epoch keys do not open with this device's sync secret")
        }
        let opened: SealedEpochKeys.Opened
        do {
            opened = try await vault.openEpochKeys(sealed, secret: stored.secret)
        } catch let error as MedVaultError where error.code == .corrupted {
            throw MedVaultError(.wrongSyncSecret, reason: "the vault's epoch keys do not open with this device's sync secret")
        }
        defer { for key in opened.keys.values { key.wipe() } }
        guard opened.keys[bundle.epoch] != nil else {
            throw MedVaultError(.corrupted, reason: "the vault's epoch keys lack its current epoch")
        }
        try await vault.database.write { db in
            try SyncEpochRecord.replaceEpochKeys(opened.keys, db)
            // A vault born at epoch 1 has no envelope of epoch 0 (see register()).
            try SyncEpochRecord.raisePulledEpoch(to: opened.firstEpoch, db)
            try SyncEpochRecord.setFirstEpoch(opened.firstEpoch, db)
        }
        return true
    }

    /// The vault's sync secret, for the recovery kit: the app shows it once the vault is
    /// registered (or joined), to be written down with the recovery key. A new device
    /// joins with it and the password (`Vault.join(at:keyring:syncSecret:password:options:)`).
    ///
    /// - Returns: The secret once it is known to be the vault's (a keyring sealed under it
    ///   was published, or the server's opened with it); `nil` before — a secret this
    ///   device made but never saw in use is never shown, so the kit cannot hold a wrong one.
    /// - Throws: Storage errors; `locked`.
    public func syncSecret() async throws -> SyncSecret? {
        try await vault.database.read { db in
            guard let stored = try SyncSecretRecord.secret(db), stored.confirmed else { return nil }
            return stored.secret
        }
    }

    /// Gives this device the vault's sync secret, after checking that it opens the keyring
    /// the server holds: for a device that synced before the secret existed, once another
    /// device created it (``SyncKeyringOutcome/syncSecretNeeded``); or, before ``join()``,
    /// for a vault restored from a backup taken before a revocation changed the secret (the
    /// keyring is then read without a token). It replaces any secret this device held.
    ///
    /// - Throws: `wrongSyncSecret` when it does not open the server's keyring (nothing is
    ///   stored); `invalidArgument` when the server's keyring is still in the clear, so
    ///   there is nothing to check the secret against (sync a device that has it first);
    ///   transport errors.
    public func adoptSyncSecret(_ secret: SyncSecret) async throws {
        // Without credentials (a vault restored from a backup taken before a revocation,
        // about to join again), the keyring anyone may read for the recovery kit.
        let server = try await credentials() == nil
            ? try await transport.recovery(vaultID: vault.vaultID).keyring
            : try await authenticated { try await transport.keyring(as: $0) }
        guard SealedKeyring.isSealed(server.keyring) else {
            throw MedVaultError(.invalidArgument, field: "syncSecret", reason:
                "the server's keyring is not sealed yet, so the secret cannot be checked; sync a device that has it first")
        }
        let sealed = try SealedKeyring(opening: server.keyring, secret: secret)
        guard sealed.vaultID == vault.vaultID else {
            throw MedVaultError(.wrongSyncSecret, reason: "the server's keyring belongs to another vault")
        }
        try await vault.database.write { db in
            try SyncSecretRecord.setSecret(secret, confirmed: true, db)
            try SyncSecretRecord.raiseKeyringCounter(to: sealed.counter, db)
            try SyncSecretRecord.setSealedKeyringSeen(db)
        }
    }

    // MARK: - Syncing

    /// Pushes this device's changes and applies the other devices', then pushes what
    /// changed meanwhile.
    ///
    /// 0. Keyring: a local password or recovery-key change is published; one published
    ///    by another device is adopted (see docs/sync.md, "Keyring").
    /// 1. Seal: each record changed since the last seal becomes one envelope in the
    ///    outbox (one transaction with the seal cursor; a run of more than 1,000
    ///    change-log entries, such as a large vault's first seal, in steps of their own:
    ///    docs/sync.md, "Sealing a large vault").
    /// 2. Push the outbox in batches; each acknowledged batch leaves the outbox.
    /// 3. Pull pages after the pull cursor; each page is opened, then applied in one
    ///    transaction that also seals local changes made meanwhile and moves the cursor.
    ///    An envelope that does not open is listed in ``SyncResult/errors`` and skipped.
    /// 4. Push again.
    ///
    /// - Returns: Counts, new conflicts and refused envelopes.
    /// A device token the server reports expired is renewed first (``renewDeviceToken()``),
    /// and the pass runs again with the new one.
    ///
    /// - Throws: `invalidArgument` before ``register()`` or ``join()``; transport errors
    ///   (`offline`, `unauthorized`…): what was committed stays, the next sync resumes.
    public func sync() async throws -> SyncResult {
        setStatus(.syncing(downloaded: 0))
        do {
            let result = try await authenticated { try await syncPass($0) }
            lastSynced = vault.options.clock.now()
            setStatus(.idle(lastSynced: lastSynced))
            return result
        } catch {
            setStatus(status(after: error))
            throw error
        }
    }

    private func syncPass(_ credentials: SyncCredentials) async throws -> SyncResult {
        var result = SyncResult()
        result.keyring = try await syncKeyring(credentials)
        try await ensureCertified(credentials)
        try await resealOutbox()
        // A push the server refuses for size or quota (`limitExceeded`, not retried) must not
        // stop this device from receiving the others' changes: pull, then report it.
        do {
            result.uploaded += try await sealAndPush(credentials)
        } catch let refused as MedVaultError where refused.code == .limitExceeded {
            try await pull(credentials, into: &result)
            throw refused
        }
        try await pull(credentials, into: &result)
        result.uploaded += try await sealAndPush(credentials)
        result.unsentRecords = try await unsentRecords().count
        result.missingEnvelopes = try await missingEnvelopes()
        return result
    }

    /// The page's leading run of consecutive sequences. A vault's sequences are dense,
    /// so a gap means the server left envelopes out of the page (a server before the
    /// fix of its byte cut let a short envelope after the cut slip in): the page ends
    /// before the gap, with `hasMore`, and the next pull asks for the rest.
    static func consecutive(_ page: SyncPullResponse) -> SyncPullResponse {
        guard let first = page.envelopes.first else { return page }
        var count = 1
        while count < page.envelopes.count {
            let (expected, overflow) = first.sequence.addingReportingOverflow(Int64(count))
            guard !overflow, page.envelopes[count].sequence == expected else { break }
            count += 1
        }
        guard count < page.envelopes.count else { return page }
        let kept = Array(page.envelopes.prefix(count))
        return SyncPullResponse(envelopes: kept, lastSequence: kept[count - 1].sequence, hasMore: true,
                                signatures: page.signatures)
    }

    /// Two consecutive pages as one: the second's envelopes point into its own
    /// signatures, which follow the first's.
    static func merged(_ first: SyncPullResponse, _ second: SyncPullResponse) -> SyncPullResponse {
        let offset = first.signatures?.count ?? 0
        let moved = second.envelopes.map { pulled in
            SyncPulledEnvelope(sequence: pulled.sequence, deviceID: pulled.deviceID, envelope: pulled.envelope,
                               signature: pulled.signature.map { $0 + offset })
        }
        let signatures = (first.signatures ?? []) + (second.signatures ?? [])
        return SyncPullResponse(envelopes: first.envelopes + moved, lastSequence: second.lastSequence,
                                hasMore: second.hasMore, signatures: signatures.isEmpty ? nil : signatures)
    }

    // MARK: - Conflicts

    /// The unresolved conflicts on this device, oldest first.
    public func conflicts() async throws -> [SyncConflict] {
        try await vault.database.read { db in try SyncStateStore.conflicts(db).map(\.0) }
    }

    /// Resolves a conflict. Keeping the version that lost writes it again as a new
    /// change of this device (a higher version), which the next ``sync()`` sends to
    /// every device; keeping the stored version only marks the conflict resolved —
    /// except for a ``SyncConflict/Kind/clockAhead`` conflict, where the device whose
    /// clock ran ahead still holds its own version: either side kept is written as a new
    /// change stamped after the one ahead, so every device converges on it.
    ///
    /// - Throws: `notFound` for an unknown or resolved conflict; `immutable` when the
    ///   kept version breaks a medical-record rule (a refused change stays refused).
    public func resolve(_ conflictID: SyncConflict.ID, keep: SyncConflictResolution) async throws {
        let now = vault.options.clock.now()
        try await vault.database.write { db in
            guard let (conflict, losingState) = try SyncStateStore.conflicts(id: conflictID, db).first else {
                throw MedVaultError(.notFound, reason: "no unresolved conflict with this id")
            }
            let keepsLoser = (keep == .keepLocal) == (conflict.loser == .local)
            if conflict.kind == .clockAhead {
                try Self.rewriteAfterClockAhead(conflict, losingState: losingState, keepsLoser: keepsLoser, db)
            }
            if keepsLoser {
                var state: SyncRowState?
                do {
                    state = try losingState.map { try JSONDecoder().decode(SyncRowState.self, from: $0) }
                } catch {
                    throw MedVaultError(.corrupted, reason: "a conflict's kept version is not readable")
                }
                if var kept = state, let current = try SyncRecordStore.read(conflict.table, id: conflict.recordID, db) {
                    kept.columns["version"] = (current.version ?? kept.version).map { .integer(max($0, kept.version ?? 0) + 1) }
                    state = kept
                }
                let medication = RemoteChangeApplier.stockTables.contains(conflict.table)
                    ? try RemoteChangeApplier.medicationID(of: conflict.table, id: conflict.recordID, state: state, db)
                        ?? (conflict.table == .medication ? conflict.recordID : nil)
                    : nil
                try SyncRecordStore.write(state, table: conflict.table, id: conflict.recordID, operation: .update, db)
                // The kept version carries its device's cached stock: recompute it here.
                if let medication {
                    try MedicationStockStore.recomputeCaches([medication], rowsApplied: [medication], db)
                }
            }
            try SyncStateStore.markResolved(conflictID, now: now, db)
        }
    }

    /// Resolving a ``SyncConflict/Kind/clockAhead`` conflict: the kept version is written
    /// as a change causally after the one stamped ahead — the record's clock is raised to
    /// it (never lowered), so the change is sealed just above it, from it as a base, and
    /// fast-forwards on every device, the one whose clock ran ahead included. Keeping the
    /// stored version writes it again (its version above both sides'), unless it cannot be
    /// rewritten: deleted here, a record without a version, or one the rules never let
    /// change (a signature, a stock adjustment); then only the conflict is resolved, and the
    /// device ahead keeps its version (edit the record to bring the devices in line).
    static func rewriteAfterClockAhead(_ conflict: SyncConflict, losingState: Data?, keepsLoser: Bool,
                                       _ db: DatabaseConnection) throws {
        let raise = {
            let held = try SyncStateStore.clock(conflict.table, conflict.recordID, db)
            guard held.map({ $0.timestamp < conflict.losingTimestamp.rawValue }) ?? true else { return }
            try SyncStateStore.setClock(.init(timestamp: conflict.losingTimestamp.rawValue,
                                              deviceID: conflict.losingDeviceID), conflict.table, conflict.recordID, db)
        }
        if keepsLoser { return try raise() }
        guard var current = try SyncRecordStore.read(conflict.table, id: conflict.recordID, db),
              let version = current.version else { return }
        let losingVersion = losingState.flatMap { try? JSONDecoder().decode(SyncRowState.self, from: $0) }?.version
        current.columns["version"] = .integer(max(version, losingVersion ?? 0) + 1)
        do {
            try db.inSavepoint {
                try raise()
                try SyncRecordStore.write(current, table: conflict.table, id: conflict.recordID, operation: .update, db)
            }
        } catch let error as MedVaultError where RemoteChangeApplier.refusals.contains(error.code) {
            // The rules keep this record as it is: nothing rewritten, nothing raised.
        }
    }

    // MARK: - Refused envelopes

    /// Envelopes of other devices that this device has not received: numbers skipped in
    /// their sequences (docs/sync.md, "Sequence numbers").
    ///
    /// Every device numbers the envelopes it seals (1, 2, 3…) inside their sealed content,
    /// where the server can neither read nor change the numbers. A number skipped is an
    /// envelope the server withheld or dropped (or one this device refused as unreadable);
    /// one arriving later, out of order, fills its gap. An envelope whose number was
    /// received already is a replay: refused (``SyncResult/errors``, code `duplicate`),
    /// never applied, never a conflict.
    ///
    /// - Returns: The missing runs, by device.
    /// - Throws: `locked`; storage errors.
    public func missingEnvelopes() async throws -> [SyncMissingEnvelopes] {
        try await vault.database.read { db in try SyncDeviceSequences.missing(db) }
    }

    /// The envelopes this device's syncs refused and the app has not dismissed, in
    /// sequence order: the same values as ``SyncResult/errors``, kept in the vault.
    ///
    /// A refused envelope is not retried: the pull cursor moves past it in the same
    /// transaction that records it here, so the refusal outlives a sync that throws
    /// later (its `SyncResult` never returned) and a crash. The 10,000 most recent are
    /// kept. Each one carries its sequence, id, code and a fixed reason, never content.
    public func refusedEnvelopes() async throws -> [SyncEnvelopeError] {
        try await vault.database.read { db in try SyncStateStore.refusedEnvelopes(db) }
    }

    /// Forgets the refused envelopes up to and including `sequence` (the app has shown or
    /// logged them); later ones stay.
    ///
    /// - Returns: How many were forgotten.
    /// - Throws: `invalidArgument` for a negative sequence, forgetting nothing.
    @discardableResult
    public func dismissRefusedEnvelopes(through sequence: Int64) async throws -> Int {
        guard sequence >= 0 else {
            throw MedVaultError(.invalidArgument, reason: "a server sequence is never negative")
        }
        return try await vault.database.write { db in try SyncStateStore.dismissRefused(through: sequence, db) }
    }

    /// This device's records that sync does not send because they are too large for one
    /// envelope, in the order of their latest change (see ``SyncUnsentRecord``). A record
    /// leaves the list when a later change of it is sent.
    public func unsentRecords() async throws -> [SyncUnsentRecord] {
        try await vault.database.read { db in try SyncStateStore.unsentRecords(db) }
    }

    // MARK: - Helpers

    private func localDeviceID() async throws -> UUID {
        try await vault.database.read { db in try SyncRecordStore.deviceID(db) }
    }

    func save(_ credentials: SyncCredentials) async throws {
        try await vault.database.write { db in try SyncStateStore.saveCredentials(credentials, db) }
    }

    func requireCredentials() async throws -> SyncCredentials {
        guard let credentials = try await credentials() else {
            let restored = try await vault.database.read { db in
                try db.fetchOne("SELECT vault_id IS NOT NULL AND device_token IS NULL FROM sync_state WHERE singleton = 1") {
                    $0.int64(at: 0) == 1
                } ?? false
            }
            if restored {
                throw MedVaultError(.invalidArgument, reason: "this vault was restored from a backup: call join() to sync it as a new device")
            }
            throw MedVaultError(.invalidArgument, reason: "this device is not registered for sync: call register() or join()")
        }
        return credentials
    }
}
