import Foundation

/// The command line of `medvault-sync-load`.
struct LoadOptions: Sendable {
    var devices = 50
    var seconds = 60.0
    var scale = 1.0
    var envelopesPerPush = 10
    var plaintextBytes = 1_024
    var output: String?
    /// Envelopes stored beforehand (1,000 a vault) for the run against a server that has
    /// been running a long time.
    var storedEnvelopes = 1_000_000

    /// 10,000 patients × scale (at least 20), ten sessions each, a diagnosis per session.
    var clonePatients: Int { max(20, Int((10_000 * scale).rounded())) }

    static let usage = """
        usage: medvault-sync-load [--devices N] [--seconds S] [--scale X] [--stored N] [--quick] [--output FILE.md]
          --devices N    simulated devices, five per vault (default 50)
          --seconds S    length of the device load (default 60)
          --scale X      clone size: 10,000 patients, 100,000 sessions, 100,000 diagnoses × X (default 1)
          --stored N     envelopes stored beforehand for the third load, 1,000 a vault (default 1,000,000)
          --quick        the CI smoke run: 5 devices, 5 s, scale 0.01, 10,000 stored envelopes
          --output FILE  write the Markdown report there (default: standard output)
        """

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw LoadError("\(flag) needs a value\n\(Self.usage)") }
            return next
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--devices":
                guard let number = Int(try value(flag)), number >= 1 else { throw LoadError("--devices: an integer ≥ 1") }
                devices = number
            case "--seconds":
                guard let number = Double(try value(flag)), number > 0 else { throw LoadError("--seconds: a number > 0") }
                seconds = number
            case "--scale":
                guard let number = Double(try value(flag)), number > 0 else { throw LoadError("--scale: a number > 0") }
                scale = number
            case "--stored":
                guard let number = Int(try value(flag)), number >= 1_000 else { throw LoadError("--stored: an integer ≥ 1000") }
                storedEnvelopes = number
            case "--quick":
                devices = 5
                seconds = 5
                scale = 0.01
                storedEnvelopes = 10_000
            case "--output":
                output = try value(flag)
            case "--help", "-h":
                throw LoadError(Self.usage)
            default:
                throw LoadError("unknown option \(flag)\n\(Self.usage)")
            }
        }
    }
}
