package io.syncmirror.tools;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.WireSecurity;

/**
 * The sync mirroring admin calls of the spec's Admin API (registerMirrorSyncTopics, unregisterMirrorSyncTopics,
 * alterMirrorTopicType, plus addTopicsToMirror and the source-side release), over a {@link MirrorWireClient} to one
 * cluster. Thread-safe: every call is queued on one daemon thread, which sends the requests in turn over one
 * connection, so the methods return at once with futures.
 *
 * <p>Each call returns a {@link TopicsResult} with a future per topic. A topic's future fails with the Kafka
 * {@link ApiException} of its error code when kafka-clients knows the code, else with a {@link MirrorSyncException}
 * carrying the code and its name. A cluster none of whose bootstrap servers answers, a dropped connection and a
 * response that does not arrive within the request timeout fail every future of the call with a
 * {@link KafkaException} naming the servers; the next call connects again. Like the spec's Admin API it runs no
 * source-compatibility probe: callers wanting one use {@link SourceCompatibilityProbe}.
 */
public final class MirrorAdmin implements AutoCloseable
{
    static final String CLIENT_ID = "mirror-admin";

    /** A topic's successful outcome: its name and a note from the broker, e.g. that a promotion is pending. */
    public record TopicOutcome(String topicName, String note)
    {
        /** Whether the broker sent a note with the success: for a move to SYNC, that the promotion is pending. */
        public boolean hasNote()
        {
            return note != null && !note.isBlank();
        }
    }

    /** The futures of one call: one per topic named, and one for the whole call. Thread-safe. */
    public static final class TopicsResult
    {
        private final Map<String, CompletableFuture<TopicOutcome>> values;
        private final CompletableFuture<Void> all;

        TopicsResult(final Map<String, CompletableFuture<TopicOutcome>> values, final CompletableFuture<Void> all)
        {
            this.values = values;
            this.all = all;
        }

        /** Each named topic's future, in the order the topics were given. */
        public Map<String, CompletableFuture<TopicOutcome>> values()
        {
            return values;
        }

        /** Completes when the call and every topic succeeded; fails with the first failure otherwise. */
        public CompletableFuture<Void> all()
        {
            return all;
        }
    }

    private final List<MirrorWireClient.HostPort> bootstrap;
    private final String bootstrapServers;
    private final int requestTimeoutMs;
    private final ExecutorService executor;
    /** The calls not yet answered, failed by {@link #close()}. */
    private final Set<TopicsResult> pending = ConcurrentHashMap.newKeySet();
    private final WireSecurity security;
    private volatile boolean closed;

    /** The connection, made on the executor thread on first use and after a failure; only that thread uses it. */
    private MirrorWireClient client;

    private MirrorAdmin(final List<MirrorWireClient.HostPort> bootstrap, final String bootstrapServers,
        final int requestTimeoutMs, final WireSecurity security)
    {
        this.security = security;
        this.bootstrap = bootstrap;
        this.bootstrapServers = bootstrapServers;
        this.requestTimeoutMs = requestTimeoutMs;
        this.executor = Executors.newSingleThreadExecutor(r ->
        {
            final Thread thread = new Thread(r, "mirror-admin");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Creates an admin client for the cluster at {@code bootstrapServers}; it connects on its first call.
     *
     * @param bootstrapServers {@code host:port}, comma-separated
     * @param requestTimeoutMs how long to wait to connect and for each response; positive
     * @throws IllegalArgumentException if a server is not {@code host:port} or the timeout is not positive
     */
    public static MirrorAdmin create(final String bootstrapServers, final int requestTimeoutMs)
    {
        return create(bootstrapServers, requestTimeoutMs, Map.of());
    }

    /**
     * As above, connecting with Kafka client settings ({@code security.protocol} and {@code ssl.*}, as in a Kafka
     * tool's {@code --command-config} file).
     *
     * @throws org.apache.kafka.common.config.ConfigException a setting is invalid or a store cannot be loaded
     */
    public static MirrorAdmin create(final String bootstrapServers, final int requestTimeoutMs,
        final Map<String, ?> clientConfigs)
    {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        if (requestTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("requestTimeoutMs must be positive, got " + requestTimeoutMs);
        }
        final List<MirrorWireClient.HostPort> servers = new ArrayList<>();
        for (final String part : bootstrapServers.split(",", -1))
        {
            servers.add(MirrorWireClient.parse(part));
        }
        return new MirrorAdmin(List.copyOf(servers), bootstrapServers, requestTimeoutMs,
            WireSecurity.forClientConfigs(clientConfigs));
    }

    /** Registers topics for sync mirroring on the source (RegisterMirrorSyncTopic), not as a recovery promotion. */
    public TopicsResult registerMirrorSyncTopics(final String mirrorName, final Collection<String> topics)
    {
        return registerMirrorSyncTopics(mirrorName, topics, false);
    }

    /**
     * Registers topics for sync mirroring on the source (RegisterMirrorSyncTopic).
     *
     * @param recoveryPromotion true to let the source clear a sticky Released marker of these topics
     */
    public TopicsResult registerMirrorSyncTopics(final String mirrorName, final Collection<String> topics,
        final boolean recoveryPromotion)
    {
        final List<String> names = names(mirrorName, topics);
        final List<RegisterMirrorSyncTopicRequestData.TopicState> states = new ArrayList<>();
        names.forEach(t -> states.add(new RegisterMirrorSyncTopicRequestData.TopicState().setTopicName(t)
            .setRecoveryPromotion(recoveryPromotion)));
        return submitTopicResults(names, new RegisterMirrorSyncTopicRequestData().setMirrorName(mirrorName)
            .setTopics(states), RegisterMirrorSyncTopicResponseData.class);
    }

    /**
     * Unregisters topics from sync mirroring on the source (UnregisterMirrorSyncTopic, a clean unregister). The
     * response has one error for the whole request, which every topic's future shares.
     */
    public TopicsResult unregisterMirrorSyncTopics(final String mirrorName, final Collection<String> topics)
    {
        return unregister(mirrorName, names(mirrorName, topics), false);
    }

    /**
     * Releases the sync registration of topics on this (source) cluster, as {@code --release-sync} does:
     * UnregisterMirrorSyncTopic with Release set. An empty {@code topics} releases every topic registered under
     * the mirror; the result then has no per-topic futures, only {@link TopicsResult#all()}.
     */
    public TopicsResult releaseMirrorSyncTopics(final String mirrorName, final Collection<String> topics)
    {
        return unregister(mirrorName, names(mirrorName, topics), true);
    }

    /** Sets each topic's desired mirror type (AlterMirrorTopicType); a move to SYNC may succeed with a pending note. */
    public TopicsResult alterMirrorTopicType(final String mirrorName, final Map<String, MirrorType> topics)
    {
        Objects.requireNonNull(topics, "topics");
        final List<String> names = names(mirrorName, topics.keySet());
        final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> entries = new ArrayList<>();
        for (final String name : names)
        {
            final MirrorType type = Objects.requireNonNull(topics.get(name), "mirror type of topic " + name);
            entries.add(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicName(name)
                .setMirrorType(type.id()));
        }
        return submitTopicResults(names, new AlterMirrorTopicTypeRequestData().setMirrorName(mirrorName)
            .setTopics(entries), AlterMirrorTopicTypeResponseData.class);
    }

    /** Adds topics to a mirror with the given desired mirror type (AddTopicsToMirror). */
    public TopicsResult addTopicsToMirror(final String mirrorName, final Collection<String> topics,
        final MirrorType mirrorType)
    {
        Objects.requireNonNull(mirrorType, "mirrorType");
        final List<String> names = names(mirrorName, topics);
        final List<AddTopicsToMirrorRequestData.TopicState> states = new ArrayList<>();
        names.forEach(t -> states.add(new AddTopicsToMirrorRequestData.TopicState().setTopicName(t)
            .setMirrorName(mirrorName).setMirrorType(mirrorType.id())));
        return submitTopicResults(names, new AddTopicsToMirrorRequestData().setTopics(states),
            AddTopicsToMirrorResponseData.class);
    }

    /**
     * Fails the calls not yet answered and later calls, stops the thread and closes the connection. Idempotent.
     * It does not wait for a request in flight: a blocking read cannot be interrupted, so the thread closes the
     * connection itself when that request ends.
     */
    @Override
    public void close()
    {
        closed = true;
        executor.shutdownNow();
        for (final TopicsResult result : pending)
        {
            fail(result, new IllegalStateException("MirrorAdmin for " + bootstrapServers + " was closed before "
                + "the call was answered"));
        }
        if (executor.isTerminated())
        {
            dropConnection();
        }
    }

    /** Maps an error code to the exception a topic's future fails with, or null for no error. */
    static ApiException exception(final short code, final String message)
    {
        if (code == Errors.NONE.code())
        {
            return null;
        }
        final Errors kafka = MirrorError.kafkaError(code);
        if (kafka != null)
        {
            return kafka.exception(message != null && !message.isEmpty() ? message : kafka.message());
        }
        return new MirrorSyncException(code, message);
    }

    private static List<String> names(final String mirrorName, final Collection<String> topics)
    {
        Objects.requireNonNull(mirrorName, "mirrorName");
        Objects.requireNonNull(topics, "topics");
        final List<String> names = new ArrayList<>();
        for (final String topic : topics)
        {
            Objects.requireNonNull(topic, "a topic name is null");
            if (!names.contains(topic))
            {
                names.add(topic);
            }
        }
        return names;
    }

    private TopicsResult unregister(final String mirrorName, final List<String> names, final boolean release)
    {
        final List<UnregisterMirrorSyncTopicRequestData.TopicState> states = new ArrayList<>();
        names.forEach(t -> states.add(new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicName(t)));
        final UnregisterMirrorSyncTopicRequestData request = new UnregisterMirrorSyncTopicRequestData()
            .setMirrorName(mirrorName).setTopics(states).setRelease(release);
        final TopicsResult result = newResult(names);
        submit(result, request, UnregisterMirrorSyncTopicResponseData.class, response ->
        {
            final ApiException error = exception(response.errorCode(), response.errorMessage());
            result.values().forEach((topic, future) ->
            {
                if (error != null)
                {
                    future.completeExceptionally(error);
                }
                else
                {
                    future.complete(new TopicOutcome(topic, null));
                }
            });
            if (error != null)
            {
                result.all().completeExceptionally(error);
            }
            else
            {
                result.all().complete(null);
            }
        });
        return result;
    }

    private <R extends ApiMessage> TopicsResult submitTopicResults(final List<String> names,
        final ApiMessage request, final Class<R> responseType)
    {
        final TopicsResult result = newResult(names);
        submit(result, request, responseType, response ->
        {
            final Map<String, MirrorTopicResult> byName = new HashMap<>();
            MirrorTopicResult.of(response).forEach(t -> byName.putIfAbsent(t.topicName(), t));
            result.values().forEach((topic, future) ->
            {
                final MirrorTopicResult answer = byName.get(topic);
                if (answer == null)
                {
                    future.completeExceptionally(new KafkaException("The response from " + bootstrapServers
                        + " has no result for topic '" + topic + "'"));
                    return;
                }
                final ApiException error = exception(answer.errorCode(), answer.errorMessage());
                if (error != null)
                {
                    future.completeExceptionally(error);
                }
                else
                {
                    future.complete(new TopicOutcome(topic, answer.errorMessage()));
                }
            });
            completeAll(result);
        });
        return result;
    }

    private static TopicsResult newResult(final List<String> names)
    {
        final Map<String, CompletableFuture<TopicOutcome>> values = new LinkedHashMap<>();
        names.forEach(t -> values.put(t, new CompletableFuture<>()));
        return new TopicsResult(Collections.unmodifiableMap(values), new CompletableFuture<>());
    }

    /** Completes {@code all} once every topic future is done, with the first failure if any. */
    private static void completeAll(final TopicsResult result)
    {
        CompletableFuture.allOf(result.values().values().toArray(new CompletableFuture<?>[0])).whenComplete(
            (ignored, failure) ->
            {
                if (failure != null)
                {
                    result.all().completeExceptionally(failure instanceof CompletionException
                        && failure.getCause() != null ? failure.getCause() : failure);
                }
                else
                {
                    result.all().complete(null);
                }
            });
    }

    /** A response handler that completes a result's futures. */
    @FunctionalInterface
    private interface ResponseHandler<R>
    {
        void handle(R response);
    }

    private <R extends ApiMessage> void submit(final TopicsResult result, final ApiMessage request,
        final Class<R> responseType, final ResponseHandler<R> handler)
    {
        pending.add(result);
        result.all().whenComplete((ignored, failure) -> pending.remove(result));
        try
        {
            executor.execute(() ->
            {
                final R response;
                try
                {
                    response = connected().send(request, responseType);
                }
                catch (final IOException e)
                {
                    dropConnection();
                    fail(result, new KafkaException("Cannot complete " + request.getClass().getSimpleName()
                        .replace("RequestData", "") + " against " + bootstrapServers + ": " + e.getMessage(), e));
                    return;
                }
                catch (final RuntimeException e)
                {
                    fail(result, new KafkaException("Cannot send " + request.getClass().getSimpleName()
                        .replace("RequestData", "") + " to " + bootstrapServers + ": " + e.getMessage(), e));
                    return;
                }
                finally
                {
                    if (closed)
                    {
                        dropConnection();
                    }
                }
                handler.handle(response);
            });
        }
        catch (final RejectedExecutionException e)
        {
            fail(result, new IllegalStateException("MirrorAdmin for " + bootstrapServers + " is closed"));
        }
    }

    private static void fail(final TopicsResult result, final Throwable failure)
    {
        result.values().values().forEach(f -> f.completeExceptionally(failure));
        result.all().completeExceptionally(failure);
    }

    /** The connection, connecting to the first bootstrap server that answers; on the executor thread only. */
    private MirrorWireClient connected() throws IOException
    {
        synchronized (this)
        {
            if (client != null)
            {
                return client;
            }
        }
        final List<String> failures = new ArrayList<>();
        for (final MirrorWireClient.HostPort server : bootstrap)
        {
            try
            {
                final MirrorWireClient connected = MirrorWireClient.connect(server.host(), server.port(), CLIENT_ID,
                    requestTimeoutMs, requestTimeoutMs, security);
                synchronized (this)
                {
                    client = connected;
                }
                return connected;
            }
            catch (final IOException e)
            {
                failures.add(e.getMessage());
            }
        }
        throw new IOException("no bootstrap server answered (" + String.join("; ", failures) + ")");
    }

    private synchronized void dropConnection()
    {
        if (client != null)
        {
            client.close();
            client = null;
        }
    }
}
