import Foundation
import MedVaultCore
@testable import MedVaultICD11
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The one classification of URLSession failures and the one mapping of it, and of HTTP
/// statuses, to errors and retry rules (`HTTPServiceErrors`) that both HTTP clients use:
/// the sync transport and the ICD-API client make the same error code of the same
/// failure, in reasons that name their own server.
@Suite("HTTP exchange failures")
struct HTTPExchangeFailureTests {
    /// Every URLError code either client names, with its kind, the error code and the
    /// retry rule, and the sync transport's reason (the ICD-API client's is the same with
    /// its server's name).
    static let cases: [(URLError.Code, HTTPExchangeFailure, MedVaultError.Code, HTTPServiceErrors.Retry, String)] = {
        var cases: [(URLError.Code, HTTPExchangeFailure, MedVaultError.Code, HTTPServiceErrors.Retry, String)] = []
        for code: URLError.Code in [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
                                    .internationalRoamingOff, .dataNotAllowed, .callIsActive, .cannotLoadFromNetwork] {
            cases.append((code, .unreachable, .offline, .safe, "the sync server could not be reached"))
        }
        for code: URLError.Code in [.secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                                    .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
                                    .clientCertificateRejected, .clientCertificateRequired] {
            cases.append((code, .tls, .offline, .never, "the sync server could not be reached"))
        }
        cases.append((.timedOut, .timedOut, .timeout, .ambiguous, "the sync server did not answer in time"))
        cases.append((.networkConnectionLost, .connectionLost, .offline, .ambiguous, "the connection to the sync server was lost"))
        cases.append((.badServerResponse, .emptyReply, .offline, .ambiguous, "the connection to the sync server was lost"))
        cases.append((.cancelled, .cancelled, .cancelled, .never, "the sync request was cancelled"))
        for code: URLError.Code in [.cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData, .zeroByteResource,
                                    .httpTooManyRedirects, .redirectToNonExistentLocation] {
            cases.append((code, .unusableAnswer, .badResponse, .never,
                          "the sync server's answer is unusable: the HTTP exchange failed"))
        }
        cases.append((.dataLengthExceedsMaximum, .answerTooLarge, .limitExceeded, .never,
                      "the sync server's answer is larger than the configured limit"))
        for code: URLError.Code in [.userAuthenticationRequired, .userCancelledAuthentication] {
            cases.append((code, .authenticationRequired, .offline, .ambiguous, "the sync server could not be reached"))
        }
        for code: URLError.Code in [.unknown, .badURL, .unsupportedURL] {
            cases.append((code, .other, .offline, .ambiguous, "the sync server could not be reached"))
        }
        return cases
    }()

    /// The ICD-API client's reason for the sync transport's `reason`.
    static func icd(_ reason: String) -> String {
        reason.replacingOccurrences(of: "sync server", with: "ICD-11 server")
            .replacingOccurrences(of: "sync request", with: "ICD-11 request")
    }

    @Test("Each URLError code's kind, and the one error and retry rule both clients make of it (the ICD-API client's two own rules apart)")
    func classification() {
        for (code, kind, errorCode, retry, reason) in Self.cases {
            #expect(HTTPExchangeFailure(URLError(code)) == kind, "\(code)")
            let failure = HTTPSyncErrors.http.failure(URLError(code))
            #expect(failure.error.code == errorCode && failure.error.reason == reason && failure.retry == retry,
                    "sync, \(code)")
            let icdError = ICD11Errors.from(URLError(code))
            switch kind {
            case .authenticationRequired:
                // The ICD-API client's own rule: never `offline`, which its cache would hide.
                #expect(icdError == ICD11Errors.http.unauthorized, "ICD-11, \(code)")
                #expect(icdError.reason == "the ICD-11 server refused the credentials")
            case .answerTooLarge:
                #expect(icdError == ICD11Errors.badResponse("the answer is too large"), "ICD-11, \(code)")
            default:
                #expect(icdError.code == errorCode && icdError.reason == Self.icd(reason), "ICD-11, \(code)")
            }
        }
    }

    @Test("Each HTTP status: the same error code and retry rule from both clients; the sync server's error codes, and the statuses the ICD-API does not send, add their own meaning")
    func statuses() {
        let expected: [(Int, MedVaultError.Code, HTTPServiceErrors.Retry)] = [
            (301, .badResponse, .never), (307, .badResponse, .never), (400, .validation, .never),
            (401, .unauthorized, .never), (403, .unauthorized, .never), (404, .notFound, .never),
            (409, .conflict, .never), (413, .limitExceeded, .never), (429, .rateLimited, .safe),
            (500, .serverError, .ambiguous), (502, .serverError, .ambiguous), (503, .serverError, .safe),
            (418, .badResponse, .never), (600, .badResponse, .never),
        ]
        for (status, code, retry) in expected {
            let sync = HTTPSyncErrors.from(status: status, code: nil, retryAfter: .seconds(3))
            #expect(sync.error.code == code && sync.retry == retry, "sync, \(status)")
            let icd = ICD11Errors.from(status: status, retryAfter: .seconds(3))
            if [400, 409, 413].contains(status) {
                // Statuses the ICD-API does not answer this client: an unexpected answer.
                #expect(icd == ICD11Errors.badResponse("unexpected HTTP status \(status)"), "ICD-11, \(status)")
                continue
            }
            #expect(icd.code == code, "ICD-11, \(status)")
            #expect(icd.reason == Self.icd(sync.error.reason) || [401, 403, 404, 503].contains(status), "ICD-11, \(status)")
            let wait: Duration? = status == 429 ? .seconds(3) : nil
            #expect(sync.error.retryAfter == wait && icd.retryAfter == wait, "\(status)")
        }
        #expect(ICD11Errors.from(status: 401, retryAfter: nil).reason == "the ICD-11 server refused the credentials")
        #expect(HTTPSyncErrors.from(status: 403, code: nil, retryAfter: nil).error.reason
            == "the sync server refused the device token or the device proof")
        #expect(ICD11Errors.from(status: 404, retryAfter: nil).reason == "the ICD-11 release has no such entity")
        #expect(HTTPSyncErrors.from(status: 503, code: nil, retryAfter: nil).error.reason
            == "the sync server cannot reach its database")
        let own: [(Int, SyncErrorCode, MedVaultError)] = [
            (403, .registrationClosed, HTTPSyncErrors.registrationClosed), (403, .quotaExceeded, HTTPSyncErrors.quotaExceeded),
            (401, .tokenExpired, HTTPSyncErrors.tokenExpired), (409, .vaultExists, HTTPSyncErrors.vaultExists),
            (409, .deviceExists, HTTPSyncErrors.deviceExists), (409, .envelopeConflict, HTTPSyncErrors.envelopeConflict),
            (409, .staleGeneration, HTTPSyncErrors.staleGeneration), (409, .tokenRenewed, HTTPSyncErrors.tokenRenewed),
            (409, .staleEpoch, HTTPSyncErrors.staleEpoch),
        ]
        for (status, code, error) in own {
            let failure = HTTPSyncErrors.from(status: status, code: code, retryAfter: nil)
            #expect(failure.error == error && failure.retry == .never, "\(status) \(code)")
        }
        // A code the status does not carry means nothing: the status decides.
        #expect(HTTPSyncErrors.from(status: 400, code: .staleEpoch, retryAfter: nil).error == HTTPSyncErrors.http.badRequest)
        #expect(HTTPSyncErrors.from(status: 409, code: .tokenExpired, retryAfter: nil).error == HTTPSyncErrors.http.conflict)
    }

    @Test("Retry-After: seconds, an HTTP date, at most a day, nothing for garbage")
    func retryAfter() throws {
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        #expect(HTTPExchangeFailure.retryAfter(" 7 ", now: now) == .seconds(7))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        #expect(HTTPExchangeFailure.retryAfter(formatter.string(from: now.addingTimeInterval(90)), now: now) == .seconds(90))
        #expect(HTTPExchangeFailure.retryAfter(formatter.string(from: now.addingTimeInterval(-60)), now: now) == .seconds(0))
        // An HTTP date has whole seconds: a wait of 89.5 s rounds up to 90.
        #expect(HTTPExchangeFailure.retryAfter(formatter.string(from: now.addingTimeInterval(90)),
                                               now: now.addingTimeInterval(0.5)) == .seconds(90))
        #expect(HTTPExchangeFailure.retryAfter("999999999", now: now) == .seconds(86_400))
        #expect(HTTPExchangeFailure.retryAfter("-3", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter("soon", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter(nil, now: now) == nil)
    }
}
