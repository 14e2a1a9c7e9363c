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

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source partition whose topic has sync mirrors registered: its HW waits for every registered mirror's reported
 * ISR, credits reports only as hazard 1 allows, and re-gates on every registration change (hazard 6).
 */
@Timeout(30)
class PartitionSyncTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Uuid OTHER_ID = Uuid.randomUuid();
    private static final TopicPartition OTHER = new TopicPartition("other", 0);
    /** Links of this broker: few, so that tests fill them. */
    private static final int LINKS = 3;

    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs, LINKS);
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
        registerOn(TOPIC_ID, mirrors);
    }

    private void registerOn(final Uuid topicId, final String... mirrors)
    {
        registered.put(topicId, Set.of(mirrors));
        replicas.onSyncRegistrationChanged(topicId);
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
        return report(replicas.mirrorLinks().handleOf(mirror), destinationEpoch, validatedEpoch, leos);
    }

    private Partition.ReportResult report(final long linkHandle, final int destinationEpoch,
        final int validatedEpoch, final long... leos)
    {
        final int[] ids = {11, 12, 13};
        return partition.onMirrorReport(linkHandle, destinationEpoch, validatedEpoch, ids, leos, leos.length, ids,
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
        + "without it), counted in the held-topics gauge, until a link is released: then it gates on that link")
    void shouldHoldTheHwForAMirrorWithoutALink()
    {
        SingleBrokerReplicas.lead(replicas, OTHER, OTHER_ID, 1, Map.of());
        registerOn(OTHER_ID, "dr-0", "dr-1", "dr-2"); // every link of this broker
        register("late");
        append(4);
        assertEquals(-1, link("late"), "no link left for the mirror");
        assertEquals(0, partition.log().highWatermark(), "held: acknowledging would leave the mirror behind");
        assertEquals(1, replicas.topicsHeldWithoutLink());
        append(2);
        assertEquals(0, partition.log().highWatermark(), "still held");

        registerOn(OTHER_ID, "dr-0", "dr-2"); // dr-1 released: its link is free
        assertEquals(0, replicas.topicsHeldWithoutLink(), "the held topic took the freed link");
        assertTrue(link("late") >= 0);
        assertEquals(0, partition.log().highWatermark(), "gated on the late mirror, which has not reported");
        report("late", 0, 5, 6, 6, 6);
        assertEquals(6, partition.log().highWatermark());
    }

    @Test
    @DisplayName("SU-13 a freed link goes to the next mirror with a new generation: a late report of its previous "
        + "holder is refused and credits nothing, and its fetch no longer reads to the LEO")
    void shouldFenceTheLinksPreviousHolder()
    {
        register("keeper", "old");
        final long oldHandle = replicas.mirrorLinks().handleOf("old");
        append(5);
        report("keeper", 0, 5, 2, 2, 2);
        report(oldHandle, 0, 5, 2, 2, 2);
        assertEquals(2, partition.log().highWatermark());
        assertTrue(partition.syncLinkRegistered(oldHandle));

        register("keeper"); // old released: no topic hosted here has it
        assertEquals(-1, link("old"));
        register("keeper", "new");
        final long newHandle = replicas.mirrorLinks().handleOf("new");
        assertEquals(MirrorLinks.index(oldHandle), MirrorLinks.index(newHandle), "the same link, reused");
        assertNotEquals(MirrorLinks.generation(oldHandle), MirrorLinks.generation(newHandle));
        report("keeper", 0, 5, 5, 5, 5); // only the new holder gates now

        assertEquals(Partition.ReportResult.NOT_REGISTERED, report(oldHandle, 0, 5, 5, 5, 5),
            "a report resolved before the release");
        assertEquals(2, partition.log().highWatermark(), "nothing credited to the new holder");
        assertFalse(partition.syncLinkRegistered(oldHandle), "the old holder's fetch reads to the HW");
        assertTrue(partition.syncLinkRegistered(newHandle));
        report(newHandle, 0, 5, 4, 4, 4);
        assertEquals(4, partition.log().highWatermark());
    }

    @Test
    @DisplayName("SU-13 a mirror that takes a leaving mirror's place in one registration change, with no other "
        + "link free, gets the link only after it stopped gating, and starts with nothing reported")
    void shouldHandOverALinkOnlyAfterItStoppedGating()
    {
        register("a", "b", "old"); // every link of this broker
        append(5);
        report("a", 0, 5, 2, 2, 2);
        report("b", 0, 5, 5, 5, 5);
        report("old", 0, 5, 5, 5, 5);
        assertEquals(2, partition.log().highWatermark());
        final int oldLink = link("old");
        register("a", "b", "new");
        assertEquals(oldLink, link("new"), "the only link there is");
        assertEquals(0, replicas.topicsHeldWithoutLink());
        report("a", 0, 5, 5, 5, 5);
        assertEquals(2, partition.log().highWatermark(), "new has not reported: old's report is not new's");
        report("new", 0, 5, 5, 5, 5);
        assertEquals(5, partition.log().highWatermark());
    }

    @Test
    @DisplayName("SU-13 a new holder of a link starts without its previous holder's destination leader epoch")
    void shouldForgetThePreviousHoldersDestinationEpoch()
    {
        register("keeper", "old");
        final int oldLink = link("old");
        append(5);
        report("keeper", 0, 5, 1, 1, 1);
        report("old", 9, 5, 1, 1, 1); // a destination whose leader is at epoch 9
        register("keeper");
        register("keeper", "new");
        assertEquals(oldLink, link("new"), "old's link");
        report("keeper", 0, 5, 5, 5, 5);
        report("new", 0, 5, 5, 5, 5); // another destination, leader epoch 0
        assertEquals(5, partition.log().highWatermark(), "epoch 0 of another cluster is not older than 9");
    }

    @Test
    @DisplayName("SU-13 the link of a mirror whose only hosted topic left this broker is released")
    void shouldReleaseTheLinkOfARemovedTopic()
    {
        SingleBrokerReplicas.lead(replicas, OTHER, OTHER_ID, 1, Map.of());
        registerOn(OTHER_ID, "dr-0", "dr-1", "dr-2");
        register("late");
        assertEquals(1, replicas.topicsHeldWithoutLink());
        replicas.onPartitionRemoved(OTHER);
        assertEquals(0, replicas.topicsHeldWithoutLink(), "the removed topic's links went to the held one");
        assertEquals(-1, link("dr-0"));
        assertTrue(link("late") >= 0);
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
        SingleBrokerReplicas.lead(replicas, OTHER, OTHER_ID, 1, Map.of());
        registerOn(OTHER_ID, "west");
        assertEquals(Partition.ReportResult.NOT_REGISTERED, report("west", 0, 5, 1, 1, 1));
    }
}
