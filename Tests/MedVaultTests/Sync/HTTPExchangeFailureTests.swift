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
    /// Every URLError code either client named before the classification was shared, with
    /// the error (code and reason) and retry rule each made of it then.
    static let cases: [(URLError.Code, HTTPExchangeFailure, sync: MedVaultError, syncRetry: HTTPSyncFailure.Retry,
                        icd: MedVaultError)] = {
        let icdBadResponse = ICD11Errors.badResponse("the HTTP exchange failed")
        let syncBadResponse = HTTPSyncErrors.badResponse("the HTTP exchange failed")
        var cases: [(URLError.Code, HTTPExchangeFailure, sync: MedVaultError, syncRetry: HTTPSyncFailure.Retry,
                     icd: MedVaultError)] = []
        for code: URLError.Code in [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
                                    .internationalRoamingOff, .dataNotAllowed, .callIsActive, .cannotLoadFromNetwork] {
            cases.append((code, .unreachable, HTTPSyncErrors.offline, .safe, ICD11Errors.offline))
        }
        for code: URLError.Code in [.secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                                    .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
                                    .clientCertificateRejected, .clientCertificateRequired] {
            cases.append((code, .tls, HTTPSyncErrors.offline, .never, ICD11Errors.offline))
        }
        cases.append((.timedOut, .timedOut, HTTPSyncErrors.timeout, .ambiguous, ICD11Errors.timeout))
        cases.append((.networkConnectionLost, .connectionLost, HTTPSyncErrors.connectionLost, .ambiguous, ICD11Errors.offline))
        cases.append((.badServerResponse, .emptyReply, HTTPSyncErrors.connectionLost, .ambiguous, icdBadResponse))
        cases.append((.cancelled, .cancelled, HTTPSyncErrors.cancelled, .never, ICD11Errors.cancelled))
        for code: URLError.Code in [.cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData, .zeroByteResource,
                                    .httpTooManyRedirects, .redirectToNonExistentLocation] {
            cases.append((code, .unusableAnswer, syncBadResponse, .never, icdBadResponse))
        }
        cases.append((.dataLengthExceedsMaximum, .answerTooLarge, HTTPSyncErrors.answerTooLarge, .never, icdBadResponse))
        for code: URLError.Code in [.userAuthenticationRequired, .userCancelledAuthentication] {
            cases.append((code, .authenticationRequired, HTTPSyncErrors.offline, .ambiguous, ICD11Errors.unauthorized))
        }
        for code: URLError.Code in [.unknown, .badURL, .unsupportedURL] {
            cases.append((code, .other, HTTPSyncErrors.offline, .ambiguous, ICD11Errors.offline))
        }
        return cases
    }()

    @Test("Each URLError code's kind, and the error and retry rule each client makes of it")
    func classification() {
        for (code, kind, sync, syncRetry, icd) in Self.cases {
            #expect(HTTPExchangeFailure(URLError(code)) == kind, "\(code)")
            let failure = HTTPSyncErrors.from(URLError(code))
            #expect(failure.error.code == sync.code && failure.error.reason == sync.reason && failure.retry == syncRetry,
                    "sync, \(code)")
            let icdError = ICD11Errors.from(URLError(code))
            #expect(icdError.code == icd.code && icdError.reason == icd.reason, "ICD-11, \(code)")
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
        // An HTTP date has whole seconds: a wait of 89.5 s rounds up to 90.
        #expect(HTTPExchangeFailure.retryAfter(formatter.string(from: now.addingTimeInterval(90)),
                                               now: now.addingTimeInterval(0.5)) == .seconds(90))
        #expect(HTTPExchangeFailure.retryAfter("999999999", now: now) == .seconds(86_400))
        #expect(HTTPExchangeFailure.retryAfter("-3", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter("soon", now: now) == nil)
        #expect(HTTPExchangeFailure.retryAfter(nil, now: now) == nil)
    }
}
