package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A source partition whose topic has sync mirrors registered: its HW waits for every registered mirror's reported
 * ISR, credits reports only as hazard 1 allows, and re-gates on every registration change (hazard 6).
 */
@Timeout(30)
class PartitionSyncTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs);
    private final Map<Uuid, Set<String>> registered = new ConcurrentHashMap<>();
    private Partition partition;

    @BeforeEach
    void setUp()
    {
        replicas.syncRegistrations(topicId -> registered.getOrDefault(topicId, Set.of()));
        becomeLeader(5);
    }

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    private void becomeLeader(final int epoch)
    {
        partition = SingleBrokerReplicas.lead(replicas, TP, TOPIC_ID, epoch, Map.of());
    }

    private void register(final String... mirrors)
    {
        registered.put(TOPIC_ID, Set.of(mirrors));
        replicas.onSyncRegistrationChanged(TOPIC_ID);
    }

    private void append(final int records)
    {
        for (int i = 0; i < records; i++)
        {
            partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(("v" + i).getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
        }
    }

    private int link(final String mirror)
    {
        return replicas.mirrorLinks().indexOf(mirror);
    }

    /** Reports destination replicas 11, 12, 13 at the given LEOs, all in the ISR, MinISR 2. */
    private Partition.ReportResult report(final String mirror, final int destinationEpoch, final int validatedEpoch,
        final long... leos)
    {
        final int[] ids = {11, 12, 13};
        return partition.onMirrorReport(link(mirror), destinationEpoch, validatedEpoch, ids, leos, leos.length, ids,
            leos.length, 2);
    }

    @Test
    @DisplayName("SU-04 the source partition's HW waits for the registered mirror's ISR, then for the slowest mirror")
    void shouldWaitForEveryRegisteredMirror()
    {
        register("east");
        append(10);
        assertEquals(0, partition.log().highWatermark(), "no report yet: the initial-fetch window holds the HW");
        assertEquals(Partition.ReportResult.APPLIED, report("east", 0, 5, 10, 7, 8));
        assertEquals(7, partition.log().highWatermark(), "the lowest LEO of east's ISR");
        register("east", "west");
        assertEquals(7, partition.log().highWatermark(), "west has not reported: the HW stays");
        report("west", 0, 5, 9, 9, 9);
        report("east", 0, 5, 10, 10, 10);
        assertEquals(9, partition.log().highWatermark(), "gated on the slowest mirror, west");
    }

    @Test
    @DisplayName("SU-13 removing a registration (release) recomputes the HW at once without that mirror")
    void shouldRecomputeWhenARegistrationLeaves()
    {
        register("east", "west");
        append(6);
        report("east", 0, 5, 6, 6, 6);
        report("west", 0, 5, 2, 2, 2);
        assertEquals(2, partition.log().highWatermark());
        register("east");
        assertEquals(6, partition.log().highWatermark(), "west released: only east and the local ISR gate");
        register();
        append(1);
        assertEquals(7, partition.log().highWatermark(), "no mirror left: single-cluster Kafka");
    }

    @Test
    @DisplayName("SU-13 a registered mirror this broker has no link for holds the HW (nothing is acknowledged "
        + "without it), counted in the held-topics gauge, until its registration goes")
    void shouldHoldTheHwForAMirrorWithoutALink()
    {
        for (int i = 0; i < io.syncmirror.broker.adapter.MirrorLinks.MAX_LINKS; i++)
        {
            replicas.mirrorLinks().indexOrAssign("earlier-" + i); // links given to mirrors since released
        }
        register("late");
        append(4);
        assertEquals(-1, link("late"), "no link left for the mirror");
        assertEquals(0, partition.log().highWatermark(), "held: acknowledging would leave the mirror behind");
        assertEquals(1, replicas.topicsHeldWithoutLink());
        append(2);
        assertEquals(0, partition.log().highWatermark(), "still held");
        register();
        assertEquals(6, partition.log().highWatermark(), "the registration went: single-cluster Kafka again");
        assertEquals(0, replicas.topicsHeldWithoutLink());
    }

    @Test
    @DisplayName("hazard 1: a report validated against another source leader epoch credits nothing")
    void shouldCreditOnlyReportsValidatedInThisLeadersEpoch()
    {
        register("east");
        append(4);
        report("east", 0, 4, 4, 4, 4);
        assertEquals(0, partition.log().highWatermark(), "validated against epoch 4, the leader is at 5");
        report("east", 0, 5, 4, 4, 4);
        assertEquals(4, partition.log().highWatermark());
    }

    @Test
    @DisplayName("hazard 1: reports of a deposed destination leader are ignored; a new one starts afresh")
    void shouldFenceADeposedDestinationLeader()
    {
        register("east");
        append(8);
        report("east", 3, 5, 5, 5, 5);
        assertEquals(5, partition.log().highWatermark());
        report("east", 2, 5, 8, 8, 8);
        assertEquals(5, partition.log().highWatermark(), "epoch 2 is older than 3: ignored");
        report("east", 4, 5, 8, 8, 8);
        assertEquals(8, partition.log().highWatermark());
    }

    @Test
    @DisplayName("a new source leadership gates on the registered mirrors from its first HW on")
    void shouldGateFromTheFirstHwOfANewLeadership()
    {
        register("east");
        append(3);
        report("east", 0, 5, 3, 3, 3);
        assertEquals(3, partition.log().highWatermark());
        append(2);
        becomeLeader(6);
        assertEquals(3, partition.log().highWatermark(), "the new epoch waits for a report to it");
        report("east", 0, 6, 5, 5, 5);
        assertEquals(5, partition.log().highWatermark());
    }

    @Test
    @DisplayName("SU-11 a report for a topic without the mirror registered is answered NOT_REGISTERED")
    void shouldRefuseReportsOfUnregisteredMirrors()
    {
        register("east");
        append(1);
        replicas.mirrorLinks().indexOrAssign("west");
        assertEquals(Partition.ReportResult.NOT_REGISTERED, report("west", 0, 5, 1, 1, 1));
    }
}
