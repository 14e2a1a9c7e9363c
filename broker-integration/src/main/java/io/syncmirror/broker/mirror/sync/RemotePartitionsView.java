package io.syncmirror.broker.mirror.sync;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror partitions other brokers lead, as the sync control asks for them: one describe of a mirror serves
 * every topic of that mirror in the tick that first reads its answer (a tick promoting a thousand topics would
 * otherwise describe every partition of the mirror a thousand times); the next tick that needs it asks again.
 * Coordinator thread.
 */
final class RemotePartitionsView
{
    private static final Logger LOG = LoggerFactory.getLogger(RemotePartitionsView.class);

    /** One describe of a mirror; {@code read} once a step used its answer. */
    private static final class Request
    {
        final CompletableFuture<Map<Uuid, Map<Integer, RemotePartition>>> answer;
        boolean read;

        Request(final CompletableFuture<Map<Uuid, Map<Integer, RemotePartition>>> answer)
        {
            this.answer = answer;
        }
    }

    private final SyncLinks links;
    private final SyncHost host;
    private final Map<String, Request> requests = new HashMap<>();

    RemotePartitionsView(final SyncLinks links, final SyncHost host)
    {
        this.links = links;
        this.host = host;
    }

    /** Forgets the answers a step read and the failed describes (logged). */
    void beginTick()
    {
        requests.values().removeIf(request ->
        {
            if (request.answer.isCompletedExceptionally())
            {
                LOG.warn("Describing the partitions other brokers lead failed: {}",
                    SyncFailures.causeMessage(request.answer));
                return true;
            }
            return request.read;
        });
    }

    /** The topic's partitions other brokers lead, by index; null until the describe's answer is here. */
    Map<Integer, RemotePartition> of(final String mirrorName, final Uuid topicId)
    {
        Request request = requests.get(mirrorName);
        if (request == null)
        {
            request = new Request(links.remotePartitions(mirrorName));
            requests.put(mirrorName, request);
            if (!request.answer.isDone())
            {
                request.answer.whenComplete((ignored, e) -> host.wakeup());
            }
        }
        if (!request.answer.isDone() || request.answer.isCompletedExceptionally())
        {
            return null;
        }
        request.read = true;
        return request.answer.join().getOrDefault(topicId, Map.of());
    }
}
