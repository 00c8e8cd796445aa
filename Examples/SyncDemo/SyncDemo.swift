// The sync demo (`make sync-demo`, which starts PostgreSQL and medvault-sync-server
// first): two devices of one practice — a laptop and a tablet — sync a patient through
// the zero-knowledge server, end to end encrypted.
//
//   SyncDemo <server base URL> <folder for the two device vaults>
//
// 1. The laptop creates a vault, registers it with the server and records a patient.
// 2. The tablet gets the vault's keyring (here from the server, through the laptop's
//    session: a real app pairs the devices, e.g. with a QR code), unlocks it with the
//    same password in a folder of its own, joins, and pulls: the patient appears.
// 3. The tablet edits the patient; the laptop pulls the edit.
// 4. Every envelope the server holds is checked for the patient's name: none has it.
import Foundation
import MedVault
import MedVaultSync
import MedVaultSyncWire

@main
struct SyncDemo {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let server = URL(string: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: SyncDemo <server base URL> <folder>\n".utf8))
            exit(64)
        }
        do {
            try await run(server: server, folder: URL(fileURLWithPath: arguments[2]))
        } catch {
            FileHandle.standardError.write(Data("SyncDemo failed: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(server: URL, folder: URL) async throws {
        let password = try Password("correct horse battery staple, twice")
        let timer = ContinuousClock()

        // 1. The laptop: a new vault, registered with the server.
        let laptop = try await Vault.create(at: folder.appendingPathComponent("laptop"), password: password).vault
        let laptopSync = SyncEngine(vault: laptop, transport: try HTTPSyncTransport(configuration: .init(baseURL: server)))
        try await laptopSync.register()
        let patient = try await laptop.patients.create(Patient(
            firstName: "Valentina", lastName: "Ibarra Quiroga", dateOfBirth: try CalendarDate(iso8601: "1987-03-14"),
            phoneNumber: "+34 600 111 222"))
        var started = timer.now
        let pushed = try await laptopSync.sync()
        print("laptop: created \(patient.fullName) and synced: \(pushed.uploaded) envelope(s) uploaded in \(elapsed(timer.now - started))")

        // 2. The tablet: the sealed keyring, the sync secret (the laptop shows it for the
        //    recovery kit; the server never sees it), the same password, a folder and
        //    database of its own.
        guard let laptopCredentials = try await laptopSync.credentials(),
              let syncSecret = try await laptopSync.syncSecret() else {
            throw MedVaultError(.invalidArgument, reason: "the laptop did not register")
        }
        let tabletTransport = try HTTPSyncTransport(configuration: .init(baseURL: server))
        let keyring = try await tabletTransport.keyring(as: laptopCredentials)
        let tablet = try await Vault.join(at: folder.appendingPathComponent("tablet"), keyring: keyring.keyring,
                                          syncSecret: syncSecret, password: password)
        let tabletSync = SyncEngine(vault: tablet, transport: tabletTransport)
        try await tabletSync.join()
        started = timer.now
        let pulled = try await tabletSync.sync()
        let arrived = try await tablet.patients.get(patient.id)
        print("tablet: joined and synced: \(pulled.downloaded) envelope(s) applied in \(elapsed(timer.now - started)); "
              + "it now holds \(arrived.fullName), born \(arrived.dateOfBirth)")

        // 3. An edit on the tablet reaches the laptop.
        var edited = arrived
        edited.phoneNumber = "+34 600 333 444"
        _ = try await tablet.patients.update(edited)
        started = timer.now
        _ = try await tabletSync.sync()
        _ = try await laptopSync.sync()
        let onLaptop = try await laptop.patients.get(patient.id)
        print("tablet: changed the phone number; laptop after its sync: \(onLaptop.phoneNumber ?? "-") "
              + "(round trip \(elapsed(timer.now - started)))")

        // 4. What the server holds: envelopes it cannot read.
        let page = try await tabletTransport.pull(after: 0, limit: 500, as: laptopCredentials)
        let name = Array("Valentina".utf8)
        let readable = page.envelopes.filter { Array($0.envelope.ciphertext).firstRange(of: name) != nil }
        print("server: \(page.envelopes.count) envelope(s), \(readable.count) containing the patient's name")

        await laptop.lock()
        await tablet.lock()
        guard onLaptop.phoneNumber == edited.phoneNumber, readable.isEmpty else {
            throw MedVaultError(.corrupted, reason: "the devices did not converge, or the server saw plaintext")
        }
        print("ok: both devices hold the same record; the server never saw it")
    }

    static func elapsed(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.0f ms", milliseconds)
    }
}
