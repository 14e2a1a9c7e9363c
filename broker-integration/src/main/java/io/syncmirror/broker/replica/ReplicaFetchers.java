package io.syncmirror.broker.replica;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.network.BlockingNodeClient;
import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.network.NodeClients;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.fetch.FetchTarget;
import io.syncmirror.fetch.FetchTransport;
import io.syncmirror.fetch.FetcherConfig;
import io.syncmirror.fetch.FetcherEngine;
import io.syncmirror.fetch.FetcherThread;

/**
 * The follower side of intra-cluster replication: one fetcher thread per leader broker, on the fetch-pipeline
 * engine, appending what leaders send to this broker's follower logs. Thread-safety: follow/unfollow from any
 * thread; the {@link FetchTarget} callbacks run on each leader's fetcher thread, the only writer of the
 * partitions it fetches.
 */
public final class ReplicaFetchers implements FollowerFetching, FetchTarget
{
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetchers.class);

    private final ReplicaManager replicas;
    private final NodeClients clients;
    private final IntFunction<Optional<BrokerEndpoint>> endpoints;
    private final FetcherConfig config;
    private final ConcurrentHashMap<Integer, FetcherThread> fetchers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, BlockingNodeClient> fetchClients = new ConcurrentHashMap<>();
    /** Which leader each followed partition is fetched from now. */
    private final ConcurrentHashMap<TopicPartition, Integer> leaders = new ConcurrentHashMap<>();
    private final ScheduledExecutorService retries;
    private volatile boolean paused;

    /**
     * @param endpoints a broker id's advertised endpoint, from the metadata image.
     */
    public ReplicaFetchers(final ReplicaManager replicas, final NodeClients clients,
        final IntFunction<Optional<BrokerEndpoint>> endpoints, final FetcherConfig config)
    {
        this.replicas = replicas;
        this.clients = clients;
        this.endpoints = endpoints;
        this.config = config;
        this.retries = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "replica-fetch-retry-" + replicas.brokerId());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public synchronized void follow(final Partition partition, final int leaderId, final int leaderEpoch)
    {
        final TopicPartition tp = partition.topicPartition();
        final Integer previous = leaders.put(tp, leaderId);
        if (previous != null && previous != leaderId)
        {
            final FetcherThread old = fetchers.get(previous);
            if (old != null)
            {
                old.engine().removePartition(tp);
            }
        }
        final FetcherThread fetcher = fetchers.computeIfAbsent(leaderId, this::startFetcher);
        if (fetcher == null)
        {
            leaders.remove(tp);
            LOG.warn("no endpoint known for broker {}, the leader of {}; not fetching until metadata names one",
                leaderId, tp);
            return;
        }
        if (!paused)
        {
            fetcher.engine().addPartition(new TopicIdPartition(partition.topicId(), tp), partition.log().logEndOffset(),
                leaderEpoch);
        }
    }

    @Override
    public synchronized void unfollow(final Partition partition)
    {
        final Integer leader = leaders.remove(partition.topicPartition());
        if (leader != null)
        {
            final FetcherThread fetcher = fetchers.get(leader);
            if (fetcher != null)
            {
                fetcher.engine().removePartition(partition.topicPartition());
            }
        }
    }

    /**
     * Stops (true) or resumes (false) fetching every partition, as a stalled follower would: for tests of ISR
     * shrink and expansion.
     */
    public synchronized void paused(final boolean pause)
    {
        this.paused = pause;
        for (final Map.Entry<TopicPartition, Integer> entry : leaders.entrySet())
        {
            final FetcherThread fetcher = fetchers.get(entry.getValue());
            final Partition partition = replicas.partitionOrNull(entry.getKey());
            if (fetcher == null || partition == null)
            {
                continue;
            }
            if (pause)
            {
                fetcher.engine().removePartition(entry.getKey());
            }
            else
            {
                fetcher.engine().addPartition(new TopicIdPartition(partition.topicId(), entry.getKey()),
                    partition.log().logEndOffset(), partition.role().leaderEpoch());
            }
        }
    }

    private FetcherThread startFetcher(final int leaderId)
    {
        final Optional<BrokerEndpoint> endpoint = endpoints.apply(leaderId);
        if (endpoint.isEmpty())
        {
            return null;
        }
        // The fetcher thread sends and polls itself, as Kafka's replica fetcher does: no hand-off to a client
        // I/O thread and back on each round trip (two thread wake-ups saved per follower fetch).
        final BlockingNodeClient client = new BlockingNodeClient(
            new Node(leaderId, endpoint.get().host(), endpoint.get().port()),
            NodeClientConfig.defaults("replica-fetcher-" + replicas.brokerId()), Time.SYSTEM,
            clients.securityConfigs());
        fetchClients.put(leaderId, client);
        final FetchTransport transport = new FetchTransport()
        {
            @Override
            public CompletableFuture<FetchResponse> send(final FetchRequest.Builder request)
            {
                try
                {
                    return CompletableFuture.completedFuture(client.<FetchResponse>sendAndReceive(request));
                }
                catch (final RuntimeException ex)
                {
                    return CompletableFuture.failedFuture(ex);
                }
            }

            @Override
            public boolean isReady()
            {
                return true;
            }
        };
        final FetcherThread thread = new FetcherThread("replica-fetcher-" + replicas.brokerId() + "-from-" + leaderId,
            new FetcherEngine(config, leaderId, transport, this), replicas::nowMs);
        thread.start();
        return thread;
    }

    // ------------------------------------------------------------------------------------------------------
    // FetchTarget: on the leader's fetcher thread.
    // ------------------------------------------------------------------------------------------------------

    @Override
    public long onRecords(final TopicPartition tp, final Records records, final long highWatermark,
        final long logStartOffset)
    {
        final Partition partition = replicas.partitionOrNull(tp);
        if (partition == null || partition.isLeader())
        {
            return RETRY_LATER;
        }
        final MemoryRecords memory = records instanceof MemoryRecords m ? m : MemoryRecords.EMPTY;
        return partition.appendAsFollower(memory, highWatermark, logStartOffset);
    }

    @Override
    public long onDivergingEpoch(final TopicPartition tp, final int epoch, final long endOffset)
    {
        final Partition partition = replicas.partitionOrNull(tp);
        if (partition == null || partition.isLeader())
        {
            return RETRY_LATER;
        }
        final PartitionLog log = partition.log();
        long truncateTo;
        if (epoch < 0 || endOffset < 0)
        {
            // The leader has no epoch at or below ours: everything above our HW may diverge.
            truncateTo = log.highWatermark();
        }
        else
        {
            // Kafka's rule: the end of the leader's epoch, or of our own largest epoch at or below it if earlier.
            truncateTo = endOffset;
            final Optional<PartitionLog.EpochEndOffset> ours = log.endOffsetForEpoch(epoch);
            if (ours.isPresent())
            {
                truncateTo = Math.min(truncateTo, ours.get().endOffset());
            }
        }
        LOG.info("{}: leader's epoch {} ends at {}; truncating from {} to {}", tp, epoch, endOffset,
            log.logEndOffset(), truncateTo);
        return partition.truncateTo(truncateTo);
    }

    @Override
    public long onOffsetOutOfRange(final TopicPartition tp)
    {
        final Partition partition = replicas.partitionOrNull(tp);
        final Integer leader = leaders.get(tp);
        if (partition == null || leader == null)
        {
            return RETRY_LATER;
        }
        final FetcherThread fetcher = fetchers.get(leader);
        final Optional<BrokerEndpoint> endpoint = endpoints.apply(leader);
        if (fetcher == null || endpoint.isEmpty())
        {
            return RETRY_LATER;
        }
        try
        {
            final NodeClient client = clients.get(leader, endpoint.get().host(), endpoint.get().port());
            final long leaderEnd = listOffset(client, tp, ListOffsetsRequest.LATEST_TIMESTAMP);
            final long ourEnd = partition.log().logEndOffset();
            if (leaderEnd >= 0 && leaderEnd < ourEnd)
            {
                // An unclean election left the leader behind us: drop what it never had.
                return partition.truncateTo(leaderEnd);
            }
            final long leaderStart = listOffset(client, tp, ListOffsetsRequest.EARLIEST_TIMESTAMP);
            if (leaderStart < 0)
            {
                return RETRY_LATER;
            }
            return ourEnd < leaderStart ? partition.truncateFullyAndStartAt(leaderStart) : ourEnd;
        }
        catch (final Exception ex)
        {
            LOG.info("{}: offset out of range and the leader's offsets are unknown ({}); retrying", tp, ex.toString());
            return RETRY_LATER;
        }
    }

    private long listOffset(final NodeClient client, final TopicPartition tp, final long timestamp) throws Exception
    {
        final ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
            .forReplica(org.apache.kafka.common.protocol.ApiKeys.LIST_OFFSETS.latestVersion(), replicas.brokerId())
            .setTargetTimes(java.util.List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName(tp.topic())
                .setPartitions(java.util.List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                    .setPartitionIndex(tp.partition()).setTimestamp(timestamp)))));
        final ListOffsetsResponse response = client.<ListOffsetsResponse>send(request).get(10, TimeUnit.SECONDS);
        for (final ListOffsetsResponseData.ListOffsetsTopicResponse topic : response.data().topics())
        {
            for (final ListOffsetsResponseData.ListOffsetsPartitionResponse p : topic.partitions())
            {
                if (p.errorCode() == Errors.NONE.code())
                {
                    return p.offset();
                }
            }
        }
        return -1L;
    }

    @Override
    public void onPartitionError(final TopicPartition tp, final Errors error)
    {
        // The leader may not have applied the metadata naming it yet (or already moved on): try again after a
        // back-off while this broker's metadata still names that leader.
        final Integer leader = leaders.get(tp);
        try
        {
            scheduleRetry(tp, leader);
        }
        catch (final RejectedExecutionException closing)
        {
            // close() failed the fetchers' requests on purpose; nothing fetches again.
            LOG.debug("not retrying {} after {}: the fetchers are closing", tp, error);
        }
    }

    private void scheduleRetry(final TopicPartition tp, final Integer leader)
    {
        retries.schedule(() ->
        {
            final Partition partition = replicas.partitionOrNull(tp);
            if (partition != null && !partition.isLeader() && leader != null && leader.equals(leaders.get(tp)) &&
                !paused)
            {
                final FetcherThread fetcher = fetchers.get(leader);
                if (fetcher != null)
                {
                    fetcher.engine().addPartition(new TopicIdPartition(partition.topicId(), tp),
                        partition.log().logEndOffset(), partition.role().leaderEpoch());
                }
            }
        }, config.backoffMs(), TimeUnit.MILLISECONDS);
    }

    @Override
    public int latestEpoch(final TopicPartition tp)
    {
        final Partition partition = replicas.partitionOrNull(tp);
        return partition == null ? -1 : partition.log().latestEpoch().orElse(-1);
    }

    @Override
    public long logEndOffset(final TopicPartition tp)
    {
        final Partition partition = replicas.partitionOrNull(tp);
        return partition == null ? -1L : partition.log().logEndOffset();
    }

    @Override
    public long localLogStartOffset(final TopicPartition tp)
    {
        final Partition partition = replicas.partitionOrNull(tp);
        return partition == null ? -1L : partition.log().logStartOffset();
    }

    @Override
    public void close()
    {
        retries.shutdownNow();
        for (final BlockingNodeClient client : fetchClients.values())
        {
            client.close(); // ends a long-poll in progress, so the thread sees it must stop
        }
        for (final FetcherThread fetcher : fetchers.values())
        {
            fetcher.close();
        }
        for (final BlockingNodeClient client : fetchClients.values())
        {
            client.release();
        }
        fetchers.clear();
        fetchClients.clear();
    }
}
