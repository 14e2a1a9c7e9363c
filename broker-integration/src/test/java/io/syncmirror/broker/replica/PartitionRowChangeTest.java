package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
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
 * a credit that passed its check and was then delayed holds the row change back until it is done.
 */
@Timeout(30)
class PartitionRowChangeTest
{
    private static final int FOLLOWER = 2;
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
        return replicas.partitionOrNull(new TopicPartition(topic, 0));
    }

    @Test
    void shouldHoldARowChangeUntilADelayedCreditIsDone() throws Exception
    {
        final Uuid aId = Uuid.randomUuid();
        final Partition a = lead("a", aId, 1);
        for (int i = 0; i < 10; i++)
        {
            a.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(("v" + i).getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
        }
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
        final Thread fetch = new Thread(() -> a.onFollowerFetch(aRole, FOLLOWER, 10, System.currentTimeMillis()),
            "fetch");
        fetch.start();
        assertTrue(inCredit.await(10, TimeUnit.SECONDS));
        // Meanwhile metadata moves a's leadership away and hands its row to b (freed slots are reused first).
        final Partition[] b = new Partition[1];
        final Thread metadata = new Thread(() ->
        {
            replicas.onPartitionChanged(new PartitionState("a", aId, 0, List.of(SingleBrokerReplicas.BROKER, FOLLOWER),
                List.of(SingleBrokerReplicas.BROKER, FOLLOWER), FOLLOWER, 2, 2), Map.of());
            b[0] = lead("b", Uuid.randomUuid(), 1);
        }, "metadata");
        metadata.start();
        // The row change waits for the credit in flight (a condition on its thread, not a sleep).
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Arrays.toString(metadata.getStackTrace()).contains("beginRowChange") && metadata.isAlive() &&
            System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertTrue(metadata.isAlive(), "a's row was given up while a credit into it was in flight");
        release.countDown();
        fetch.join();
        metadata.join();
        final Partition.Role bRole = b[0].role();
        assertEquals(aSlot, bRole.slot(), "b took a's row");
        final long bFollowerLeo = replicas.hotPath().replicaLeo(bRole.slot(), bRole.replicaIndex(FOLLOWER));
        assertTrue(bFollowerLeo <= 0, "follower 2 fetched nothing of b, yet b's row holds " + bFollowerLeo);
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
