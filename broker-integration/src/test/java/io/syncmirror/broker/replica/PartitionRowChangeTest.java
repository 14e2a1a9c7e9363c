package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A follower's LEO credit, the one row write without the append lock, never lands in a row its partition gave up:
 * a credit that passed its check and was then delayed holds the row change back until it is done, alone or in a
 * fetch's batch (FollowerCredits), and a batch's credit whose leadership ended before the batch was published
 * writes nothing. A batch moves every partition's HW.
 */
@Timeout(30)
class PartitionRowChangeTest
{
    private static final int FOLLOWER = 2;
    private static final int RECORDS = 10;
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs);

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    private Partition lead(final String topic, final Uuid topicId, final int epoch)
    {
        replicas.onPartitionChanged(new PartitionState(topic, topicId, 0, List.of(SingleBrokerReplicas.BROKER,
            FOLLOWER), List.of(SingleBrokerReplicas.BROKER, FOLLOWER), SingleBrokerReplicas.BROKER, epoch, epoch),
            Map.of());
        final Partition partition = replicas.partitionOrNull(new TopicPartition(topic, 0));
        for (int i = 0; i < RECORDS; i++)
        {
            partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(("v" + i).getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
        }
        return partition;
    }

    private void moveLeadershipAway(final String topic, final Uuid topicId)
    {
        replicas.onPartitionChanged(new PartitionState(topic, topicId, 0, List.of(SingleBrokerReplicas.BROKER,
            FOLLOWER), List.of(SingleBrokerReplicas.BROKER, FOLLOWER), FOLLOWER, 2, 2), Map.of());
    }

    private long followerLeoInRow(final Partition.Role role)
    {
        return replicas.hotPath().replicaLeo(role.slot(), role.replicaIndex(FOLLOWER));
    }

    @Test
    void shouldHoldARowChangeUntilADelayedCreditIsDone() throws Exception
    {
        final Uuid aId = Uuid.randomUuid();
        final Partition a = lead("a", aId, 1);
        final Partition.Role aRole = a.role();
        final int aSlot = aRole.slot();
        final CountDownLatch inCredit = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        a.creditCheckedHook(() ->
        {
            inCredit.countDown();
            awaitQuietly(release);
        });
        // A network thread credits follower 2 at the log end and is held after the credit's check.
        final Thread fetch = new Thread(() -> a.onFollowerFetch(aRole, FOLLOWER, RECORDS,
            System.currentTimeMillis()), "fetch");
        fetch.start();
        assertTrue(inCredit.await(10, TimeUnit.SECONDS));
        // Meanwhile metadata moves a's leadership away and hands its row to b.
        final Partition[] b = new Partition[1];
        final Thread metadata = giveUpRow(aId, b);
        assertTrue(metadata.isAlive(), "a's row was given up while a credit into it was in flight");
        release.countDown();
        fetch.join();
        metadata.join();
        final Partition.Role bRole = b[0].role();
        assertEquals(aSlot, bRole.slot(), "b took a's row");
        assertTrue(followerLeoInRow(bRole) <= 0, "follower 2 fetched nothing of b, yet b's row holds " +
            followerLeoInRow(bRole));
    }

    @Test
    void shouldMoveEveryPartitionsHighWatermarkWithOneBatch()
    {
        final List<Partition> partitions = new ArrayList<>();
        // More than the batch's first capacity, so it grows while it fills.
        final FollowerCredits credits = new FollowerCredits(2);
        final long now = System.currentTimeMillis();
        for (int p = 0; p < 12; p++)
        {
            final Partition partition = lead("t" + p, Uuid.randomUuid(), 1);
            partitions.add(partition);
            assertEquals(0L, partition.log().highWatermark(), "nothing is on the follower yet");
            // The follower holds p + 1 of the 10 records (all 10 from partition 9 on).
            partition.onFollowerFetch(partition.role(), FOLLOWER, Math.min(p + 1, RECORDS), now, credits);
        }
        assertEquals(12, credits.size());
        for (final Partition partition : partitions)
        {
            assertEquals(0L, partition.log().highWatermark(), "a credit is written when the batch is published");
        }
        credits.publish(replicas.hotPath());
        assertEquals(0, credits.size(), "a published batch is empty");
        for (int p = 0; p < partitions.size(); p++)
        {
            final Partition partition = partitions.get(p);
            assertEquals(Math.min(p + 1, RECORDS), partition.log().highWatermark(), "HW of t" + p);
            assertEquals(Math.min(p + 1, RECORDS), followerLeoInRow(partition.role()), "follower's LEO of t" + p);
        }
    }

    @Test
    void shouldDropACreditWhoseLeadershipEndedBeforeThePublish()
    {
        final Uuid aId = Uuid.randomUuid();
        final Partition a = lead("a", aId, 1);
        final Partition c = lead("c", Uuid.randomUuid(), 1);
        final int aSlot = a.role().slot();
        final FollowerCredits credits = new FollowerCredits(2);
        final long now = System.currentTimeMillis();
        a.onFollowerFetch(a.role(), FOLLOWER, RECORDS, now, credits);
        c.onFollowerFetch(c.role(), FOLLOWER, RECORDS, now, credits);
        // Before the fetch publishes, a's leadership moves away and its row goes to b (freed rows are reused first).
        moveLeadershipAway("a", aId);
        final Partition b = lead("b", Uuid.randomUuid(), 1);
        assertEquals(aSlot, b.role().slot(), "b took a's row");
        credits.publish(replicas.hotPath());
        assertTrue(followerLeoInRow(b.role()) <= 0,
            "follower 2 fetched nothing of b, yet b's row holds " + followerLeoInRow(b.role()));
        assertEquals(0L, b.log().highWatermark(), "b's HW moved on a's credit");
        assertEquals(RECORDS, c.log().highWatermark(), "the batch's other credit is written");
    }

    @Test
    void shouldHoldARowChangeUntilABatchThatPassedItsCheckIsDone() throws Exception
    {
        final Uuid aId = Uuid.randomUuid();
        final Partition a = lead("a", aId, 1);
        final Partition c = lead("c", Uuid.randomUuid(), 1);
        final int aSlot = a.role().slot();
        final CountDownLatch inCredit = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        // The batch's second credit is held after its check (a preempted network thread): a's passed already.
        c.creditCheckedHook(() ->
        {
            inCredit.countDown();
            awaitQuietly(release);
        });
        final FollowerCredits credits = new FollowerCredits(2);
        final long now = System.currentTimeMillis();
        a.onFollowerFetch(a.role(), FOLLOWER, RECORDS, now, credits);
        c.onFollowerFetch(c.role(), FOLLOWER, RECORDS, now, credits);
        final Thread fetch = new Thread(() -> credits.publish(replicas.hotPath()), "fetch");
        fetch.start();
        assertTrue(inCredit.await(10, TimeUnit.SECONDS));
        final Partition[] b = new Partition[1];
        final Thread metadata = giveUpRow(aId, b);
        assertTrue(metadata.isAlive(), "a's row was given up while a batch's credit into it was in flight");
        release.countDown();
        fetch.join();
        metadata.join();
        assertEquals(aSlot, b[0].role().slot(), "b took a's row");
        assertTrue(followerLeoInRow(b[0].role()) <= 0,
            "follower 2 fetched nothing of b, yet b's row holds " + followerLeoInRow(b[0].role()));
        assertEquals(RECORDS, c.log().highWatermark(), "c's credit is written");
    }

    /**
     * Starts moving a's leadership away and handing its row to a new partition, b (freed rows are reused first), on
     * a thread of its own; returns once that thread waits in the row change, or ended, or after 10 s (a condition
     * on the thread, not a sleep).
     */
    private Thread giveUpRow(final Uuid aId, final Partition[] b)
    {
        final Thread metadata = new Thread(() ->
        {
            moveLeadershipAway("a", aId);
            b[0] = lead("b", Uuid.randomUuid(), 1);
        }, "metadata");
        metadata.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Arrays.toString(metadata.getStackTrace()).contains("beginRowChange") && metadata.isAlive() &&
            System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        return metadata;
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await(20, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
