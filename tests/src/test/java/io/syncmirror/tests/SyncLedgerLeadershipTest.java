package io.syncmirror.tests;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.raft.LeaderAndEpoch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.controller.quorum.MetadataQuorum;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The source's sync registration ledger and its owner, the leader of the ledger's {@code __mirror_state} partition.
 * The ledger does not follow the controller: controller leadership moves between voters (each leader resigns
 * through Kafka's Raft client) and a Released marker holds across it. It follows its partition: when the owner
 * stops, the partition's new leader loads the ledger from its replica, so the marker the old owner wrote holds
 * there, and every broker passes Register and Unregister on to the owner.
 */
@Timeout(240)
class SyncLedgerLeadershipTest
{
    private static final String MIRROR = "ledger-m";
    private static final String TOPIC = "ledger-t";
    private static final long WAIT_MS = 30_000;

    @Test
    @DisplayName("SU-08 replicated controller: a release committed under another active voter holds when the first "
        + "voter leads again: a stale Register is refused with MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION")
    void shouldHonourAReleaseMadeUnderAnotherLeader() throws Exception
    {
        try (EmbeddedCluster source = EmbeddedCluster.startWithQuorum(3, 3, new HashMap<>(Mirrors.FAST)))
        {
            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                Clients.createTopic(admin, TOPIC, 1, (short)3, Map.of());
            }
            final Uuid topicId = SyncMirrors.topicId(source, TOPIC);
            final int first = awaitLeader(source);
            assertEquals(Errors.NONE.code(), register(source, first, topicId, false).errorCode(),
                "the first Register, on the first leader");
            SyncMirrors.awaitRegistered(source, TOPIC, MIRROR, true, WAIT_MS);

            final int second = moveLeadershipAway(source, first);
            release(source, second);
            SyncMirrors.awaitRegistered(source, TOPIC, MIRROR, false, WAIT_MS);

            // Back to the first voter, deterministically: Kafka's resigning leader names its most caught-up
            // follower as successor, so resigning alone can bounce between the other two. With the third voter
            // stopped, the first is the only voter that can win the next election.
            final int third = 6 - first - second;
            source.stopBroker(third);
            final int leader = moveLeadershipAway(source, second);
            assertEquals(first, leader, "leadership never came back to voter " + first);
            source.startBroker(third);
            source.awaitBrokersRegistered();
            final MirrorTopicResult stale = register(source, first, topicId, false);
            assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), stale.errorCode(),
                "a Register after the release, on the first leader again: " + stale.errorMessage());
            for (int node = 1; node <= source.size(); node++)
            {
                assertTrue(!SyncMirrors.registeredMirrors(source, node, TOPIC).contains(MIRROR),
                    "the stale Register re-registered the mirror on node " + node);
            }
        }
    }

    @Test
    @DisplayName("SU-08 ledger owner: a release written by the owner of the ledger's __mirror_state partition holds "
        + "after that broker stops: the partition's new leader loads it and refuses a stale Register sent to any "
        + "broker")
    void shouldMoveTheLedgerWithItsPartitionsLeader() throws Exception
    {
        final Map<String, String> overrides = new HashMap<>(Mirrors.FAST);
        overrides.put("mirror.state.topic.num.partitions", "3");
        try (EmbeddedCluster source = EmbeddedCluster.startWithQuorum(3, 3, overrides))
        {
            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                Clients.createTopic(admin, TOPIC, 1, (short)3, Map.of());
            }
            final Uuid topicId = SyncMirrors.topicId(source, TOPIC);
            // The first Register creates __mirror_state; it is then passed on to the ledger partition's leader.
            assertEquals(Errors.NONE.code(), register(source, 1, topicId, false).errorCode(), "the first Register");
            SyncMirrors.awaitRegistered(source, TOPIC, MIRROR, true, WAIT_MS);
            final int partition = ledgerPartition(3);
            final int owner = awaitLedgerLeader(source, partition, -1);
            release(source, owner);
            SyncMirrors.awaitRegistered(source, TOPIC, MIRROR, false, WAIT_MS);

            source.stopBroker(owner);
            final int next = awaitLedgerLeader(source, partition, owner);
            final int other = 6 - owner - next;
            final MirrorTopicResult stale = register(source, other, topicId, false);
            assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), stale.errorCode(),
                "a stale Register through broker " + other + " after the owner " + owner + " stopped: " +
                    stale.errorMessage());
            assertEquals(Errors.NONE.code(), register(source, other, topicId, true).errorCode(),
                "a recovery promotion through broker " + other + ", answered by the new owner " + next);
            SyncMirrors.awaitRegistered(source, TOPIC, MIRROR, true, WAIT_MS);
        }
    }

    /** The {@code __mirror_state} partition of the test mirror's ledger record. */
    private static int ledgerPartition(final int partitions)
    {
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
            io.syncmirror.broker.mirror.SyncRegistrationLedger.key(MIRROR))) % partitions;
    }

    /** Waits until the running brokers agree on a live leader of the ledger's partition other than {@code not}. */
    private static int awaitLedgerLeader(final EmbeddedCluster cluster, final int partition, final int not)
        throws InterruptedException
    {
        final int[] leader = {-1};
        Clients.awaitCondition(() ->
        {
            leader[0] = -1;
            for (int node = 1; node <= cluster.size(); node++)
            {
                if (cluster.broker(node) == null)
                {
                    continue;
                }
                final var topic = cluster.broker(node).metadata().image().topic("__mirror_state");
                if (topic.isEmpty())
                {
                    return false;
                }
                final int seen = topic.get().partitions().get(partition).leader();
                if (seen < 0 || seen == not || leader[0] >= 0 && seen != leader[0] || cluster.broker(seen) == null)
                {
                    return false;
                }
                leader[0] = seen;
            }
            return true;
        }, WAIT_MS, "no agreed leader of __mirror_state-" + partition + " other than " + not);
        return leader[0];
    }

    /** Waits until some voter is the active controller; its node id. */
    private static int awaitLeader(final EmbeddedCluster cluster) throws InterruptedException
    {
        final int[] leader = {-1};
        Clients.awaitCondition(() ->
        {
            for (int node = 1; node <= cluster.size(); node++)
            {
                if (cluster.broker(node).isActiveController())
                {
                    leader[0] = node;
                    return true;
                }
            }
            return false;
        }, WAIT_MS, "no active controller");
        return leader[0];
    }

    /** The leader resigns its epoch (Kafka's graceful resignation); waits for another voter to be active. */
    private static int moveLeadershipAway(final EmbeddedCluster cluster, final int leader) throws Exception
    {
        final MetadataQuorum quorum = cluster.broker(leader).metadataQuorum();
        final LeaderAndEpoch current = quorum.client().leaderAndEpoch();
        quorum.client().resign(current.epoch());
        final int[] next = {-1};
        Clients.awaitCondition(() ->
        {
            for (int node = 1; node <= cluster.size(); node++)
            {
                if (cluster.broker(node) == null)
                {
                    continue;
                }
                final LeaderAndEpoch seen = cluster.broker(node).metadataQuorum().client().leaderAndEpoch();
                if (seen.epoch() > current.epoch() && seen.leaderId().isPresent() &&
                    cluster.broker(seen.leaderId().getAsInt()) != null &&
                    cluster.broker(seen.leaderId().getAsInt()).isActiveController())
                {
                    next[0] = seen.leaderId().getAsInt();
                    return true;
                }
            }
            return false;
        }, WAIT_MS, "no new leader after voter " + leader + " resigned epoch " + current.epoch());
        return next[0];
    }

    private static MirrorTopicResult register(final EmbeddedCluster source, final int node,
        final Uuid topicId, final boolean recovery) throws Exception
    {
        try (var client = Mirrors.client(source, node))
        {
            return MirrorTopicResult.of(client.send(new RegisterMirrorSyncTopicRequestData().setMirrorName(MIRROR)
                .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId)
                    .setTopicName(TOPIC).setRecoveryPromotion(recovery))),
                RegisterMirrorSyncTopicResponseData.class)).get(0);
        }
    }

    private static void release(final EmbeddedCluster source, final int node) throws Exception
    {
        try (var client = Mirrors.client(source, node))
        {
            final UnregisterMirrorSyncTopicResponseData response = client.send(
                new UnregisterMirrorSyncTopicRequestData().setMirrorName(MIRROR).setRelease(true).setTopics(List.of(
                    new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicName(TOPIC))),
                UnregisterMirrorSyncTopicResponseData.class);
            assertEquals(Errors.NONE.code(), response.errorCode(), "the release: " + response.errorMessage());
        }
    }
}
