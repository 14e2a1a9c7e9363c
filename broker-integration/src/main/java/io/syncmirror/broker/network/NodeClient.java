package io.syncmirror.broker.network;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A client connection from this broker to one other node (the controller, a partition leader, a transaction
 * marker's target), over the Kafka wire with kafka-clients' own {@code NetworkClient}: version negotiation
 * through ApiVersions, reconnect with backoff, in-order responses.
 *
 * <p>Thread-safety: {@link #send} may be called from any thread; futures complete on the client's I/O thread,
 * so callers must not block in their callbacks.
 */
public interface NodeClient extends AutoCloseable
{
    /**
     * Sends a request, reconnecting first when needed. The future completes with the response, or
     * exceptionally with a {@code DisconnectException} / {@code TimeoutException} (request.timeout.ms) /
     * {@code UnsupportedVersionException}.
     */
    <R extends AbstractResponse> CompletableFuture<R> send(AbstractRequest.Builder<?> request);

    /** Whether a connection is up now (for fetchers deciding to back off). */
    boolean isReady();

    @Override
    void close();
}
