package io.syncmirror.fetch;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * The connection a fetcher uses to reach its one source node. The broker implements it over its
 * {@code NodeClient} (version negotiation, reconnects); tests use a fake. Thread-safety: called from the fetcher's
 * thread only; the future may complete on any thread and its completion must not block.
 */
public interface FetchTransport
{
    /**
     * Sends one Fetch request built at the highest version both sides support (at most the builder's latest
     * allowed version), connecting first if needed. The future completes with the response, or exceptionally
     * (disconnect, request timeout, unsupported version).
     */
    CompletableFuture<FetchResponse> send(FetchRequest.Builder request);

    /**
     * Whether a connection is up now. The engine does not wait for it ({@link #send} connects on demand and a
     * failure backs off); it is exposed through {@link FetcherEngine#isConnected()} for health reporting.
     */
    boolean isReady();
}
