package io.syncmirror.broker.mirror;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.protocol.WireSecurity;

/**
 * One mirror's view of its source cluster from this destination broker: which source broker leads each mirrored
 * partition, and the source's log start and end offsets on demand, through kafka-clients' Admin configured with
 * the mirror's source bootstrap servers and client settings (security included). Thread-safe.
 *
 * <p>Leaders are cached per topic and refreshed when a fetcher reports NOT_LEADER_OR_FOLLOWER (KIP-1279: the
 * fetcher asks the metadata manager for the new endpoint). Calls block for at most the request timeout.
 */
public final class SourceCluster implements AutoCloseable
{
    private final String mirrorName;
    private final String bootstrapServers;
    private final Admin admin;
    private final WireSecurity wireSecurity;
    private final long timeoutMs;
    private final Map<String, Described> topics = new ConcurrentHashMap<>();

    /** Describe requests sent to the source, for tests and diagnostics. */
    private final java.util.concurrent.atomic.AtomicLong describes = new java.util.concurrent.atomic.AtomicLong();

    /** For {@link #leader(String, Uuid, int, long)}: a cached description of any age will do. */
    public static final long ANY_AGE = Long.MIN_VALUE;

    /**
     * What is kept of a topic's description, and when it was asked for: its id and each partition's leader
     * (index = partition; {@code null} for a partition the description did not have, {@link Node#noNode()} for one
     * without a leader). Not the {@link TopicDescription}: a destination broker keeps one per mirrored topic, and
     * the replica and ISR lists of every partition in it were about 150 B of heap per mirrored partition replica.
     */
    private record Described(Uuid topicId, Node[] leaders, long askedAtNanos)
    {
        static Described of(final TopicDescription description, final long askedAtNanos)
        {
            int size = 0;
            for (final TopicPartitionInfo info : description.partitions())
            {
                size = Math.max(size, info.partition() + 1);
            }
            final Node[] leaders = new Node[size];
            for (final TopicPartitionInfo info : description.partitions())
            {
                final Node leader = info.leader();
                leaders[info.partition()] = leader == null || leader.isEmpty() ? Node.noNode() : leader;
            }
            return new Described(description.topicId(), leaders, askedAtNanos);
        }
    }

    public SourceCluster(final MirrorDefinition mirror, final String clientId, final long timeoutMs)
    {
        this.mirrorName = mirror.name();
        this.bootstrapServers = mirror.sourceBootstrapServers();
        this.timeoutMs = timeoutMs;
        final Properties props = new Properties();
        props.putAll(mirror.sourceConfigs());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, mirror.sourceBootstrapServers());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int)Math.min(Integer.MAX_VALUE, timeoutMs));
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)Math.min(Integer.MAX_VALUE, timeoutMs));
        this.wireSecurity = WireSecurity.forClientConfigs(mirror.sourceConfigs());
        this.admin = Admin.create(props);
    }

    /** The mirror's source link security, for the mirror RPCs and sync fetches sent over the wire client. */
    public WireSecurity wireSecurity()
    {
        return wireSecurity;
    }

    public String mirrorName()
    {
        return mirrorName;
    }

    public String bootstrapServers()
    {
        return bootstrapServers;
    }

    /** The client settings the mirror's fetch connections use (security settings included). */
    public Admin admin()
    {
        return admin;
    }

    /**
     * The source leader of a partition, from the cache unless {@code refresh}; empty when the source has no leader
     * for it now. Throws KafkaException when the source is unreachable or the topic is unknown there or has
     * another topic id (a topic deleted and re-created at the source is not the one mirrored here).
     */
    public Optional<Node> leader(final String topic, final Uuid topicId, final int partition, final boolean refresh)
    {
        return leader(topic, topicId, partition, refresh ? System.nanoTime() : ANY_AGE);
    }

    /**
     * As {@link #leader(String, Uuid, int, boolean)}, refreshing the topic's description only when the cached one
     * was asked for before {@code describedSinceNanos} ({@link System#nanoTime()}, or {@link #ANY_AGE}): the
     * partitions of one topic that all need a fresh leader (a mirror's start, a source broker gone) share one
     * describe.
     */
    public Optional<Node> leader(final String topic, final Uuid topicId, final int partition,
        final long describedSinceNanos)
    {
        Described described = topics.get(topic);
        if (described == null || !describedSince(described.askedAtNanos, describedSinceNanos))
        {
            final long askedAtNanos = System.nanoTime();
            describes.incrementAndGet();
            described = Described.of(get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic),
                askedAtNanos);
            topics.put(topic, described);
        }
        if (!described.topicId.equals(topicId))
        {
            throw new KafkaException("source topic '" + topic + "' has id " + described.topicId +
                ", not the mirrored id " + topicId + " (deleted and re-created at the source?)");
        }
        final Node[] leaders = described.leaders;
        final Node leader = partition >= 0 && partition < leaders.length ? leaders[partition] : null;
        if (leader == null)
        {
            throw new KafkaException("source topic '" + topic + "' has no partition " + partition);
        }
        return leader.isEmpty() ? Optional.empty() : Optional.of(leader);
    }

    /**
     * Describes, in one request, those of {@code topicNames} not described since {@code describedSinceNanos}, so
     * that the {@link #leader} lookups after it share it. A topic the source does not answer for is left as it
     * was: its own lookup then reports why. False when the source did not answer within the request timeout.
     */
    public boolean describeAhead(final java.util.Collection<String> topicNames, final long describedSinceNanos)
    {
        final List<String> stale = new java.util.ArrayList<>();
        for (final String topic : topicNames)
        {
            final Described cached = topics.get(topic);
            if (cached == null || !describedSince(cached.askedAtNanos, describedSinceNanos))
            {
                stale.add(topic);
            }
        }
        if (stale.isEmpty())
        {
            return true;
        }
        final long askedAtNanos = System.nanoTime();
        final long deadlineNanos = askedAtNanos + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        describes.incrementAndGet();
        final Map<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> answers =
            admin.describeTopics(stale).topicNameValues();
        for (final Map.Entry<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> answer : answers.entrySet())
        {
            try
            {
                final long leftNanos = Math.max(0, deadlineNanos - System.nanoTime());
                topics.put(answer.getKey(), Described.of(answer.getValue().get(leftNanos, TimeUnit.NANOSECONDS),
                    askedAtNanos));
            }
            catch (final ExecutionException e)
            {
                if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException)
                {
                    // The admin client's own deadline (default.api.timeout.ms, the same bound) came first: the
                    // source did not answer, as below. Any other error is the topic's, and its lookup reports it.
                    return false;
                }
            }
            catch (final TimeoutException e)
            {
                return false;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** How many describe requests this client has sent (each {@link #leader} refresh, each describe ahead). */
    public long describeRequests()
    {
        return describes.get();
    }

    /**
     * Whether a description asked for at {@code askedAtNanos} is recent enough for {@code describedSinceNanos}
     * ({@link #ANY_AGE}: any). Not a plain difference: {@code askedAtNanos - Long.MIN_VALUE} overflows to a negative
     * number whenever {@link System#nanoTime()} is positive, which made every cached lookup ask the source again,
     * one describe per partition per step (seconds per coordinator tick at 10k partitions).
     */
    static boolean describedSince(final long askedAtNanos, final long describedSinceNanos)
    {
        return describedSinceNanos == ANY_AGE || askedAtNanos - describedSinceNanos >= 0;
    }

    /** The source's log start offset and log end offset of a partition: {earliest, latest}. */
    public long[] offsets(final TopicPartition partition)
    {
        final ListOffsetsResult.ListOffsetsResultInfo earliest =
            get(admin.listOffsets(Map.of(partition, OffsetSpec.earliest())).all()).get(partition);
        final ListOffsetsResult.ListOffsetsResultInfo latest =
            get(admin.listOffsets(Map.of(partition, OffsetSpec.latest())).all()).get(partition);
        return new long[] {earliest.offset(), latest.offset()};
    }

    private <T> T get(final org.apache.kafka.common.KafkaFuture<T> future)
    {
        try
        {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new KafkaException("source cluster of mirror '" + mirrorName + "' (" + bootstrapServers + "): " +
                e.getCause().getMessage(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new KafkaException("source cluster of mirror '" + mirrorName + "' (" + bootstrapServers +
                ") did not answer within " + timeoutMs + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
    }

    @Override
    public void close()
    {
        admin.close(java.time.Duration.ofSeconds(1));
    }
}
