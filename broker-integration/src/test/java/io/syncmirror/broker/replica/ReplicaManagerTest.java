package io.syncmirror.broker.replica;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.broker.storage.PartitionLog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class ReplicaManagerTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final AtomicLong nowMs = new AtomicLong(1_000_000);
    private final RecordingIsrChannel isrChannel = new RecordingIsrChannel();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = isrChannel.replicas(logs, nowMs::get);

    @AfterEach
    void close()
    {
        replicas.close();
        logs.close();
    }

    private static PartitionState state(final int leader, final int epoch, final List<Integer> isr)
    {
        return new PartitionState("t", TOPIC_ID, 0, List.of(1, 2, 3), isr, leader, epoch, epoch);
    }

    private static MemoryRecords records(final String... values)
    {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++)
        {
            records[i] = new SimpleRecord(values[i].getBytes());
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** Internal appends run on the broker's internal executor: wait until the leader's log has them. */
    /**
     * Waits until the append reached the log and the leader's own hot-path cell: the log's LEO is visible a moment
     * before the appending thread publishes it to the gate, and a follower report in between would see the leader
     * behind.
     */
    private static void awaitLogEnd(final Partition partition, final long offset) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (partition.log().logEndOffset() < offset ||
            partition.gateLeaderLeo() < offset)
        {
            assertTrue(System.nanoTime() < deadline, "the append never reached the log");
            Thread.sleep(1);
        }
    }

    @Test
    void shouldAcknowledgeAtOnceWhenTheLeaderIsTheOnlyIsrMember() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1)), Map.of());
        final PartitionLog.AppendResult result = replicas.appendAndWait(TP, records("a", "b"), 5_000)
            .get(5, TimeUnit.SECONDS);
        assertEquals(0, result.firstOffset());
        assertEquals(1, result.lastOffset());
        assertEquals(2, replicas.partitionOrNull(TP).log().highWatermark());
    }

    @Test
    void shouldWaitForEveryIsrMemberBeforeAcknowledging() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        final CompletableFuture<PartitionLog.AppendResult> ack = replicas.appendAndWait(TP, records("a", "b", "c"),
            10_000);
        awaitLogEnd(partition, 3);
        assertFalse(ack.isDone(), "acknowledged before the followers had the records");
        partition.onFollowerFetch(partition.role(), 2, 3, nowMs.get());
        Thread.sleep(50);
        assertFalse(ack.isDone(), "acknowledged with one ISR follower behind");
        assertEquals(0, partition.log().highWatermark());
        partition.onFollowerFetch(partition.role(), 3, 3, nowMs.get());
        assertEquals(2, ack.get(5, TimeUnit.SECONDS).lastOffset());
        assertEquals(3, partition.log().highWatermark());
    }

    @Test
    void shouldRefuseAcksAllUnderMinInsyncReplicas()
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1)), Map.of("min.insync.replicas", "2"));
        final ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> replicas.appendAndWait(TP, records("a"), 5_000).get(5, TimeUnit.SECONDS));
        assertInstanceOf(NotEnoughReplicasException.class, failure.getCause());
        assertEquals(0, replicas.partitionOrNull(TP).log().logEndOffset(), "appended although refused");
    }

    @Test
    void shouldFailWaitingProducesWhenLeadershipMoves()
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of());
        final CompletableFuture<PartitionLog.AppendResult> ack = replicas.appendAndWait(TP, records("a"), 10_000);
        replicas.onPartitionChanged(state(2, 1, List.of(2, 3)), Map.of());
        final ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> ack.get(5, TimeUnit.SECONDS));
        assertInstanceOf(NotLeaderOrFollowerException.class, failure.getCause());
    }

    @Test
    void shouldWalkThePartitionsLedHereInTheIsrUpkeep()
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of());
        final Uuid otherId = Uuid.randomUuid();
        replicas.onPartitionChanged(new PartitionState("u", otherId, 0, List.of(1, 2, 3), List.of(1, 2, 3), 2, 0, 0),
            Map.of());
        nowMs.addAndGet(10_001); // neither follower of t-0 fetched: past replica.lag.time.max.ms
        replicas.maybeChangeIsrs();
        assertEquals(List.of(List.of(1)), isrChannel.asked, "t-0, led here, shrinks; u-0 is led by broker 2");
        // Leadership moves away: the upkeep leaves t-0 to its new leader.
        replicas.onPartitionChanged(state(2, 1, List.of(1, 2, 3)), Map.of());
        nowMs.addAndGet(10_001);
        replicas.maybeChangeIsrs();
        assertEquals(1, isrChannel.count());
    }

    @Test
    void shouldLeaveAQuietPartitionOutOfTheIsrUpkeepUntilItsLeaderAppends() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        assertEquals(1, replicas.upkeepVisitCount(), "a new leadership is visited");
        // Both followers fetch at the leader's LEO (0): every replica in the ISR holds the whole log.
        partition.onFollowerFetch(partition.role(), 2, 0, nowMs.get());
        partition.onFollowerFetch(partition.role(), 3, 0, nowMs.get());
        replicas.maybeChangeIsrs();
        assertEquals(0, replicas.upkeepVisitCount(), "a quiet partition stays out of the rounds");
        assertEquals(0, isrChannel.count());

        // An append puts the leader ahead: the partition is visited again, and a follower that stays behind for
        // longer than replica.lag.time.max.ms still leaves the ISR.
        replicas.appendAndWait(TP, records("a"), 60_000);
        awaitLogEnd(partition, 1);
        assertEquals(1, replicas.upkeepVisitCount());
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        replicas.maybeChangeIsrs();
        assertEquals(1, replicas.upkeepVisitCount(), "follower 3 is behind: visited again next round");
        nowMs.addAndGet(10_001);
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        replicas.maybeChangeIsrs();
        assertEquals(List.of(List.of(1, 2)), isrChannel.asked);
    }

    @Test
    void shouldVisitAQuietPartitionAgainWhenAFollowerFallsBackWithoutAnAppend() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        replicas.appendAndWait(TP, records("a", "b"), 60_000);
        awaitLogEnd(partition, 2);
        partition.onFollowerFetch(partition.role(), 2, 2, nowMs.get());
        partition.onFollowerFetch(partition.role(), 3, 2, nowMs.get());
        replicas.maybeChangeIsrs();
        assertEquals(0, replicas.upkeepVisitCount());
        // Follower 3 restarted without its log's tail and fetches from offset 1: no append, the same leadership.
        partition.onFollowerFetch(partition.role(), 3, 1, nowMs.get());
        assertEquals(1, replicas.upkeepVisitCount(), "a follower behind a quiet leader is watched again");
        nowMs.addAndGet(10_001);
        replicas.maybeChangeIsrs();
        assertEquals(List.of(List.of(1, 2)), isrChannel.asked, "it leaves the ISR after the lag window, as in Kafka");
    }

    @Test
    void shouldLeaveAPartitionThatIsNoLongerLedOutOfTheIsrUpkeep()
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2)), Map.of());
        assertEquals(1, replicas.upkeepVisitCount());
        replicas.maybeChangeIsrs();
        assertEquals(1, replicas.upkeepVisitCount(), "replica 3 is out of the ISR: it may join, so it is watched");
        replicas.onPartitionChanged(state(2, 1, List.of(2, 3)), Map.of());
        replicas.maybeChangeIsrs();
        assertEquals(0, replicas.upkeepVisitCount(), "led by broker 2 now");
        replicas.onPartitionChanged(state(1, 2, List.of(1, 2, 3)), Map.of());
        assertEquals(1, replicas.upkeepVisitCount(), "led here again");
    }

    @Test
    void shouldShrinkTheIsrOfALaggingFollowerAndThenAcknowledge() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of("min.insync.replicas", "2"));
        final Partition partition = replicas.partitionOrNull(TP);
        final CompletableFuture<PartitionLog.AppendResult> ack = replicas.appendAndWait(TP, records("a"), 60_000);
        awaitLogEnd(partition, 1);
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        nowMs.addAndGet(10_001); // follower 3 never fetched: past replica.lag.time.max.ms
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(1, isrChannel.count());
        assertEquals(List.of(1, 2), isrChannel.asked.get(0));
        assertFalse(ack.isDone(), "the gate dropped follower 3 before the controller committed it");
        // The controller commits; the change arrives through the metadata log.
        replicas.onPartitionChanged(new PartitionState("t", TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 2), 1, 0, 1),
            Map.of("min.insync.replicas", "2"));
        assertNotNull(ack.get(5, TimeUnit.SECONDS));
        assertEquals(1, partition.log().highWatermark());
    }

    @Test
    void shouldCountAJoiningFollowerBeforeTheControllerCommitsItsExpansion() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        replicas.appendAndWait(TP, records("a"), 60_000);
        awaitLogEnd(partition, 1);
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        partition.onFollowerFetch(partition.role(), 3, 1, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(1, 2, 3), isrChannel.asked.get(0));
        assertEquals(0b111, partition.gateIsrMask(), "the joining follower is not counted by the gate");
        // While the expansion is in flight the HW waits for follower 3 too.
        final CompletableFuture<PartitionLog.AppendResult> ack = replicas.appendAndWait(TP, records("b"), 60_000);
        awaitLogEnd(partition, 2);
        partition.onFollowerFetch(partition.role(), 2, 2, nowMs.get());
        Thread.sleep(50);
        assertFalse(ack.isDone());
        partition.onFollowerFetch(partition.role(), 3, 2, nowMs.get());
        assertTrue(ack.get(5, TimeUnit.SECONDS).lastOffset() >= 1);
    }

    @Test
    void shouldNotProposeAFencedFollowerForTheIsr() throws Exception
    {
        replicas.isrEligibility(brokerId -> brokerId != 3);
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        replicas.appendAndWait(TP, records("a"), 60_000);
        awaitLogEnd(partition, 1);
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        partition.onFollowerFetch(partition.role(), 3, 1, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(0, isrChannel.count(), "asked the controller to add a fenced broker");
        replicas.isrEligibility(brokerId -> true);
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(1, 2, 3), isrChannel.asked.get(0));
    }

    @Test
    void shouldAnswerAProduceAtOnceWhenTheFollowerReportArrivesOnTheProducersOwnThread() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        final io.netty.util.concurrent.DefaultEventExecutor loop = new io.netty.util.concurrent.DefaultEventExecutor();
        try
        {
            // One event loop serves both the producer's and the follower's connection.
            final Boolean answeredInline = loop.submit(() ->
            {
                final ProduceOwner owner = replicas.ownerForCurrentThread();
                final java.util.concurrent.atomic.AtomicBoolean answered = new java.util.concurrent.atomic.AtomicBoolean();
                final int request = owner.begin(1, 60_000, (shard, req) -> answered.set(true));
                partition.appendAsLeader(records("a"), true, owner.shard(), request, false);
                owner.drain();
                partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
                return answered.get();
            }).get(5, TimeUnit.SECONDS);
            assertTrue(answeredInline, "the produce waited for the owner's next poll after its HW was reached");
        }
        finally
        {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldCountACommittedIsrMemberOnlyOnceItReachedTheHighWatermark() throws Exception
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2)), Map.of());
        final Partition partition = replicas.partitionOrNull(TP);
        replicas.appendAndWait(TP, records("a"), 60_000);
        awaitLogEnd(partition, 1);
        partition.onFollowerFetch(partition.role(), 2, 1, nowMs.get());
        assertEquals(1, partition.log().highWatermark());
        // The controller lists follower 3, which has nothing yet: the gate must not let it hold the HW back,
        // nor count it as having the records.
        replicas.onPartitionChanged(new PartitionState("t", TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 1),
            Map.of());
        assertEquals(0b011, partition.gateIsrMask());
        partition.onFollowerFetch(partition.role(), 3, 1, nowMs.get());
        assertEquals(0b111, partition.gateIsrMask(), "a caught-up committed ISR member was not counted again");
        final CompletableFuture<PartitionLog.AppendResult> ack = replicas.appendAndWait(TP, records("b"), 60_000);
        awaitLogEnd(partition, 2);
        partition.onFollowerFetch(partition.role(), 2, 2, nowMs.get());
        Thread.sleep(50);
        assertFalse(ack.isDone(), "acknowledged without follower 3, which the gate counts again");
        partition.onFollowerFetch(partition.role(), 3, 2, nowMs.get());
        assertEquals(1, ack.get(5, TimeUnit.SECONDS).lastOffset());
    }

    @Test
    void shouldFindHostedPartitionsByTopicIdAndForgetRemovedOnes()
    {
        replicas.onPartitionChanged(new PartitionState("t", TOPIC_ID, 5, List.of(1, 2, 3), List.of(1, 2, 3), 2, 0, 0),
            Map.of());
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2, 3)), Map.of());
        assertEquals(new TopicPartition("t", 5), replicas.partitionOrNull(TOPIC_ID, 5).topicPartition());
        assertEquals(TP, replicas.partitionOrNull(TOPIC_ID, 0).topicPartition());
        assertEquals(null, replicas.partitionOrNull(TOPIC_ID, 3));
        assertEquals(null, replicas.partitionOrNull(TOPIC_ID, 64));
        assertEquals(null, replicas.partitionOrNull(Uuid.randomUuid(), 0));
        replicas.onPartitionRemoved(new TopicPartition("t", 5));
        assertEquals(null, replicas.partitionOrNull(TOPIC_ID, 5));
        assertEquals(TP, replicas.partitionOrNull(TOPIC_ID, 0).topicPartition());
        replicas.onPartitionRemoved(TP);
        assertEquals(null, replicas.partitionOrNull(TOPIC_ID, 0));
    }

    @Test
    @DisplayName("Kafka's ISR join rule for a new leader: a follower at the leader's HW but below the LEO its epoch "
        + "began at does not join (it lacks records the previous leader may have committed); at that LEO it does")
    void shouldNotLetAFollowerJoinBelowTheEpochStartOffset()
    {
        replicas.onPartitionChanged(state(1, 0, List.of(1, 2)), Map.of());
        Partition partition = replicas.partitionOrNull(TP);
        partition.appendAsLeader(records("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), false, null, 0, false);
        partition.onFollowerFetch(partition.role(), 2, 4, nowMs.get());
        assertEquals(4, partition.log().highWatermark());

        replicas.onPartitionChanged(state(1, 1, List.of(1, 2)), Map.of()); // epoch 1 begins at LEO 10, HW 4
        partition = replicas.partitionOrNull(TP);
        partition.onFollowerFetch(partition.role(), 3, 6, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(), isrChannel.asked, "follower 3 is at the HW but lacks records 6..9");

        partition.onFollowerFetch(partition.role(), 3, 10, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(List.of(1, 2, 3)), isrChannel.asked);
    }
}
