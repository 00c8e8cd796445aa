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
/// Call ``medvault_http_available`` first: this client is used only where libcurl's global
/// initialisation is thread-safe (libcurl 7.84 or later, built thread-safe), since
/// FoundationNetworking may initialise libcurl on another thread at the same moment.
///
/// A handle carries a connection cache between exchanges; use it from one thread at a
/// time. An exchange holds one request's answer; ``medvault_http_exchange_cancel`` may be
/// called from any thread while ``medvault_http_perform`` runs on another.
/// On other systems than Linux every function is a stub that fails.

/// How an exchange ended, before any HTTP status is looked at.
typedef enum {
    MEDVAULT_HTTP_OK = 0,
    /// No connection was made (refused, no route, name not found, a TLS handshake the
    /// other side broke off): nothing was sent.
    MEDVAULT_HTTP_UNREACHABLE = 1,
    /// TLS refused the server: an untrusted, expired or mismatched certificate, a
    /// certificate file or cipher setting libcurl could not use. The same request would
    /// fail the same way. (A handshake that fails for any other reason, such as no common
    /// cipher or a plain-HTTP port, is UNREACHABLE: libcurl reports both alike.)
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

/// Whether this client may be used: libcurl is 7.84 or later and says its global
/// initialisation is thread-safe (CURL_VERSION_THREADSAFE). 0 on other systems than Linux.
int medvault_http_available(void);

/// A new connection handle, or NULL (out of memory, or no libcurl).
void *medvault_http_handle_create(void);
/// Closes the handle's connections and frees it, SIGPIPE blocked meanwhile. NULL is ignored.
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
/// `headers` are `Name: value` lines (the caller checks them: no CR, LF or NUL). No
/// redirect is followed (a 3xx comes back as the answer), no cookie or `.netrc` is
/// used, only http and https are allowed, nothing is decompressed (no Accept-Encoding),
/// and `Expect: 100-continue` is never sent. Proxies named by the `http_proxy`/`https_proxy`
/// environment variables are used, as libcurl and FoundationNetworking do. A body
/// (`body_length` > 0, or a method other than GET) is sent from `body` as it is, which must
/// stay valid until the call returns. The answer's body is kept up to `limit` bytes: past
/// that the exchange ends with MEDVAULT_HTTP_TOO_LARGE. `timeout_ms` bounds the whole
/// exchange. With `fresh_connection` the request goes on a new connection that is closed
/// after it: libcurl resends a request by itself when a kept connection turns out dead
/// before any answer, which a request that must not run twice cannot allow. SIGPIPE is
/// blocked on the calling thread (a server that hangs up mid-upload must not end the app).
medvault_http_outcome medvault_http_perform(void *handle, medvault_http_exchange *exchange, const char *method,
                                            const char *url, const char *const *headers, size_t header_count,
                                            const uint8_t *body, size_t body_length, long timeout_ms, size_t limit,
                                            int fresh_connection);

/// The answer's HTTP status (0 before an answer).
long medvault_http_status(const medvault_http_exchange *exchange);
/// Hands the answer's body over to the caller, who frees it with `free`: `*length` bytes
/// (NULL when empty). The exchange no longer holds it.
uint8_t *medvault_http_take_body(medvault_http_exchange *exchange, size_t *length);
/// The final answer's header lines as they came (each ending in LF, mostly CRLF), status
/// line included, blank line and trailers not, `*length` bytes.
const char *medvault_http_header_block(const medvault_http_exchange *exchange, size_t *length);

#endif
