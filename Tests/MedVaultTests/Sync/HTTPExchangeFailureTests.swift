import Foundation
import MedVaultCore
@testable import MedVaultICD11
@testable import MedVaultSync
import Testing

/// The one classification of URLSession failures both HTTP clients use, and what each
/// makes of it: the sync transport tells "nothing was sent" from "the server may have
/// acted" (its retry rule); the ICD-API client only needs the error.
@Suite("HTTP exchange failures")
struct HTTPExchangeFailureTests {
    static let cases: [(URLError.Code, HTTPExchangeFailure, syncCode: MedVaultError.Code, syncRetry: HTTPSyncFailure.Retry,
                        icdCode: MedVaultError.Code)] = [
        (.cannotConnectToHost, .unreachable, .offline, .safe, .offline),
        (.dnsLookupFailed, .unreachable, .offline, .safe, .offline),
        (.serverCertificateUntrusted, .tls, .offline, .never, .offline),
        (.clientCertificateRequired, .tls, .offline, .never, .offline),
        (.timedOut, .timedOut, .timeout, .ambiguous, .timeout),
        (.networkConnectionLost, .connectionLost, .offline, .ambiguous, .offline),
        (.badServerResponse, .emptyReply, .offline, .ambiguous, .badResponse),
        (.cancelled, .cancelled, .cancelled, .never, .cancelled),
        (.cannotParseResponse, .unusableAnswer, .badResponse, .never, .badResponse),
        (.dataLengthExceedsMaximum, .answerTooLarge, .limitExceeded, .never, .badResponse),
        (.userAuthenticationRequired, .authenticationRequired, .offline, .ambiguous, .unauthorized),
        (.unknown, .other, .offline, .ambiguous, .offline),
    ]

    @Test("Each URLError code's kind, and the error and retry rule each client makes of it")
    func classification() {
        for (code, kind, syncCode, syncRetry, icdCode) in Self.cases {
            #expect(HTTPExchangeFailure(URLError(code)) == kind, "\(code)")
            let sync = HTTPSyncErrors.from(URLError(code))
            #expect(sync.error.code == syncCode && sync.retry == syncRetry, "sync, \(code)")
            #expect(ICD11Errors.from(URLError(code)).code == icdCode, "ICD-11, \(code)")
        }
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
        #expect(HTTPExchangeFailure.retryAfter("999999999", now: now) == .seconds(86_400))
        #expect(HTTPExchangeFailure.retryAfter("-3", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter("soon", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter(nil, now: now) == nil)
    }
}
