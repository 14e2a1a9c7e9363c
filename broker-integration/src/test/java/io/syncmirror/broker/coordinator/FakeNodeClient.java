package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/** A node client whose requests wait until the test answers them, in order. Thread-safe. */
final class FakeNodeClient implements io.syncmirror.broker.network.NodeClient
{
    /** One request sent and the future its sender waits on. */
    record Sent(AbstractRequest request, CompletableFuture<AbstractResponse> response)
    {
    }

    private final List<Sent> sent = new ArrayList<>();

    @Override
    @SuppressWarnings("unchecked") // the caller names the response type of the request it sends
    public synchronized <R extends AbstractResponse> CompletableFuture<R> send(final AbstractRequest.Builder<?> request)
    {
        final CompletableFuture<AbstractResponse> response = new CompletableFuture<>();
        sent.add(new Sent(request.build(request.latestAllowedVersion()), response));
        return (CompletableFuture<R>) (CompletableFuture<?>) response;
    }

    synchronized List<Sent> sent()
    {
        return new ArrayList<>(sent);
    }

    /** Removes and returns the oldest request not yet taken. */
    synchronized Sent take()
    {
        if (sent.isEmpty())
        {
            throw new AssertionError("no request was sent");
        }
        return sent.remove(0);
    }

    synchronized int pending()
    {
        return sent.size();
    }

    @Override
    public boolean isReady()
    {
        return true;
    }

    @Override
    public void close()
    {
    }
}
