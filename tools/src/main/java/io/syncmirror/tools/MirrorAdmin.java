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
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DeleteClusterMirrorRequestData;
import io.syncmirror.protocol.DeleteClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.WireSecurity;

/**
 * The cluster mirroring admin calls, over a {@link MirrorWireClient} to one cluster: the mirror RPCs on a destination
 * (create, delete and describe a mirror, add topics by name or pattern, remove them, alter their mirror type) and the
 * sync calls of the spec's Admin API (registerMirrorSyncTopics, unregisterMirrorSyncTopics, and the source-side
 * release). Thread-safe: every call is queued on one daemon thread, which sends the requests in turn over one
 * connection, so the methods return at once with futures. {@code kafka-cluster-mirrors} sends every request through
 * it, as Kafka's TopicCommand does through Admin.
 *
 * <p>Each call returns a {@link CallResult} with the broker's {@link Answer} as sent, in response order (what a tool
 * prints), and a future for the whole call; a call on named topics returns a {@link TopicsResult} with a future per
 * topic besides. A topic's future fails with the Kafka
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

    /**
     * The broker's answer to one call, as it sent it: the request's own error (0 for none) and message, and each
     * topic's result in response order (empty for an RPC that answers per request). A tool that prints what the
     * broker said, in its order and with its codes, reads this rather than the per-topic futures.
     */
    public record Answer(short errorCode, String errorMessage, List<MirrorTopicResult> topics)
    {
        public Answer
        {
            topics = List.copyOf(topics);
        }

        /** The exception the request's own error maps to (as the futures fail with), or null for none. */
        public ApiException exception()
        {
            return MirrorAdmin.exception(errorCode, errorMessage);
        }
    }

    /**
     * The futures of one call: its {@link Answer}, and one for the whole call. Thread-safe. A call that cannot
     * be completed (no bootstrap server answered, a dropped connection, a timeout, a closed admin) fails every
     * future, the answer's too.
     */
    public static class CallResult
    {
        private final CompletableFuture<Answer> answer = new CompletableFuture<>();
        private final CompletableFuture<Void> all = new CompletableFuture<>();

        CallResult()
        {
        }

        /** The broker's answer as it sent it, errors included; fails only when no answer arrived. */
        public CompletableFuture<Answer> answer()
        {
            return answer;
        }

        /** Completes when the call and every topic succeeded; fails with the first failure otherwise. */
        public CompletableFuture<Void> all()
        {
            return all;
        }

        void fail(final Throwable failure)
        {
            answer.completeExceptionally(failure);
            all.completeExceptionally(failure);
        }
    }

    /** The futures of a call on named topics: one per topic named, the answer, and one for the whole call. */
    public static final class TopicsResult extends CallResult
    {
        private final Map<String, CompletableFuture<TopicOutcome>> values;

        TopicsResult(final Map<String, CompletableFuture<TopicOutcome>> values)
        {
            this.values = values;
        }

        /** Each named topic's future, in the order the topics were given. */
        public Map<String, CompletableFuture<TopicOutcome>> values()
        {
            return values;
        }

        @Override
        void fail(final Throwable failure)
        {
            values.values().forEach(f -> f.completeExceptionally(failure));
            super.fail(failure);
        }
    }

    /**
     * The futures of adding a topic pattern to a mirror. The topics it matches are not known when the call is
     * made, so there are no per-topic futures: the {@link #answer()} holds one result per topic the broker matched
     * and, named like {@link #pattern()}, a result for the pattern itself when the broker could not act on it.
     */
    public static final class PatternResult extends CallResult
    {
        private final String pattern;

        PatternResult(final String pattern)
        {
            this.pattern = pattern;
        }

        /** The pattern as sent. */
        public String pattern()
        {
            return pattern;
        }

        /** Whether {@code result} answers the pattern itself rather than a topic it matched. */
        public boolean isPatternResult(final MirrorTopicResult result)
        {
            return pattern.equals(result.topicName());
        }
    }

    /** The futures of DescribeClusterMirrors: the answer (the request's own error) and the descriptions. */
    public static final class DescribeResult extends CallResult
    {
        private final CompletableFuture<DescribeClusterMirrorsResponseData> response = new CompletableFuture<>();

        DescribeResult()
        {
        }

        /**
         * The whole response, errors included (the request's, each mirror's, each partition's); fails only when
         * no answer arrived.
         */
        public CompletableFuture<DescribeClusterMirrorsResponseData> response()
        {
            return response;
        }

        @Override
        void fail(final Throwable failure)
        {
            response.completeExceptionally(failure);
            super.fail(failure);
        }
    }

    /**
     * A new cluster mirror, as CreateClusterMirror defines it.
     *
     * @param name                   the mirror's name
     * @param sourceBootstrapServers the source cluster's {@code host:port} list
     * @param sourceConfigs          client configs for the connections to the source, sent in iteration order
     * @param mirrorConfigs          settings of the mirror itself, sent in iteration order
     * @param includeTopics          regexes of the source topics to mirror
     * @param excludeTopics          regexes of the source topics never to mirror
     */
    public record NewClusterMirror(String name, String sourceBootstrapServers, Map<String, String> sourceConfigs,
        Map<String, String> mirrorConfigs, List<String> includeTopics, List<String> excludeTopics)
    {
        public NewClusterMirror
        {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(sourceBootstrapServers, "sourceBootstrapServers");
            sourceConfigs = Collections.unmodifiableMap(new LinkedHashMap<>(sourceConfigs));
            mirrorConfigs = Collections.unmodifiableMap(new LinkedHashMap<>(mirrorConfigs));
            includeTopics = List.copyOf(includeTopics);
            excludeTopics = List.copyOf(excludeTopics);
        }
    }

    /**
     * No bootstrap server answered: the connect failure of each server, in the order tried. It is the cause of the
     * {@link KafkaException} a call fails with, so that a tool can print the failure in its own words.
     */
    public static final class BootstrapException extends IOException
    {
        private static final long serialVersionUID = 1L;

        private final List<IOException> failures;

        BootstrapException(final List<IOException> failures)
        {
            super("no bootstrap server answered (" + String.join("; ",
                failures.stream().map(IOException::getMessage).toList()) + ")");
            this.failures = List.copyOf(failures);
        }

        /** Each server's connect failure, in the order the servers were tried; never empty. */
        public List<IOException> failures()
        {
            return failures;
        }
    }

    private final List<MirrorWireClient.HostPort> bootstrap;
    private final String bootstrapServers;
    private final int requestTimeoutMs;
    private final ExecutorService executor;
    /** The calls not yet answered, failed by {@link #close()}. */
    private final Set<CallResult> pending = ConcurrentHashMap.newKeySet();
    private final WireSecurity security;
    private final String clientId;
    private volatile boolean closed;
    /** Whether the thread is connecting or waiting for a response, which {@link #close()} does not wait for. */
    private volatile boolean sending;

    /** The connection, made on the executor thread on first use and after a failure; only that thread uses it. */
    private MirrorWireClient client;

    private MirrorAdmin(final List<MirrorWireClient.HostPort> bootstrap, final String bootstrapServers,
        final int requestTimeoutMs, final WireSecurity security, final String clientId)
    {
        this.security = security;
        this.clientId = clientId;
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
        return create(bootstrapServers, requestTimeoutMs, WireSecurity.forClientConfigs(clientConfigs), CLIENT_ID);
    }

    /**
     * As above, with the connection security already resolved and the client id the broker sees in each request
     * header (a tool names itself, as Kafka's tools do).
     */
    public static MirrorAdmin create(final String bootstrapServers, final int requestTimeoutMs,
        final WireSecurity security, final String clientId)
    {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(clientId, "clientId");
        if (requestTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("requestTimeoutMs must be positive, got " + requestTimeoutMs);
        }
        final List<MirrorWireClient.HostPort> servers = new ArrayList<>();
        for (final String part : bootstrapServers.split(",", -1))
        {
            servers.add(MirrorWireClient.parse(part));
        }
        return new MirrorAdmin(List.copyOf(servers), bootstrapServers, requestTimeoutMs, security, clientId);
    }

    /** Defines a cluster mirror on this (destination) cluster (CreateClusterMirror). */
    public CallResult createClusterMirror(final NewClusterMirror mirror)
    {
        final List<CreateClusterMirrorRequestData.SourceConfig> sourceConfigs = new ArrayList<>();
        mirror.sourceConfigs().forEach((name, value) -> sourceConfigs.add(
            new CreateClusterMirrorRequestData.SourceConfig().setName(name).setValue(value)));
        final List<CreateClusterMirrorRequestData.SourceConfig> mirrorConfigs = new ArrayList<>();
        mirror.mirrorConfigs().forEach((name, value) -> mirrorConfigs.add(
            new CreateClusterMirrorRequestData.SourceConfig().setName(name).setValue(value)));
        final CreateClusterMirrorRequestData request = new CreateClusterMirrorRequestData()
            .setMirrorName(mirror.name()).setSourceBootstrapServers(mirror.sourceBootstrapServers())
            .setSourceConfigs(sourceConfigs).setMirrorConfigs(mirrorConfigs)
            .setIncludeTopics(new ArrayList<>(mirror.includeTopics()))
            .setExcludeTopics(new ArrayList<>(mirror.excludeTopics()));
        final CallResult result = new CallResult();
        submit(result, request, CreateClusterMirrorResponseData.class,
            response -> completeWhole(result, response.errorCode(), response.errorMessage()));
        return result;
    }

    /** Deletes a cluster mirror's definition (DeleteClusterMirror). */
    public CallResult deleteClusterMirror(final String mirrorName)
    {
        Objects.requireNonNull(mirrorName, "mirrorName");
        final CallResult result = new CallResult();
        submit(result, new DeleteClusterMirrorRequestData().setMirrorName(mirrorName),
            DeleteClusterMirrorResponseData.class,
            response -> completeWhole(result, response.errorCode(), response.errorMessage()));
        return result;
    }

    /**
     * Describes cluster mirrors (DescribeClusterMirrors), with every partition of the cluster, not only this
     * broker's.
     *
     * @param mirrorNames the mirrors to describe, or null for every mirror
     */
    public DescribeResult describeClusterMirrors(final List<String> mirrorNames)
    {
        final DescribeResult result = new DescribeResult();
        submit(result, new DescribeClusterMirrorsRequestData().setMirrorNames(mirrorNames == null ? null
            : new ArrayList<>(mirrorNames)), DescribeClusterMirrorsResponseData.class, response ->
            {
                result.response().complete(response);
                completeWhole(result, response.errorCode(), response.errorMessage());
            });
        return result;
    }

    /**
     * Adds every source topic whose whole name matches {@code pattern} to a mirror, now and as they appear
     * (AddTopicsToMirror with one TopicPattern).
     */
    public PatternResult addTopicPatternToMirror(final String mirrorName, final String pattern,
        final MirrorType mirrorType)
    {
        Objects.requireNonNull(mirrorName, "mirrorName");
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(mirrorType, "mirrorType");
        final PatternResult result = new PatternResult(pattern);
        submit(result, new AddTopicsToMirrorRequestData().setTopicPatterns(List.of(
            new AddTopicsToMirrorRequestData.TopicPattern().setPattern(pattern).setMirrorName(mirrorName)
                .setMirrorType(mirrorType.id()))), AddTopicsToMirrorResponseData.class, response ->
            {
                final List<MirrorTopicResult> topics = MirrorTopicResult.of(response);
                result.answer().complete(new Answer(Errors.NONE.code(), null, topics));
                final MirrorTopicResult failed = topics.stream().filter(t -> t.errorCode() != Errors.NONE.code())
                    .findFirst().orElse(null);
                completeAll(result, failed == null ? null : exception(failed.errorCode(), failed.errorMessage()));
            });
        return result;
    }

    /**
     * Removes topics from a mirror (RemoveTopicsFromMirror): each stops mirroring and fails over to writable once
     * its partitions are STOPPED.
     */
    public TopicsResult removeTopicsFromMirror(final String mirrorName, final Collection<String> topics)
    {
        final List<String> names = names(mirrorName, topics);
        final List<RemoveTopicsFromMirrorRequestData.TopicState> states = new ArrayList<>();
        names.forEach(t -> states.add(new RemoveTopicsFromMirrorRequestData.TopicState().setTopicName(t)
            .setMirrorName(mirrorName)));
        return submitTopicResults(names, new RemoveTopicsFromMirrorRequestData().setTopics(states),
            RemoveTopicsFromMirrorResponseData.class);
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
     * connection itself when that request ends. With no call in flight it waits for the thread to finish the tail
     * of the last one, and closes the connection before it returns.
     */
    @Override
    public void close()
    {
        closed = true;
        executor.shutdownNow();
        if (!sending)
        {
            // No request is on the wire, but the thread may still be finishing the last call (its futures
            // complete before its task returns); wait for that tail so that the connection is closed here, not
            // left open until the process exits.
            awaitIdleThread();
        }
        for (final CallResult result : pending)
        {
            result.fail(new IllegalStateException("MirrorAdmin for " + bootstrapServers + " was closed before "
                + "the call was answered"));
        }
        if (executor.isTerminated())
        {
            dropConnection();
        }
    }

    private void awaitIdleThread()
    {
        try
        {
            executor.awaitTermination(requestTimeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
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
            completeWhole(result, response.errorCode(), response.errorMessage());
        });
        return result;
    }

    private <R extends ApiMessage> TopicsResult submitTopicResults(final List<String> names,
        final ApiMessage request, final Class<R> responseType)
    {
        final TopicsResult result = newResult(names);
        submit(result, request, responseType, response ->
        {
            final List<MirrorTopicResult> answers = MirrorTopicResult.of(response);
            result.answer().complete(new Answer(Errors.NONE.code(), null, answers));
            final Map<String, MirrorTopicResult> byName = new HashMap<>();
            answers.forEach(t -> byName.putIfAbsent(t.topicName(), t));
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
        return new TopicsResult(Collections.unmodifiableMap(values));
    }

    /** Completes the answer and {@code all} of a call the broker answers with one error for the whole request. */
    private static void completeWhole(final CallResult result, final short errorCode, final String errorMessage)
    {
        result.answer().complete(new Answer(errorCode, errorMessage, List.of()));
        completeAll(result, exception(errorCode, errorMessage));
    }

    private static void completeAll(final CallResult result, final ApiException error)
    {
        if (error != null)
        {
            result.all().completeExceptionally(error);
        }
        else
        {
            result.all().complete(null);
        }
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

    private <R extends ApiMessage> void submit(final CallResult result, final ApiMessage request,
        final Class<R> responseType, final ResponseHandler<R> handler)
    {
        pending.add(result);
        result.all().whenComplete((ignored, failure) -> pending.remove(result));
        try
        {
            executor.execute(() ->
            {
                final R response;
                sending = true;
                try
                {
                    response = connected().send(request, responseType);
                }
                catch (final IOException e)
                {
                    dropConnection();
                    result.fail(new KafkaException("Cannot complete " + request.getClass().getSimpleName()
                        .replace("RequestData", "") + " against " + bootstrapServers + ": " + e.getMessage(), e));
                    return;
                }
                catch (final RuntimeException e)
                {
                    result.fail(new KafkaException("Cannot send " + request.getClass().getSimpleName()
                        .replace("RequestData", "") + " to " + bootstrapServers + ": " + e.getMessage(), e));
                    return;
                }
                finally
                {
                    sending = false;
                    if (closed)
                    {
                        dropConnection();
                    }
                }
                try
                {
                    handler.handle(response);
                }
                catch (final RuntimeException e)
                {
                    // Without this a response the handler cannot read would leave the call's futures pending.
                    result.fail(new KafkaException("Cannot read the " + response.getClass().getSimpleName()
                        .replace("ResponseData", "") + " response from " + bootstrapServers + ": " + e.getMessage(),
                        e));
                }
            });
        }
        catch (final RejectedExecutionException e)
        {
            result.fail(new IllegalStateException("MirrorAdmin for " + bootstrapServers + " is closed"));
        }
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
        final List<IOException> failures = new ArrayList<>();
        for (final MirrorWireClient.HostPort server : bootstrap)
        {
            try
            {
                final MirrorWireClient connected = MirrorWireClient.connect(server.host(), server.port(), clientId,
                    requestTimeoutMs, requestTimeoutMs, security);
                synchronized (this)
                {
                    client = connected;
                }
                return connected;
            }
            catch (final IOException e)
            {
                failures.add(e);
            }
        }
        throw new BootstrapException(failures);
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
