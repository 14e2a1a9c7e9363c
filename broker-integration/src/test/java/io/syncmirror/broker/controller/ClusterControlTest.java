package io.syncmirror.broker.controller;

import static io.syncmirror.broker.controller.ControllerFixture.registration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.MetadataRecord;

@Timeout(10)
class ClusterControlTest
{
    private static final long SESSION_TIMEOUT_MS = 9_000;

    private final ManualClock clock = new ManualClock(1_000);
    private final ClusterControl cluster = new ClusterControl(clock, "test-cluster", SESSION_TIMEOUT_MS);

    private void register(final int brokerId, final long epoch, final Uuid incarnation)
    {
        cluster.replay(new MetadataRecord.RegisterBroker(brokerId, epoch, incarnation, "127.0.0.1", 9000 + brokerId,
            null));
    }

    @Test
    void shouldAnswerRegistrationsThatNeedNoRecordAndLetTheRestThrough()
    {
        final Uuid incarnation = Uuid.randomUuid();
        assertNull(cluster.registrationAnswer(registration(1, incarnation)), "a new broker is to be recorded");
        register(1, 7, incarnation);
        cluster.replay(new MetadataRecord.UnfenceBroker(1, 7));

        assertEquals(7, cluster.registrationAnswer(registration(1, incarnation)).brokerEpoch(),
            "a retry of a committed registration gets its epoch");
        assertEquals(Errors.DUPLICATE_BROKER_REGISTRATION.code(),
            cluster.registrationAnswer(registration(1, Uuid.randomUuid())).errorCode(),
            "another incarnation while the first is live and in session");
        assertNull(cluster.registrationAnswer(registration(1, Uuid.randomUuid()).setPreviousBrokerEpoch(7)),
            "a restart that names its previous epoch re-registers");
        assertEquals(Errors.INCONSISTENT_CLUSTER_ID.code(),
            cluster.registrationAnswer(registration(2, Uuid.randomUuid()).setClusterId("other")).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(), cluster.registrationAnswer(registration(2, Uuid.randomUuid())
            .setListeners(new BrokerRegistrationRequestData.ListenerCollection())).errorCode());

        clock.advance(SESSION_TIMEOUT_MS + 1);
        assertNull(cluster.registrationAnswer(registration(1, Uuid.randomUuid())),
            "another incarnation once the live one's session expired");
    }

    @Test
    void shouldExpireOnlyUnfencedBrokersOutOfSessionAndRenewSessionsOnHeartbeatsAndReset()
    {
        register(1, 1, Uuid.randomUuid());
        register(2, 2, Uuid.randomUuid());
        register(3, 3, Uuid.randomUuid());
        cluster.replay(new MetadataRecord.UnfenceBroker(1, 1));
        cluster.replay(new MetadataRecord.UnfenceBroker(2, 2));
        assertEquals(List.of(1, 2), cluster.liveBrokers());

        clock.advance(SESSION_TIMEOUT_MS);
        cluster.onHeartbeat(2, 10);
        assertTrue(cluster.expiredSessions().isEmpty(), "exactly the timeout is still in session");
        clock.advance(1);
        assertEquals(List.of(1), ids(cluster.expiredSessions()), "broker 3 is fenced and so not expired");

        cluster.resetSessions();
        assertTrue(cluster.expiredSessions().isEmpty(), "a new active controller gives everyone a session");
        clock.advance(SESSION_TIMEOUT_MS + 1);
        assertEquals(List.of(1, 2), ids(cluster.expiredSessions()));
    }

    @Test
    void shouldApplyFencingOnlyToTheEpochItNamesAndTrackAppliedOffsetsOfLiveBrokers()
    {
        register(1, 5, Uuid.randomUuid());
        cluster.replay(new MetadataRecord.UnfenceBroker(1, 4));
        assertFalse(cluster.isLive(1), "an unfencing of an older registration does not apply");
        cluster.replay(new MetadataRecord.UnfenceBroker(1, 5));
        assertTrue(cluster.isLive(1));
        cluster.replay(new MetadataRecord.FenceBroker(1, 4));
        assertTrue(cluster.isLive(1), "a fencing of an older registration does not apply");

        assertFalse(cluster.appliedByAllActiveBrokers(0), "no heartbeat yet");
        cluster.onHeartbeat(1, 12);
        assertTrue(cluster.appliedByAllActiveBrokers(12));
        assertFalse(cluster.appliedByAllActiveBrokers(13));
        cluster.replay(new MetadataRecord.FenceBroker(1, 5));
        assertTrue(cluster.appliedByAllActiveBrokers(13), "fenced brokers are not waited for");

        final List<MetadataRecord> snapshot = new ArrayList<>();
        cluster.snapshot(snapshot::add);
        assertEquals(1, snapshot.size(), "a fenced broker is restored by its registration alone: " + snapshot);
    }

    private static List<Integer> ids(final List<ClusterControl.Broker> brokers)
    {
        return brokers.stream().map(b -> b.id).toList();
    }

    @Test
    void shouldCompleteAppliedWaitersOnTheHeartbeatOrFencingThatReachesTheirOffset()
    {
        register(1, 5, Uuid.randomUuid());
        cluster.replay(new MetadataRecord.UnfenceBroker(1, 5));
        register(2, 6, Uuid.randomUuid());
        cluster.replay(new MetadataRecord.UnfenceBroker(2, 6));
        cluster.onHeartbeat(1, 10);
        cluster.onHeartbeat(2, 10);
        assertTrue(cluster.whenAppliedByAllActiveBrokers(10).isDone(), "already applied");

        final var at12 = cluster.whenAppliedByAllActiveBrokers(12);
        final var at20 = cluster.whenAppliedByAllActiveBrokers(20);
        final var givenUp = cluster.whenAppliedByAllActiveBrokers(15);
        givenUp.cancel(false);
        cluster.onHeartbeat(1, 15);
        assertFalse(at12.isDone(), "broker 2 is still at 10");
        cluster.onHeartbeat(2, 12);
        assertTrue(at12.isDone());
        assertFalse(at20.isDone());
        cluster.replay(new MetadataRecord.FenceBroker(2, 6));
        assertFalse(at20.isDone(), "broker 1 is at 15");
        cluster.onHeartbeat(1, 20);
        assertTrue(at20.isDone(), "broker 2 is fenced: not waited for");
    }
}
