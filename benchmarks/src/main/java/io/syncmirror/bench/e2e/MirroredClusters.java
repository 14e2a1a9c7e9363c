package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.replica.ReplicaConfig;
import io.syncmirror.broker.server.BrokerConfig;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * The clusters of one sync benchmark run, in this JVM on loopback: a source cluster holding the benchmark topics
 * and {@code destinations} destination clusters, each with a cluster mirror of the source that includes every
 * benchmark topic by regex. Not thread-safe: one controlling thread starts it, asks it and closes it.
 *
 * <p>Startup is built to stay practical at 100k partitions: topics are created in batches of about
 * {@link #PARTITIONS_PER_CREATE_BATCH} partitions per CreateTopics call, leaders are awaited with describe calls
 * of about as many partitions that only ask again about topics not yet ready, and each destination learns the
 * topics from one include regex (the mirror's create runs its metadata sync at once, so no topic waits for a
 * refresh cycle), then is polled with DescribeClusterMirrors until every partition is MIRRORING.
 */
public final class MirroredClusters implements AutoCloseable
{
    /** The name of the cluster mirror on every destination. */
    public static final String MIRROR_NAME = "bench";
    /** The prefix of every benchmark topic; the mirror's include regex matches it and nothing else. */
    public static final String TOPIC_PREFIX = "sync-bench-";
    /** About how many partitions one CreateTopics or DescribeTopics call names. */
    static final int PARTITIONS_PER_CREATE_BATCH = 10_000;
    /** Partitions of each destination's {@code __mirror_state}, as many as Kafka gives {@code __consumer_offsets}. */
    static final int MIRROR_STATE_PARTITIONS = 50;

    private static final long POLL_INTERVAL_MS = 500;
    private static final long PROGRESS_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int CLIENT_TIMEOUT_MS = 120_000;

    private final SyncBenchOptions options;
    private final PrintStream out;
    private final List<String> topics;
    private EmbeddedCluster source;
    private final List<EmbeddedCluster> destinations = new ArrayList<>();

    private MirroredClusters(final SyncBenchOptions options, final PrintStream out)
    {
        this.options = options;
        this.out = out;
        this.topics = topicNames(options.topics());
    }

    /**
     * Starts the source, creates the topics, starts each destination and its mirror, and returns once every
     * partition is mirroring on every destination; timings go to {@code out}.
     *
     * @throws TimeoutException when a step does not finish within {@code options.setupTimeoutSeconds()}
     */
    public static MirroredClusters start(final SyncBenchOptions options, final PrintStream out) throws Exception
    {
        final MirroredClusters clusters = new MirroredClusters(options, out);
        try
        {
            clusters.startAll();
        }
        catch (final Exception | Error ex)
        {
            clusters.close();
            throw ex;
        }
        return clusters;
    }

    /** The benchmark topics' names, in order: topic {@code i} is {@code sync-bench-<i, zero-padded>}. */
    public List<String> topics()
    {
        return topics;
    }

    public EmbeddedCluster source()
    {
        return source;
    }

    public List<EmbeddedCluster> destinations()
    {
        return List.copyOf(destinations);
    }

    /** The source brokers' addresses, for clients that talk to one broker at a time. */
    public List<MirrorWireClient.HostPort> sourceBrokers()
    {
        final List<MirrorWireClient.HostPort> brokers = new ArrayList<>();
        for (int node = 1; node <= source.size(); node++)
        {
            brokers.add(new MirrorWireClient.HostPort("127.0.0.1", source.port(node)));
        }
        return brokers;
    }

    /**
     * The bench's topics: a counter, then a tag mixed from it. Counted names alone ("x-0000" .. "x-0999") hash
     * 100k partitions onto about 11k TopicPartition hash values, and the producer's own maps (kafka-clients'
     * accumulator and metadata) then spend the load generator's thread walking hash bins: at 100k partitions it
     * took most of the machine and its own delay showed as ack latency. The tag spreads the names' hashes.
     */
    static List<String> topicNames(final int count)
    {
        final int width = Math.max(4, Integer.toString(count - 1).length());
        final List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int mixed = (i + 1) * 0x9E3779B9;
            names.add(TOPIC_PREFIX + String.format(Locale.ROOT, "%0" + width + "d-%08x", i,
                mixed ^ (mixed >>> 15)));
        }
        return List.copyOf(names);
    }

    private void startAll() throws Exception
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.setupTimeoutSeconds());
        long stepNs = System.nanoTime();
        source = EmbeddedCluster.start(options.brokers(), sourceOverrides());
        out.printf(Locale.ROOT, "setup: source cluster of %d broker(s) up in %.1f s%n", options.brokers(),
            seconds(stepNs));
        stepNs = System.nanoTime();
        createTopics(deadlineNs);
        out.printf(Locale.ROOT, "setup: %d topic(s), %d partitions, RF %d created in %.1f s%n", topics.size(),
            options.partitions(), options.replicationFactor(), seconds(stepNs));
        stepNs = System.nanoTime();
        awaitLeaders(deadlineNs);
        out.printf(Locale.ROOT, "setup: every source partition has a leader and %d in-sync replica(s) after %.1f s%n",
            options.minInsyncReplicas(), seconds(stepNs));
        for (int d = 1; d <= options.destinations(); d++)
        {
            stepNs = System.nanoTime();
            final EmbeddedCluster destination = EmbeddedCluster.start(options.brokers(), destinationOverrides());
            destinations.add(destination);
            createMirror(destination);
            out.printf(Locale.ROOT, "setup: destination %d of %d broker(s) up and mirror created in %.1f s%n", d,
                options.brokers(), seconds(stepNs));
        }
        stepNs = System.nanoTime();
        for (int d = 0; d < destinations.size(); d++)
        {
            awaitMirroring(d + 1, destinations.get(d), deadlineNs);
        }
        out.printf(Locale.ROOT, "setup: every partition MIRRORING on %d destination(s) after %.1f s%n",
            destinations.size(), seconds(stepNs));
    }

    /** The brokers' {@code broker.session.timeout.ms} (see {@link #commonOverrides}). */
    static final int SESSION_TIMEOUT_MS = 30_000;

    private Map<String, String> commonOverrides()
    {
        final Map<String, String> overrides = new HashMap<>();
        overrides.put(BrokerConfig.LOG_STORAGE_CONFIG, options.storage().equals(SyncBenchOptions.STORAGE_MEMORY) ?
            BrokerConfig.LOG_STORAGE_MEMORY : BrokerConfig.LOG_STORAGE_DURABLE);
        overrides.put(BrokerConfig.DEFAULT_REPLICATION_FACTOR_CONFIG, Integer.toString(options.replicationFactor()));
        overrides.put(BrokerConfig.AUTO_CREATE_TOPICS_CONFIG, "false");
        // A leader needs a hot-path row per partition it leads: room for twice an even share of the benchmark's
        // partitions (leadership is never perfectly even) plus the internal topics'.
        final long evenShare = (options.partitions() + options.brokers() - 1) / options.brokers();
        overrides.put(ReplicaConfig.PARTITION_SLOTS_CONFIG,
            Long.toString(Math.max(ReplicaConfig.PARTITION_SLOTS_DEFAULT, 2 * evenShare + 1024)));
        // Every broker and controller of the run shares this JVM, so the full collections before each window (and
        // FOOTPRINT's) pause them all at once: at 100k partitions one took longer than the embedded clusters' 3 s
        // broker session, the controller fenced brokers as it resumed, and leaderships moved in the measured window.
        overrides.put(BrokerConfig.BROKER_SESSION_TIMEOUT_MS_CONFIG, Integer.toString(SESSION_TIMEOUT_MS));
        overrides.putAll(options.brokerConfigs());
        return overrides;
    }

    private Map<String, String> sourceOverrides()
    {
        return commonOverrides();
    }

    private Map<String, String> destinationOverrides()
    {
        final Map<String, String> overrides = commonOverrides();
        overrides.put(BrokerConfig.MIRROR_LINK_INJECTED_DELAY_MS_CONFIG, Double.toString(options.injectedDelayMs()));
        // The mirror's create syncs its topics at once and nothing changes at the source afterwards: a periodic
        // re-sync (a describe of every topic and its configs) would only add work inside the measured windows.
        overrides.put(BrokerConfig.MIRROR_METADATA_REFRESH_INTERVAL_MS_CONFIG, "3600000");
        // The mirror coordinator writes each partition's state to __mirror_state with acks=all and reads it back by
        // scanning one of its partitions, one mirror partition at a time: the replication factor (the benchmark
        // never fails over, and the topic is off the measured path) and the partition count (shorter scans) set
        // how long setup takes at many partitions.
        overrides.put(BrokerConfig.MIRROR_STATE_TOPIC_REPLICATION_FACTOR_CONFIG,
            Integer.toString(options.mirrorStateReplicationFactor()));
        overrides.put(BrokerConfig.MIRROR_STATE_TOPIC_PARTITIONS_CONFIG, Integer.toString(MIRROR_STATE_PARTITIONS));
        overrides.putAll(options.brokerConfigs()); // what the run asked for wins over the benchmark's choices
        return overrides;
    }

    private Admin sourceAdmin()
    {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, CLIENT_TIMEOUT_MS,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, CLIENT_TIMEOUT_MS));
    }

    private void createTopics(final long deadlineNs) throws Exception
    {
        final Map<String, String> configs = Map.of("min.insync.replicas",
            Integer.toString(options.minInsyncReplicas()));
        try (Admin admin = sourceAdmin())
        {
            final int topicsPerBatch = topicsPerBatch();
            for (int first = 0; first < topics.size(); first += topicsPerBatch)
            {
                final List<NewTopic> newTopics = new ArrayList<>();
                for (int i = first; i < Math.min(topics.size(), first + topicsPerBatch); i++)
                {
                    newTopics.add(new NewTopic(topics.get(i), options.partitionsOfTopic(i),
                        (short)options.replicationFactor()).configs(configs));
                }
                admin.createTopics(newTopics).all().get(remainingMs(deadlineNs, "creating the source topics"),
                    TimeUnit.MILLISECONDS);
            }
        }
    }

    /** How many topics make about {@link #PARTITIONS_PER_CREATE_BATCH} partitions. */
    private int topicsPerBatch()
    {
        return Math.max(1, PARTITIONS_PER_CREATE_BATCH / options.partitionsPerTopic());
    }

    private void awaitLeaders(final long deadlineNs) throws Exception
    {
        try (Admin admin = sourceAdmin())
        {
            final List<String> waiting = new ArrayList<>(topics);
            long progressNs = System.nanoTime();
            while (true)
            {
                final List<String> notReady = new ArrayList<>();
                final int topicsPerBatch = topicsPerBatch();
                for (int i = 0; i < waiting.size(); i += topicsPerBatch)
                {
                    final List<String> batch = waiting.subList(i, Math.min(waiting.size(), i + topicsPerBatch));
                    final Map<String, TopicDescription> described;
                    try
                    {
                        described = admin.describeTopics(batch).allTopicNames().get(
                            remainingMs(deadlineNs, "waiting for source partition leaders"), TimeUnit.MILLISECONDS);
                    }
                    catch (final ExecutionException ex)
                    {
                        // A topic the brokers' metadata does not show yet: ask again.
                        notReady.addAll(batch);
                        continue;
                    }
                    for (final String topic : batch)
                    {
                        final TopicDescription description = described.get(topic);
                        if (description == null || !ready(description))
                        {
                            notReady.add(topic);
                        }
                    }
                }
                if (notReady.isEmpty())
                {
                    return;
                }
                if (System.nanoTime() - progressNs > PROGRESS_INTERVAL_NS)
                {
                    out.printf(Locale.ROOT, "setup: %d of %d topic(s) still without a leader and ISR on every "
                        + "partition%n", notReady.size(), topics.size());
                    progressNs = System.nanoTime();
                }
                waiting.clear();
                waiting.addAll(notReady);
                sleepUntilNextPoll(deadlineNs, "waiting for source partition leaders: " + notReady.size()
                    + " topic(s) not ready, e.g. " + notReady.get(0));
            }
        }
    }

    private boolean ready(final TopicDescription description)
    {
        for (final TopicPartitionInfo partition : description.partitions())
        {
            if (partition.leader() == null || partition.leader().isEmpty() ||
                partition.isr().size() < options.minInsyncReplicas())
            {
                return false;
            }
        }
        return true;
    }

    private void createMirror(final EmbeddedCluster destination) throws IOException
    {
        try (MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", destination.port(1), "sync-bench",
            CLIENT_TIMEOUT_MS, CLIENT_TIMEOUT_MS))
        {
            final CreateClusterMirrorResponseData created = client.send(new CreateClusterMirrorRequestData()
                .setMirrorName(MIRROR_NAME).setSourceBootstrapServers(source.bootstrapServers())
                .setIncludeTopics(List.of(TOPIC_PREFIX + "[0-9]+-[0-9a-f]{8}")), CreateClusterMirrorResponseData.class);
            if (created.errorCode() != 0)
            {
                throw new IllegalStateException("CreateClusterMirror on the destination failed with error code "
                    + created.errorCode() + ": " + created.errorMessage());
            }
        }
    }

    /** Polls DescribeClusterMirrors until every benchmark topic is there and every partition is MIRRORING. */
    private void awaitMirroring(final int index, final EmbeddedCluster destination, final long deadlineNs)
        throws Exception
    {
        long progressNs = System.nanoTime();
        try (MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", destination.port(1), "sync-bench",
            CLIENT_TIMEOUT_MS, CLIENT_TIMEOUT_MS))
        {
            while (true)
            {
                final MirrorProgress progress = describe(client);
                if (progress.topics == topics.size() && progress.mirroring == options.partitions())
                {
                    return;
                }
                if (System.nanoTime() - progressNs > PROGRESS_INTERVAL_NS)
                {
                    out.printf(Locale.ROOT, "setup: destination %d: %s%n", index, progress.describe(topics.size(),
                        options.partitions()));
                    progressNs = System.nanoTime();
                }
                sleepUntilNextPoll(deadlineNs, "waiting for destination " + index + " to mirror every partition: "
                    + progress.describe(topics.size(), options.partitions()));
            }
        }
    }

    /** What a destination's DescribeClusterMirrors says about the benchmark mirror. */
    private static final class MirrorProgress
    {
        int topics;
        int mirroring;
        final Map<String, Integer> otherStates = new LinkedHashMap<>();
        String lastError;

        String describe(final int expectedTopics, final int expectedPartitions)
        {
            return String.format(Locale.ROOT, "%d of %d topic(s) created, %d of %d partitions MIRRORING%s%s",
                topics, expectedTopics, mirroring, expectedPartitions,
                otherStates.isEmpty() ? "" : ", others " + otherStates,
                lastError == null ? "" : ", last error: " + lastError);
        }
    }

    private static MirrorProgress describe(final MirrorWireClient client) throws IOException
    {
        final DescribeClusterMirrorsResponseData response = client.send(new DescribeClusterMirrorsRequestData()
            .setMirrorNames(List.of(MIRROR_NAME)), DescribeClusterMirrorsResponseData.class);
        final MirrorProgress progress = new MirrorProgress();
        if (response.errorCode() != 0)
        {
            progress.lastError = "error code " + response.errorCode() + ": " + response.errorMessage();
            return progress;
        }
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : response.mirrors())
        {
            if (mirror.errorCode() != 0 || mirror.errorMessage() != null)
            {
                progress.lastError = mirror.errorMessage();
            }
            for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
            {
                if (!topic.topicName().startsWith(TOPIC_PREFIX))
                {
                    continue;
                }
                progress.topics++;
                for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : topic.partitions())
                {
                    if (partition.state() == MirrorPartitionState.MIRRORING.id())
                    {
                        progress.mirroring++;
                    }
                    else
                    {
                        progress.otherStates.merge(MirrorPartitionState.nameOf(partition.state()), 1, Integer::sum);
                        if (partition.lastErrorMessage() != null && !partition.lastErrorMessage().isEmpty())
                        {
                            progress.lastError = partition.lastErrorMessage();
                        }
                    }
                }
            }
        }
        return progress;
    }

    private static void sleepUntilNextPoll(final long deadlineNs, final String what)
        throws TimeoutException, InterruptedException
    {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_INTERVAL_MS) - deadlineNs > 0)
        {
            throw new TimeoutException("setup timed out (--setup-timeout-s) " + what);
        }
        Thread.sleep(POLL_INTERVAL_MS);
    }

    private static long remainingMs(final long deadlineNs, final String what) throws TimeoutException
    {
        final long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
        if (remainingMs <= 0)
        {
            throw new TimeoutException("setup timed out (--setup-timeout-s) " + what);
        }
        return remainingMs;
    }

    private static double seconds(final long sinceNs)
    {
        return (System.nanoTime() - sinceNs) / 1e9;
    }

    /** Stops every destination, then the source; cluster directories are deleted. */
    @Override
    public void close()
    {
        RuntimeException failure = null;
        for (final EmbeddedCluster destination : destinations)
        {
            try
            {
                destination.close();
            }
            catch (final RuntimeException ex)
            {
                failure = failure == null ? ex : failure;
            }
        }
        destinations.clear();
        if (source != null)
        {
            try
            {
                source.close();
            }
            catch (final RuntimeException ex)
            {
                failure = failure == null ? ex : failure;
            }
            source = null;
        }
        if (failure != null)
        {
            throw failure;
        }
    }
}
