package io.syncmirror.broker.controller.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.apache.kafka.raft.Batch;
import org.apache.kafka.raft.BatchReader;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.apache.kafka.raft.RaftClient;
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
 * <p>Snapshots are not written yet, so none should ever be loaded: loading one fails loudly rather than
 * starting a controller without the state it holds.
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
    /** Event thread only: the epoch whose uncommitted records the controller's state may hold, or -1. */
    private int appliedEpoch = NONE;

    /**
     * @param rebuild builds a controller on {@code log}, replaying what it has committed (the constructor of
     *                {@link Controller} with the node's config)
     */
    public ControllerRaftListener(final int nodeId, final RaftClient<MetadataRecord> client,
        final RaftMetadataLog log, final ControllerApis apis, final Function<MetadataLog, Controller> rebuild)
    {
        this.nodeId = nodeId;
        this.client = client;
        this.log = log;
        this.apis = apis;
        this.rebuild = rebuild;
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
        }
        apis.answerCommitted();
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

    @Override
    public void handleLoadSnapshot(final SnapshotReader<MetadataRecord> reader)
    {
        final String id = reader.snapshotId().toString();
        reader.close();
        throw new IllegalStateException("the metadata log holds snapshot " + id + ", and this controller does "
            + "not load snapshots yet");
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
