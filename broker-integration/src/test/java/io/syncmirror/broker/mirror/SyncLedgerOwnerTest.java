package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.coordinator.FakeReplicaAccess;
import io.syncmirror.protocol.MirrorError;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ledger's owner: the broker leading the ledger's {@code __mirror_state} partition, reloading it from the
 * partition's log in each leader epoch. Two owners share one log here, as two brokers share a replicated partition.
 */
class SyncLedgerOwnerTest
{
    private static final String MIRROR = "dr";
    private static final Uuid ORDERS = new Uuid(7L, 7L);
    private static final TopicPartition LEDGER = new TopicPartition(MirrorStateStore.TOPIC,
        SyncLedgerOwner.partitionFor(MIRROR, 16));

    private final FakeReplicaAccess replicas = new FakeReplicaAccess();
    /** The controller's committed registration changes, in order. */
    private final List<String> committed = new ArrayList<>();

    private SyncLedgerOwner owner(final int brokerId)
    {
        return new SyncLedgerOwner(brokerId, replicas, (topicId, mirror, registered) ->
        {
            committed.add((registered ? "+" : "-") + mirror + "/" + topicId);
            return org.apache.kafka.common.requests.ApiError.NONE;
        }, () -> true, System::currentTimeMillis, 1_000);
    }

    private static List<SyncRegistrationLedger.Result> register(final SyncLedgerOwner owner, final boolean recovery)
    {
        return owner.withLedger(LEDGER.partition(), ledger -> ledger.register(MIRROR,
            List.of(new SyncRegistrationLedger.RegisterTopic("orders", ORDERS, recovery))));
    }

    private static List<SyncRegistrationLedger.Result> release(final SyncLedgerOwner owner)
    {
        return owner.withLedger(LEDGER.partition(), ledger -> ledger.unregister(MIRROR, List.of(), true));
    }

    @Test
    @DisplayName("SU-08 (ledger owner) a Released marker written while another broker led the ledger's partition "
        + "holds when the first broker leads it again: it reloads the partition and refuses the stale Register")
    void shouldReloadTheLedgerInEachLeaderEpoch()
    {
        final SyncLedgerOwner first = owner(1);
        final SyncLedgerOwner second = owner(2);
        first.onBecomeLeader(LEDGER, 1);
        assertEquals(List.of(SyncRegistrationLedger.Result.ok("orders")), register(first, false));

        first.onResign(LEDGER);
        second.onBecomeLeader(LEDGER, 2);
        assertEquals(List.of(SyncRegistrationLedger.Result.ok("orders")), release(second));

        second.onResign(LEDGER);
        first.onBecomeLeader(LEDGER, 3);
        final SyncRegistrationLedger.Result stale = register(first, false).get(0);
        assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), stale.errorCode(),
            stale.errorMessage());
        assertEquals(List.of("+dr/" + ORDERS, "-dr/" + ORDERS), committed, "the stale Register reached the controller");
        assertEquals(List.of(SyncRegistrationLedger.Result.ok("orders")), register(first, true),
            "a recovery promotion is admitted");
    }

    @Test
    @DisplayName("SU-08 (ledger owner) a broker that does not lead the ledger's partition refuses with NOT_COORDINATOR")
    void shouldRefuseWhenNotLeading()
    {
        final SyncLedgerOwner owner = owner(1);
        assertThrows(NotCoordinatorException.class, () -> register(owner, false));
        owner.onBecomeLeader(LEDGER, 4);
        assertTrue(owner.owns(LEDGER.partition()));
        register(owner, false);
        owner.onResign(LEDGER);
        assertThrows(NotCoordinatorException.class, () -> release(owner));
        assertEquals(List.of("+dr/" + ORDERS), committed);
    }

    @Test
    @DisplayName("SU-07 (ledger owner) a ledger write the partition refuses fails as NOT_COORDINATOR and commits no "
        + "registration change; the next operation reloads what the log holds")
    void shouldNotCommitAChangeWhoseLedgerWriteFailed()
    {
        final SyncLedgerOwner owner = owner(1);
        owner.onBecomeLeader(LEDGER, 1);
        replicas.refuseAppends(LEDGER, true);
        assertThrows(NotCoordinatorException.class, () -> register(owner, false));
        assertTrue(committed.isEmpty(), "a change was committed without its ledger record: " + committed);
        replicas.refuseAppends(LEDGER, false);
        assertEquals(List.of(), owner.withLedger(LEDGER.partition(), ledger -> ledger.entriesOf(MIRROR)));
    }

    @Test
    @DisplayName("SU-08 (ledger owner) loading keeps the ledger records of the partition and skips its other records")
    void shouldLoadOnlyLedgerRecords()
    {
        final MirrorStateRecord state = MirrorStateRecord.unknown(MIRROR, ORDERS, 0, "orders");
        replicas.log(LEDGER).appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord(0L, state.key(), state.value()),
            new SimpleRecord(0L, SyncRegistrationLedger.key(MIRROR), SyncRegistrationLedger.value(List.of(
                new SyncRegistrationLedger.Entry("orders", ORDERS, true))))), 0);
        final SyncLedgerOwner owner = owner(1);
        owner.onBecomeLeader(LEDGER, 1);
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, true)),
            owner.withLedger(LEDGER.partition(), ledger -> ledger.entriesOf(MIRROR)));
    }
}
