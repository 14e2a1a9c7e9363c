package io.syncmirror.broker.network;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * A {@link RequestHandler} for socket tests: serves the ranges it is told to, records every request it is
 * handed, and answers through a replaceable responder (at once by default; tests may hold futures and
 * complete them in any order). Thread-safe.
 */
final class FakeRequestHandler implements RequestHandler
{
    static final String CLUSTER_ID = "fake-cluster-id";

    /** One request the server handed over, with the future the handler returned for it. */
    record Received(RequestContext context, AbstractRequest request, CompletableFuture<AbstractResponse> future)
    {
    }

    private final Map<ApiKeys, short[]> served = new EnumMap<>(ApiKeys.class);
    private final Map<ApiKeys, Short> servedBeyondKafka = new EnumMap<>(ApiKeys.class);
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private volatile Function<Received, CompletableFuture<AbstractResponse>> responder = this::answerNow;
    private volatile List<Node> brokers = List.of();
    private final Set<String> handlerThreads = ConcurrentHashMap.newKeySet();

    synchronized FakeRequestHandler serve(final ApiKeys key, final int minVersion, final int maxVersion)
    {
        served.put(key, new short[] {(short)minVersion, (short)maxVersion});
        return this;
    }

    /** Serves {@code key} up to {@code maxVersion} beyond kafka-clients' highest (Fetch 20, Produce 14). */
    synchronized FakeRequestHandler serveBeyondKafka(final ApiKeys key, final int maxVersion)
    {
        servedBeyondKafka.put(key, (short)maxVersion);
        return this;
    }

    FakeRequestHandler brokers(final List<Node> nodes)
    {
        this.brokers = List.copyOf(nodes);
        return this;
    }

    /** Answers nothing until the test completes {@link Received#future()}. */
    FakeRequestHandler holdResponses()
    {
        responder = Received::future;
        return this;
    }

    FakeRequestHandler respondWith(final Function<Received, CompletableFuture<AbstractResponse>> newResponder)
    {
        responder = newResponder;
        return this;
    }

    /** The next request handed over, waiting up to {@code timeoutMs}; null when none came. */
    Received nextReceived(final long timeoutMs) throws InterruptedException
    {
        return received.poll(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Names of the threads {@link #handle} was called on. */
    Set<String> handlerThreads()
    {
        return Set.copyOf(handlerThreads);
    }

    @Override
    public synchronized short maxVersion(final ApiKeys key)
    {
        final short[] range = served.get(key);
        return range == null ? -1 : range[1];
    }

    @Override
    public synchronized short maxVersionBeyondKafka(final ApiKeys key)
    {
        return servedBeyondKafka.getOrDefault(key, (short)-1);
    }

    @Override
    public synchronized short minVersion(final ApiKeys key)
    {
        final short[] range = served.get(key);
        return range == null ? key.oldestVersion() : range[0];
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(final RequestContext context, final AbstractRequest request)
    {
        handlerThreads.add(Thread.currentThread().getName());
        final Received r = new Received(context, request, new CompletableFuture<>());
        received.add(r);
        return responder.apply(r);
    }

    /** The default answer, completed at once on the calling (event-loop) thread. */
    CompletableFuture<AbstractResponse> answerNow(final Received r)
    {
        r.future().complete(answerFor(r, brokers));
        return r.future();
    }

    static HeartbeatResponse heartbeat(final Errors error)
    {
        return new HeartbeatResponse(new HeartbeatResponseData().setErrorCode(error.code()));
    }

    private static AbstractResponse answerFor(final Received r, final List<Node> nodes)
    {
        return switch (r.request().apiKey())
        {
            case HEARTBEAT -> heartbeat(Errors.NONE);
            case METADATA -> MetadataResponse.prepareResponse(r.request().version(), 0, nodes, CLUSTER_ID,
                nodes.isEmpty() ? MetadataResponse.NO_CONTROLLER_ID : nodes.get(0).id(), List.of(),
                MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED);
            default -> r.request().getErrorResponse(0, Errors.UNKNOWN_SERVER_ERROR.exception());
        };
    }
}
