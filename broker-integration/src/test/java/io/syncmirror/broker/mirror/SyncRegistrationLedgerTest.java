package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.protocol.MirrorError;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyncRegistrationLedgerTest
{
    private static final Uuid ORDERS = new Uuid(1L, 1L);
    private static final Uuid PAYMENTS = new Uuid(1L, 2L);

    /** __mirror_state as a map of its latest values. */
    private static final class Store implements SyncRegistrationLedger.LedgerRecords
    {
        final Map<String, byte[]> raw = new ConcurrentHashMap<>();
        boolean failWrites;

        @Override
        public void write(final byte[] key, final byte[] value)
        {
            if (failWrites)
            {
                throw new org.apache.kafka.common.KafkaException("writing __mirror_state timed out");
            }
            raw.put(java.util.Arrays.toString(key), value);
        }

        @Override
        public Optional<byte[]> read(final byte[] key)
        {
            return Optional.ofNullable(raw.get(java.util.Arrays.toString(key)));
        }
    }

    /** The metadata log's registration changes, in order. */
    private final List<String> changes = new ArrayList<>();
    private final Store store = new Store();
    private final AtomicBoolean canGate = new AtomicBoolean(true);

    private SyncRegistrationLedger ledger()
    {
        return new SyncRegistrationLedger(store, (topicId, mirror, registered) ->
        {
            changes.add((registered ? "+" : "-") + mirror + "/" + topicId);
            return org.apache.kafka.common.requests.ApiError.NONE;
        }, canGate::get);
    }

    private static SyncRegistrationLedger.RegisterTopic topic(final String name, final Uuid id, final boolean recovery)
    {
        return new SyncRegistrationLedger.RegisterTopic(name, id, recovery);
    }

    @Test
    @DisplayName("SU-07 (source admission) a Register without a Released marker is admitted and emits the "
        + "registration change")
    void shouldAdmitARegisterWithoutAMarker()
    {
        final SyncRegistrationLedger ledger = ledger();
        final List<SyncRegistrationLedger.Result> results = ledger.register("dr",
            List.of(topic("orders", ORDERS, false), topic("payments", PAYMENTS, false)));
        assertEquals(List.of(SyncRegistrationLedger.Result.ok("orders"), SyncRegistrationLedger.Result.ok("payments")),
            results);
        assertEquals(List.of("+dr/" + ORDERS, "+dr/" + PAYMENTS), changes);
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, false),
            new SyncRegistrationLedger.Entry("payments", PAYMENTS, false)), ledger.entriesOf("dr"));
    }

    @Test
    @DisplayName("SU-08 a release leaves a sticky Released marker: a stale Register is refused, a recovery "
        + "Register clears it, and a new coordinator rebuilds the marker from __mirror_state")
    void shouldKeepTheReleasedMarkerUntilARecoveryRegister()
    {
        final SyncRegistrationLedger ledger = ledger();
        ledger.register("dr", List.of(topic("orders", ORDERS, false)));
        ledger.unregister("dr", List.of(), true);
        assertEquals(List.of("+dr/" + ORDERS, "-dr/" + ORDERS), changes);

        // Coordinator failover: a new instance reads the marker back.
        final SyncRegistrationLedger rebuilt = ledger();
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, true)), rebuilt.entriesOf("dr"));
        final SyncRegistrationLedger.Result stale = rebuilt.register("dr", List.of(topic("orders", ORDERS, false)))
            .get(0);
        assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), stale.errorCode());
        assertEquals(2, changes.size(), "a refused Register changes nothing");

        assertEquals(SyncRegistrationLedger.Result.ok("orders"),
            rebuilt.register("dr", List.of(topic("orders", ORDERS, true))).get(0));
        assertEquals("+dr/" + ORDERS, changes.get(2));
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, false)), ledger().entriesOf("dr"));
    }

    @Test
    @DisplayName("SU-10 (source side) a source that cannot gate answers MIRROR_SYNC_VERSION_MISMATCH per topic "
        + "and changes nothing")
    void shouldRefuseWhenTheSourceCannotGate()
    {
        canGate.set(false);
        final SyncRegistrationLedger.Result result = ledger().register("dr", List.of(topic("orders", ORDERS,
            false))).get(0);
        assertEquals(MirrorError.MIRROR_SYNC_VERSION_MISMATCH.code(), result.errorCode());
        assertTrue(result.errorMessage().contains("mirror.sync.version"), result.errorMessage());
        assertTrue(changes.isEmpty());
        assertTrue(store.raw.isEmpty());
    }

    @Test
    @DisplayName("releasing one destination marks only that destination; the other stays registered")
    void shouldReleaseOnlyTheNamedDestination()
    {
        final SyncRegistrationLedger ledger = ledger();
        ledger.register("dr-east", List.of(topic("orders", ORDERS, false)));
        ledger.register("dr-west", List.of(topic("orders", ORDERS, false)));
        ledger.unregister("dr-east", List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, false)), true);
        assertEquals(List.of("+dr-east/" + ORDERS, "+dr-west/" + ORDERS, "-dr-east/" + ORDERS), changes);
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, false)), ledger.entriesOf("dr-west"));
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, true)), ledger.entriesOf("dr-east"));
    }

    @Test
    void shouldForgetACleanlyUnregisteredTopicAndKeepAMarkerThroughACleanUnregister()
    {
        final SyncRegistrationLedger ledger = ledger();
        ledger.register("dr", List.of(topic("orders", ORDERS, false), topic("payments", PAYMENTS, false)));
        ledger.unregister("dr", List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, false)), false);
        ledger.unregister("dr", List.of(new SyncRegistrationLedger.Entry("payments", PAYMENTS, false)), true);
        ledger.unregister("dr", List.of(new SyncRegistrationLedger.Entry("payments", PAYMENTS, false)), false);
        assertEquals(List.of(new SyncRegistrationLedger.Entry("payments", PAYMENTS, true)), ledger().entriesOf("dr"));
    }

    @Test
    void shouldNotEmitTheChangeWhenTheLedgerCannotBePersisted()
    {
        final SyncRegistrationLedger ledger = ledger();
        store.failWrites = true;
        assertThrows(org.apache.kafka.common.KafkaException.class,
            () -> ledger.register("dr", List.of(topic("orders", ORDERS, false))));
        assertTrue(changes.isEmpty(), "partition leaders never learn a registration the ledger does not hold");
        store.failWrites = false;
        assertTrue(ledger.entriesOf("dr").isEmpty(), "the failed change is not kept in memory either");
    }

    @Test
    void shouldRejectACorruptRecord()
    {
        final byte[] value = SyncRegistrationLedger.value(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS,
            true)));
        assertEquals(List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, true)),
            SyncRegistrationLedger.parseValue(value));
        assertThrows(IllegalArgumentException.class,
            () -> SyncRegistrationLedger.parseValue(java.util.Arrays.copyOf(value, value.length - 1)));
        final byte[] newer = value.clone();
        newer[1] = 2; // versions 0 and 1 are known
        assertThrows(IllegalArgumentException.class, () -> SyncRegistrationLedger.parseValue(newer));
    }

    @Test
    @DisplayName("SU-01 a Register or Unregister numbered below the highest the ledger applied for the topic is "
        + "refused FENCED_LEADER_EPOCH and changes nothing, also after the topic was unregistered and after a "
        + "reload; an unnumbered one (a release, a failover's Unregister) is not fenced")
    void shouldFenceLateDriverRequests()
    {
        final SyncRegistrationLedger ledger = ledger();
        final long register = (5L << 32) | 1;
        final long unregister = (5L << 32) | 2;
        assertEquals(Errors.NONE.code(), ledger.register("dr", List.of(topic("orders", ORDERS, false)), register)
            .get(0).errorCode());
        ledger.unregister("dr", List.of(new SyncRegistrationLedger.Entry("orders", ORDERS, false)), false, unregister);
        assertEquals(List.of(), ledger.entriesOf("dr"));
        changes.clear();

        final SyncRegistrationLedger.Result late = ledger.register("dr", List.of(topic("orders", ORDERS, false)),
            register).get(0);
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), late.errorCode(), late.errorMessage());
        assertEquals(List.of(), ledger.entriesOf("dr"), "a late Register does not register again");
        assertEquals(List.of(), changes);
        assertEquals(unregister, ledger().driverFence("dr", ORDERS), "the fence is persisted with the ledger");
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), ledger().register("dr", List.of(topic("orders", ORDERS,
            false)), register).get(0).errorCode());

        assertEquals(Errors.NONE.code(), ledger.register("dr", List.of(topic("orders", ORDERS, false)), -1L).get(0)
            .errorCode(), "not numbered: not fenced");
        assertEquals(Errors.NONE.code(), ledger.register("dr", List.of(topic("orders", ORDERS, false)),
            (6L << 32) | 1).get(0).errorCode(), "a new driver's number ranks above");
        assertEquals(Map.of(ORDERS, (6L << 32) | 1), SyncRegistrationLedger.parseFences(
            store.raw.values().iterator().next()));
    }
}
