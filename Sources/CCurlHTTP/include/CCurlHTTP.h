#ifndef MEDVAULT_CCURLHTTP_H
#define MEDVAULT_CCURLHTTP_H

#include <stddef.h>
#include <stdint.h>

/// One blocking HTTP/1.1 or HTTP/2 exchange over libcurl's easy interface: the sync
/// transport's client on Linux, where FoundationNetworking's URLSession (also libcurl,
/// driven through Dispatch) keeps a writable socket's event source armed once a request
/// body is larger than one 64 KiB upload buffer, and spins a core until the answer comes
/// (docs/sync.md, "The HTTP client on Linux").
///
/// A handle carries a connection cache between exchanges; use it from one thread at a
/// time. An exchange holds one request's answer; ``medvault_http_exchange_cancel`` may be
/// called from any thread while ``medvault_http_perform`` runs on another.
/// On other systems than Linux every function is a stub that fails.

/// How an exchange ended, before any HTTP status is looked at.
typedef enum {
    MEDVAULT_HTTP_OK = 0,
    /// No connection was made (refused, no route, name not found): nothing was sent.
    MEDVAULT_HTTP_UNREACHABLE = 1,
    /// TLS failed: an untrusted, expired or mismatched certificate, a failed handshake.
    MEDVAULT_HTTP_TLS = 2,
    MEDVAULT_HTTP_TIMED_OUT = 3,
    /// The connection broke while sending or receiving.
    MEDVAULT_HTTP_CONNECTION_LOST = 4,
    /// The server closed the connection without answering.
    MEDVAULT_HTTP_EMPTY_REPLY = 5,
    MEDVAULT_HTTP_CANCELLED = 6,
    /// The answer is not HTTP, or the URL's scheme is not http or https.
    MEDVAULT_HTTP_UNUSABLE = 7,
    /// The answer's body is longer than the limit (announced or as it arrived).
    MEDVAULT_HTTP_TOO_LARGE = 8,
    MEDVAULT_HTTP_OUT_OF_MEMORY = 9,
    MEDVAULT_HTTP_OTHER = 10,
} medvault_http_outcome;

typedef struct medvault_http_exchange medvault_http_exchange;

/// A new connection handle, or NULL (out of memory, or no libcurl).
void *medvault_http_handle_create(void);
/// Closes the handle's connections and frees it. NULL is ignored.
void medvault_http_handle_free(void *handle);

/// A new exchange, or NULL when out of memory.
medvault_http_exchange *medvault_http_exchange_create(void);
/// Frees the exchange and its answer. NULL is ignored.
void medvault_http_exchange_free(medvault_http_exchange *exchange);
/// Asks the exchange running on another thread to stop: it ends with
/// MEDVAULT_HTTP_CANCELLED within about a second (libcurl's progress callback).
void medvault_http_exchange_cancel(medvault_http_exchange *exchange);

/// Sends one request and reads its answer into `exchange`, blocking the calling thread.
///
/// `headers` are `Name: value` lines. No redirect is followed (a 3xx comes back as the
/// answer), no cookie, netrc or proxy credential is used, only http and https are
/// allowed, and `Expect: 100-continue` is never sent. A body (`body_length` > 0, or a
/// method other than GET) is sent from `body` as it is, which must stay valid until the
/// call returns. The answer's body is kept up to `limit` bytes: past that the exchange
/// ends with MEDVAULT_HTTP_TOO_LARGE. `timeout_ms` bounds the whole exchange.
medvault_http_outcome medvault_http_perform(void *handle, medvault_http_exchange *exchange, const char *method,
                                            const char *url, const char *const *headers, size_t header_count,
                                            const uint8_t *body, size_t body_length, long timeout_ms, size_t limit);

/// The answer's HTTP status (0 before an answer).
long medvault_http_status(const medvault_http_exchange *exchange);
/// The answer's body, `*length` bytes (NULL when empty).
const uint8_t *medvault_http_body(const medvault_http_exchange *exchange, size_t *length);
/// The final answer's header lines, CRLF-separated, status line included, `*length` bytes.
const char *medvault_http_header_block(const medvault_http_exchange *exchange, size_t *length);

#endif
