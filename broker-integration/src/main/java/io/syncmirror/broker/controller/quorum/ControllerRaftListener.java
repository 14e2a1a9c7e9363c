package io.syncmirror.broker.controller.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.BatchReader;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.apache.kafka.raft.RaftClient;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.SnapshotReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.controller.Controller;
import io.syncmirror.broker.controller.ControllerApis;
import io.syncmirror.broker.controller.MetadataLog;
import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * Feeds one controller from the metadata quorum, as Kafka's {@code QuorumController} listens to its Raft
 * client: commits and leader changes arrive on the Raft driver thread and are handed, in order, to the
 * controller's event thread ({@link ControllerApis#execute}), where all controller state lives.
 *
 * <ul>
 *   <li>A committed batch of the epoch this node leads was applied when its records were emitted: it only moves
 *   the committed end, which answers the operations waiting for it. Any other batch is replayed (a standby, or
 *   a leader catching up before Raft tells it that it leads).</li>
 *   <li>Raft reports this node's leadership only once every record before the epoch is committed and delivered,
 *   so claiming it is safe at once; a new leader also gives every broker a fresh session, having seen none of
 *   their heartbeats.</li>
 *   <li>When the claimed epoch ends (another leader, or a new epoch of this node after a resignation), the state
 *   may hold records that never commit: the controller is rebuilt from the committed log before anything else is
 *   applied, and the operations still waiting fail with NOT_CONTROLLER.</li>
 * </ul>
 *
 * <p>Snapshots, as Kafka's controller takes them: once {@link SnapshotPolicy#maxNewBytes} of committed batches
 * (or {@link SnapshotPolicy#maxIntervalMs} with new ones) have arrived since the last, the controller's state is
 * written as a snapshot at the committed end through Kafka's {@code createSnapshot}, and Kafka's Raft log deletes
 * what lies below it once {@code metadata.max.retention.*} is exceeded. The state must then be the committed one:
 * on a standby it always is, the active controller waits for a commit that leaves nothing of its own in flight.
 * A snapshot Kafka's Raft hands over (at start, or fetched from the leader by a voter behind its log start)
 * replaces the state: the controller is rebuilt from it.
 */
public final class ControllerRaftListener implements RaftClient.Listener<MetadataRecord>
{
    private static final Logger LOG = LoggerFactory.getLogger(ControllerRaftListener.class);
    private static final int NONE = -1;

    private final int nodeId;
    private final RaftClient<MetadataRecord> client;
    private final RaftMetadataLog log;
    private final ControllerApis apis;
    private final Function<MetadataLog, Controller> rebuild;
    private final SnapshotPolicy snapshots;
    private final LongSupplier nowMs;
    /** Event thread only: the epoch whose uncommitted records the controller's state may hold, or -1. */
    private int appliedEpoch = NONE;
    /** Event thread only: the epoch and append time of the batch holding the last committed offset. */
    private int lastCommittedEpoch = NONE;
    private long lastCommittedTimestamp = NONE;
    /** Event thread only: bytes of committed batches since the last snapshot, and when it was taken. */
    private long bytesSinceSnapshot;
    private long lastSnapshotMs;

    /**
     * When to take a snapshot: Kafka's {@code metadata.log.max.record.bytes.between.snapshots} (at least 1) and
     * {@code metadata.log.max.snapshot.interval.ms} (0: never by time).
     */
    public record SnapshotPolicy(long maxNewBytes, long maxIntervalMs)
    {
        public static final SnapshotPolicy KAFKA_DEFAULTS = new SnapshotPolicy(20L << 20, 60 * 60 * 1000L);

        public SnapshotPolicy
        {
            if (maxNewBytes < 1 || maxIntervalMs < 0)
            {
                throw new IllegalArgumentException("snapshot policy needs maxNewBytes >= 1 and maxIntervalMs >= 0: "
                    + maxNewBytes + ", " + maxIntervalMs);
            }
        }

        boolean due(final long newBytes, final long sinceLastMs)
        {
            return newBytes >= maxNewBytes || (newBytes > 0 && maxIntervalMs > 0 && sinceLastMs >= maxIntervalMs);
        }
    }

    /**
     * @param rebuild builds a controller on {@code log}, replaying what it has committed (the constructor of
     *                {@link Controller} with the node's config)
     */
    public ControllerRaftListener(final int nodeId, final RaftClient<MetadataRecord> client,
        final RaftMetadataLog log, final ControllerApis apis, final Function<MetadataLog, Controller> rebuild)
    {
        this(nodeId, client, log, apis, rebuild, SnapshotPolicy.KAFKA_DEFAULTS, System::currentTimeMillis);
    }

    /** As above, with when to take snapshots and the clock that times them. */
    public ControllerRaftListener(final int nodeId, final RaftClient<MetadataRecord> client,
        final RaftMetadataLog log, final ControllerApis apis, final Function<MetadataLog, Controller> rebuild,
        final SnapshotPolicy snapshots, final LongSupplier nowMs)
    {
        this.nodeId = nodeId;
        this.client = client;
        this.log = log;
        this.apis = apis;
        this.rebuild = rebuild;
        this.snapshots = snapshots;
        this.nowMs = nowMs;
        this.lastSnapshotMs = nowMs.getAsLong();
    }

    @Override
    public void handleCommit(final BatchReader<MetadataRecord> reader)
    {
        final List<Batch<MetadataRecord>> batches = new ArrayList<>();
        try (reader)
        {
            while (reader.hasNext())
            {
                batches.add(reader.next());
            }
        }
        apis.execute(() -> applyCommitted(batches));
    }

    private void applyCommitted(final List<Batch<MetadataRecord>> batches)
    {
        for (final Batch<MetadataRecord> batch : batches)
        {
            if (!batch.records().isEmpty() && batch.epoch() != appliedEpoch)
            {
                if (appliedEpoch != NONE)
                {
                    // Another epoch committed over the one this node led: its state may hold what did not.
                    renounce("a batch of epoch " + batch.epoch() + " committed");
                }
                final Controller controller = apis.controller();
                batch.records().forEach(controller::replayCommitted);
            }
            log.committed(batch.lastOffset() + 1);
            lastCommittedEpoch = batch.epoch();
            lastCommittedTimestamp = batch.appendTimestamp();
            bytesSinceSnapshot += batch.sizeInBytes();
        }
        apis.answerCommitted();
        maybeSnapshot();
    }

    private void maybeSnapshot()
    {
        final long now = nowMs.getAsLong();
        if (!snapshots.due(bytesSinceSnapshot, now - lastSnapshotMs) || lastCommittedEpoch == NONE
            || log.endOffset() != log.highWatermark())
        {
            // Not due, or the active controller's state holds records still in flight: the next commit retries.
            return;
        }
        final long startNs = System.nanoTime();
        final List<MetadataRecord> records = apis.controller().snapshotRecords();
        final long end = log.highWatermark();
        try
        {
            if (log.writeSnapshot(records, lastCommittedEpoch, lastCommittedTimestamp))
            {
                LOG.info("controller {} wrote metadata snapshot {}-{}: {} records in {} ms", nodeId, end,
                    lastCommittedEpoch, records.size(), (System.nanoTime() - startNs) / 1_000_000);
            }
        }
        catch (final RuntimeException e)
        {
            // The log keeps every record a snapshot would have replaced; the next one is tried later.
            LOG.warn("controller {} could not write metadata snapshot at offset {}", nodeId, end, e);
        }
        bytesSinceSnapshot = 0;
        lastSnapshotMs = now;
    }

    @Override
    public void handleLeaderChange(final LeaderAndEpoch leader)
    {
        // Read here, on the driver thread, which is the only one that writes the Raft log's end.
        final long logEnd = client.logEndOffset();
        apis.execute(() -> changeLeader(leader, logEnd));
    }

    private void changeLeader(final LeaderAndEpoch leader, final long logEnd)
    {
        if (appliedEpoch != NONE && leader.epoch() != appliedEpoch)
        {
            renounce("epoch " + leader.epoch() + " began");
        }
        if (leader.isLeader(nodeId) && appliedEpoch == NONE)
        {
            log.claim(leader.epoch(), logEnd);
            appliedEpoch = leader.epoch();
            apis.controller().resetBrokerSessions();
            LOG.info("controller {} is active at epoch {}, appending from offset {}", nodeId, leader.epoch(), logEnd);
        }
    }

    private void renounce(final String why)
    {
        LOG.info("controller {} is no longer active at epoch {} ({}); rebuilding from the {} committed offsets",
            nodeId, appliedEpoch, why, log.highWatermark());
        log.renounce();
        appliedEpoch = NONE;
        apis.renounce(rebuild.apply(log));
    }

    /**
     * Kafka's Raft hands over a snapshot when this listener is behind the log start or starts on a log that has
     * one: the controller is rebuilt from it on the event thread, after everything queued before.
     */
    @Override
    public void handleLoadSnapshot(final SnapshotReader<MetadataRecord> reader)
    {
        final OffsetAndEpoch id = reader.snapshotId();
        final int epoch = reader.lastContainedLogEpoch();
        final long timestamp = reader.lastContainedLogTimestamp();
        reader.close();
        apis.execute(() -> loadSnapshot(id, epoch, timestamp));
    }

    private void loadSnapshot(final OffsetAndEpoch id, final int epoch, final long timestamp)
    {
        if (appliedEpoch != NONE)
        {
            // Raft loads a snapshot into a leader only before it claims; after a claim, this is a new epoch.
            log.renounce();
            appliedEpoch = NONE;
        }
        log.loaded(id);
        lastCommittedEpoch = epoch;
        lastCommittedTimestamp = timestamp;
        bytesSinceSnapshot = 0;
        lastSnapshotMs = nowMs.getAsLong();
        final long startNs = System.nanoTime();
        apis.renounce(rebuild.apply(log));
        apis.answerCommitted();
        LOG.info("controller {} loaded metadata snapshot {} in {} ms", nodeId, id,
            (System.nanoTime() - startNs) / 1_000_000);
    }

    @Override
    public void handleLoadBootstrap(final SnapshotReader<MetadataRecord> reader)
    {
        try (reader)
        {
            while (reader.hasNext())
            {
                if (!reader.next().records().isEmpty())
                {
                    throw new IllegalStateException("the metadata log's bootstrap checkpoint holds records; this "
                        + "controller's records start in the log itself");
                }
            }
        }
    }
}
