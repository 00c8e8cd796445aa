#if defined(__linux__)
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "CCurlHTTP.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdatomic.h>

typedef struct {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
} buffer;

struct medvault_http_exchange {
    buffer body;
    buffer headers;
    size_t limit;
    long status;
    int too_large;
    int out_of_memory;
    /* The blank line after the current answer's head was seen: what follows before the
       next status line is a chunked answer's trailer, not a header. */
    int head_done;
    atomic_int cancelled;
};

static int append(buffer *target, const void *bytes, size_t length) {
    if (length > SIZE_MAX - target->length) return 0;
    if (target->length + length > target->capacity) {
        size_t capacity = target->capacity ? target->capacity : 4096;
        while (capacity < target->length + length) {
            if (capacity > SIZE_MAX / 2) return 0;
            capacity *= 2;
        }
        uint8_t *grown = realloc(target->bytes, capacity);
        if (!grown) return 0;
        target->bytes = grown;
        target->capacity = capacity;
    }
    memcpy(target->bytes + target->length, bytes, length);
    target->length += length;
    return 1;
}

static void clear(buffer *target) {
    free(target->bytes);
    target->bytes = NULL;
    target->length = 0;
    target->capacity = 0;
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    medvault_http_exchange *exchange = context;
    size_t length = size * count;
    /* body.length never exceeds limit, so the subtraction cannot wrap. */
    if (length > exchange->limit - exchange->body.length) {
        exchange->too_large = 1;
        return 0; /* libcurl stops with CURLE_WRITE_ERROR */
    }
    if (!append(&exchange->body, data, length)) {
        exchange->out_of_memory = 1;
        return 0;
    }
    return length;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
    medvault_http_exchange *exchange = context;
    size_t length = size * count;
    /* A new status line (after an interim 1xx answer): only the final answer's headers count. */
    if (length >= 5 && memcmp(data, "HTTP/", 5) == 0) {
        exchange->headers.length = 0;
        exchange->head_done = 0;
    } else if (length >= 1 && length <= 2 && (data[0] == '\r' || data[0] == '\n')) {
        exchange->head_done = 1;
        return length;
    }
    if (exchange->head_done) return length; /* a trailer: not kept */
    /* Headers are bounded too: at most 64 KiB of them. */
    if (exchange->headers.length + length > 65536) {
        exchange->too_large = 1;
        return 0;
    }
    if (!append(&exchange->headers, data, length)) {
        exchange->out_of_memory = 1;
        return 0;
    }
    return length;
}

static int on_progress(void *context, curl_off_t download_total, curl_off_t downloaded, curl_off_t upload_total,
                       curl_off_t uploaded) {
    (void)download_total;
    (void)downloaded;
    (void)upload_total;
    (void)uploaded;
    medvault_http_exchange *exchange = context;
    return atomic_load(&exchange->cancelled) ? 1 : 0;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_result = CURLE_FAILED_INIT;
static void global_init(void) { global_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

static pthread_once_t available_once = PTHREAD_ONCE_INIT;
static int available = 0;
static void check_available(void) {
#if defined(CURL_VERSION_THREADSAFE)
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    available = info && info->version_num >= 0x075400 && (info->features & CURL_VERSION_THREADSAFE) ? 1 : 0;
#endif
}

int medvault_http_available(void) {
    pthread_once(&available_once, check_available);
    return available;
}

/* Runs `body` with SIGPIPE blocked on this thread, then discards a SIGPIPE it raised and
   restores the mask: libcurl's own pattern where CURLOPT_NOSIGNAL is set. */
static void without_sigpipe(void (*body)(void *), void *context) {
    sigset_t pipe, previous;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &previous);
    body(context);
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) && !sigismember(&previous, SIGPIPE)) {
        struct timespec none = {0, 0};
        sigtimedwait(&pipe, NULL, &none);
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

static void cleanup(void *handle) { curl_easy_cleanup(handle); }

void *medvault_http_handle_create(void) {
    pthread_once(&global_once, global_init);
    if (global_result != CURLE_OK) return NULL;
    return curl_easy_init();
}

void medvault_http_handle_free(void *handle) {
    /* Closing a TLS connection writes to its socket, which the server may have closed. */
    if (handle) without_sigpipe(cleanup, handle);
}

medvault_http_exchange *medvault_http_exchange_create(void) {
    medvault_http_exchange *exchange = calloc(1, sizeof *exchange);
    if (exchange) atomic_init(&exchange->cancelled, 0);
    return exchange;
}

void medvault_http_exchange_free(medvault_http_exchange *exchange) {
    if (!exchange) return;
    clear(&exchange->body);
    clear(&exchange->headers);
    free(exchange);
}

void medvault_http_exchange_cancel(medvault_http_exchange *exchange) {
    if (exchange) atomic_store(&exchange->cancelled, 1);
}

static medvault_http_outcome outcome_of(CURLcode code, const medvault_http_exchange *exchange) {
    if (exchange->too_large) return MEDVAULT_HTTP_TOO_LARGE;
    if (exchange->out_of_memory) return MEDVAULT_HTTP_OUT_OF_MEMORY;
    switch (code) {
    case CURLE_OK: return MEDVAULT_HTTP_OK;
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    /* The handshake broke off (a reset, an end of file: a balancer restarting); nothing
       was sent, as with a refused connection. */
    case CURLE_SSL_CONNECT_ERROR:
        return MEDVAULT_HTTP_UNREACHABLE;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_USE_SSL_FAILED:
        return MEDVAULT_HTTP_TLS;
    case CURLE_OPERATION_TIMEDOUT: return MEDVAULT_HTTP_TIMED_OUT;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return MEDVAULT_HTTP_CONNECTION_LOST;
    case CURLE_GOT_NOTHING: return MEDVAULT_HTTP_EMPTY_REPLY;
    case CURLE_ABORTED_BY_CALLBACK: return MEDVAULT_HTTP_CANCELLED;
    case CURLE_FILESIZE_EXCEEDED: return MEDVAULT_HTTP_TOO_LARGE;
    case CURLE_OUT_OF_MEMORY: return MEDVAULT_HTTP_OUT_OF_MEMORY;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
        return MEDVAULT_HTTP_UNUSABLE;
    default: return MEDVAULT_HTTP_OTHER;
    }
}

medvault_http_outcome medvault_http_perform(void *handle, medvault_http_exchange *exchange, const char *method,
                                            const char *url, const char *const *headers, size_t header_count,
                                            const uint8_t *body, size_t body_length, long timeout_ms, size_t limit,
                                            int fresh_connection) {
    if (!handle || !exchange) return MEDVAULT_HTTP_OUT_OF_MEMORY;
    pthread_setname_np(pthread_self(), "medvault.http");
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, NULL);
    CURL *curl = handle;
    /* Every option back to its default; the connection and DNS caches stay. */
    curl_easy_reset(curl);
    exchange->body.length = 0;
    exchange->headers.length = 0;
    exchange->status = 0;
    exchange->too_large = 0;
    exchange->out_of_memory = 0;
    exchange->head_done = 0;
    exchange->limit = limit;
    if (atomic_load(&exchange->cancelled)) return MEDVAULT_HTTP_CANCELLED;

    struct curl_slist *list = NULL;
    for (size_t index = 0; index < header_count; index++) {
        struct curl_slist *next = curl_slist_append(list, headers[index]);
        if (!next) {
            curl_slist_free_all(list);
            return MEDVAULT_HTTP_OUT_OF_MEMORY;
        }
        list = next;
    }
    /* No "Expect: 100-continue" wait before a large body. */
    struct curl_slist *next = curl_slist_append(list, "Expect:");
    if (!next) {
        curl_slist_free_all(list);
        return MEDVAULT_HTTP_OUT_OF_MEMORY;
    }
    list = next;

    CURLcode code = CURLE_OK;
#define SET(option, value) \
    if (code == CURLE_OK) code = curl_easy_setopt(curl, option, value)
    SET(CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
    SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
    SET(CURLOPT_TIMEOUT_MS, timeout_ms);
    SET(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    SET(CURLOPT_HTTPHEADER, list);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, exchange);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, exchange);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, exchange);
    SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)limit);
    if (fresh_connection) {
        SET(CURLOPT_FRESH_CONNECT, 1L);
        SET(CURLOPT_FORBID_REUSE, 1L);
        /* HTTP/1.1: libcurl may send an HTTP/2 request again on its own (a stream the
           server refused, a downgrade to HTTP/1.1 it asked for). */
        SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    }
    if (strcmp(method, "GET") == 0 && body_length == 0) {
        SET(CURLOPT_HTTPGET, 1L);
    } else {
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
        SET(CURLOPT_POSTFIELDS, body_length ? (const char *)body : "");
        if (strcmp(method, "POST") != 0) SET(CURLOPT_CUSTOMREQUEST, method);
    }
#undef SET
    if (code == CURLE_OK) code = curl_easy_perform(curl);
    long status = 0;
    if (curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) exchange->status = status;
    /* The handle keeps no pointer into the list or the body past this call. */
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, NULL);
    curl_slist_free_all(list);
    return outcome_of(code, exchange);
}

long medvault_http_status(const medvault_http_exchange *exchange) { return exchange->status; }

uint8_t *medvault_http_take_body(medvault_http_exchange *exchange, size_t *length) {
    uint8_t *bytes = exchange->body.bytes;
    *length = exchange->body.length;
    exchange->body.bytes = NULL;
    exchange->body.length = 0;
    exchange->body.capacity = 0;
    return bytes;
}

const char *medvault_http_header_block(const medvault_http_exchange *exchange, size_t *length) {
    *length = exchange->headers.length;
    return (const char *)exchange->headers.bytes;
}

#else

int medvault_http_available(void) { return 0; }
void *medvault_http_handle_create(void) { return NULL; }
void medvault_http_handle_free(void *handle) { (void)handle; }
medvault_http_exchange *medvault_http_exchange_create(void) { return NULL; }
void medvault_http_exchange_free(medvault_http_exchange *exchange) { (void)exchange; }
void medvault_http_exchange_cancel(medvault_http_exchange *exchange) { (void)exchange; }
medvault_http_outcome medvault_http_perform(void *handle, medvault_http_exchange *exchange, const char *method,
                                            const char *url, const char *const *headers, size_t header_count,
                                            const uint8_t *body, size_t body_length, long timeout_ms, size_t limit,
                                            int fresh_connection) {
    (void)handle; (void)exchange; (void)method; (void)url; (void)headers; (void)header_count;
    (void)body; (void)body_length; (void)timeout_ms; (void)limit; (void)fresh_connection;
    return MEDVAULT_HTTP_OTHER;
}
long medvault_http_status(const medvault_http_exchange *exchange) { (void)exchange; return 0; }
uint8_t *medvault_http_take_body(medvault_http_exchange *exchange, size_t *length) {
    (void)exchange;
    *length = 0;
    return NULL;
}
const char *medvault_http_header_block(const medvault_http_exchange *exchange, size_t *length) {
    (void)exchange;
    *length = 0;
    return NULL;
}

#endif
