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
import io.syncmirror.hwgate.MirrorError;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.TopicResultsResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The source's sync registration ledger under a replicated controller: it lives with the active controller, and
 * leadership moves between voters without any node restarting (each leader resigns through Kafka's Raft client).
 * A Released marker set while another voter led must hold when the first voter leads again, though that voter had
 * read the mirror's entries before the release.
 */
@Timeout(240)
class SyncLedgerLeadershipTest
{
    private static final String MIRROR = "ledger-m";
    private static final String TOPIC = "ledger-t";
    private static final long WAIT_MS = 30_000;

    @Test
    @DisplayName("SU-08 replicated controller: a release committed under another active voter holds when the first "
        + "voter leads again: its stale Register is refused with MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION")
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
            final TopicResultsResponseData.TopicResult stale = register(source, first, topicId, false);
            assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), stale.errorCode(),
                "a Register after the release, on the first leader again: " + stale.errorMessage());
            for (int node = 1; node <= source.size(); node++)
            {
                assertTrue(!SyncMirrors.registeredMirrors(source, node, TOPIC).contains(MIRROR),
                    "the stale Register re-registered the mirror on node " + node);
            }
        }
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

    private static TopicResultsResponseData.TopicResult register(final EmbeddedCluster source, final int node,
        final Uuid topicId, final boolean recovery) throws Exception
    {
        try (var client = Mirrors.client(source, node))
        {
            return client.send(new RegisterMirrorSyncTopicRequestData().setMirrorName(MIRROR).setTopics(List.of(
                new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(topicId).setTopicName(TOPIC)
                    .setRecoveryPromotion(recovery))), RegisterMirrorSyncTopicResponseData.class).topics().get(0);
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
