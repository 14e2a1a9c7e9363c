package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.fetch.FetchContext;
import io.syncmirror.fetch.FetchSession;
import io.syncmirror.fetch.FetchSessionCache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a fetch session learns which of its partitions changed: partitions tell their watchers of every change,
 * parked or not; a session queues a busy partition once per read and never loses a change made after it drained
 * its queue; partitions a request forgets, and sessions that are done, stop being watched.
 */
@Timeout(30)
class SessionWatchTest
{
    private static final String TOPIC = "t";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final int PARTITIONS = 8;
    private static final short VERSION = 17;

    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs);
    private final FetchSessionCache cache = new FetchSessionCache(10, 120_000L, 1L);
    private final List<Partition> partitions = new ArrayList<>();

    @BeforeEach
    void setUp()
    {
        for (int p = 0; p < PARTITIONS; p++)
        {
            partitions.add(SingleBrokerReplicas.lead(replicas, new TopicPartition(TOPIC, p), TOPIC_ID, 1, Map.of()));
        }
    }

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    private static void appendOne(final Partition partition)
    {
        partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
    }

    private static FetchRequestData request(final int sessionId, final int epoch, final int fromPartition,
        final int toPartition, final List<Integer> forgotten)
    {
        final FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopicId(TOPIC_ID);
        for (int p = fromPartition; p < toPartition; p++)
        {
            topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setFetchOffset(0)
                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(1));
        }
        final FetchRequestData data = new FetchRequestData().setSessionId(sessionId).setSessionEpoch(epoch)
            .setReplicaId(-1).setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20);
        if (!topic.partitions().isEmpty())
        {
            data.topics().add(topic);
        }
        if (!forgotten.isEmpty())
        {
            data.forgottenTopicsData().add(new FetchRequestData.ForgottenTopic().setTopicId(TOPIC_ID)
                .setPartitions(new ArrayList<>(forgotten)));
        }
        return data;
    }

    /** A full fetch of every partition whose session watches them all, as the handler's first read does. */
    private SessionWatch fullFetchWatchingAll(final FetchContext full)
    {
        final FetchSession session = full.partitions();
        final SessionWatch watch = new SessionWatch(session);
        watch.beginFetch();
        for (int slot = session.firstSlot(); slot != FetchSession.NO_SLOT; slot = session.nextSlot(slot))
        {
            watch.watch(slot, partitions.get(session.partition(slot)));
            watch.queueRead(slot);
        }
        watch.drainChanged();
        return watch;
    }

    private static List<Integer> drainedPartitions(final SessionWatch watch, final FetchSession session)
    {
        watch.beginFetch();
        watch.drainChanged();
        watch.sortReads();
        final List<Integer> read = new ArrayList<>();
        for (int i = 0; i < watch.readCount(); i++)
        {
            read.add(session.partition(watch.readSlot(i)));
        }
        return read;
    }

    @Test
    void shouldTellAWatcherOfEveryChangeWhetherParkedOrNotAndHoldItOnce()
    {
        final AtomicInteger told = new AtomicInteger();
        final Runnable watcher = told::incrementAndGet;
        final Partition partition = partitions.get(0);
        partition.watch(watcher);
        partition.watch(watcher);

        appendOne(partition);
        appendOne(partition);
        appendOne(partition);

        assertEquals(1, partition.watcherCount(), "watching twice holds the watcher once");
        assertTrue(told.get() >= 3, "told of each of three appends, not only the first: " + told.get());
        final int before = told.get();
        partition.unwatch(watcher);
        appendOne(partition);
        assertEquals(before, told.get(), "an unwatched watcher hears nothing more");
    }

    @Test
    void shouldReadOnlyTheChangedPartitionsQueuingABusyOneOnce()
    {
        final FetchContext full = cache.newContext(request(0, 0, 0, PARTITIONS, List.of()), VERSION, false,
            id -> TOPIC, 0L);
        final SessionWatch watch = fullFetchWatchingAll(full);
        assertFalse(watch.hasChanges());

        appendOne(partitions.get(5));
        appendOne(partitions.get(5));
        appendOne(partitions.get(2));

        assertTrue(watch.hasChanges());
        assertEquals(List.of(2, 5), sortedCopy(drainedPartitions(watch, full.partitions())),
            "the two changed partitions, each once");
        assertFalse(watch.hasChanges());
        assertEquals(List.of(), drainedPartitions(watch, full.partitions()), "nothing changed since");
    }

    @Test
    void shouldQueueAgainAChangeMadeAfterTheQueueWasDrained()
    {
        final FetchContext full = cache.newContext(request(0, 0, 0, PARTITIONS, List.of()), VERSION, false,
            id -> TOPIC, 0L);
        final SessionWatch watch = fullFetchWatchingAll(full);
        appendOne(partitions.get(3));
        watch.beginFetch();
        watch.drainChanged();

        // The fetch has taken partition 3 to read; it changes again before the fetch parks.
        appendOne(partitions.get(3));

        assertTrue(watch.hasChanges(), "the fetch about to park sees the change and reads again");
        final AtomicInteger attempts = new AtomicInteger();
        watch.park(attempts::incrementAndGet);
        appendOne(partitions.get(4));
        appendOne(partitions.get(6));
        assertEquals(1, attempts.get(), "a parked fetch is run once, by the first change");
    }

    @Test
    void shouldStopWatchingForgottenPartitionsAndClosedSessions()
    {
        final FetchContext full = cache.newContext(request(0, 0, 0, PARTITIONS, List.of()), VERSION, false,
            id -> TOPIC, 0L);
        final SessionWatch watch = fullFetchWatchingAll(full);
        final int sessionId = full.complete(0L);
        for (final Partition partition : partitions)
        {
            assertEquals(1, partition.watcherCount());
        }

        final FetchContext incremental = cache.newContext(request(sessionId, 1, 0, 0, List.of(1, 4)), VERSION,
            false, id -> TOPIC, 1L);
        assertEquals(FetchContext.Kind.INCREMENTAL, incremental.kind());
        watch.beginFetch();
        assertEquals(0, partitions.get(1).watcherCount(), "forgotten by the request");
        assertEquals(0, partitions.get(4).watcherCount(), "forgotten by the request");
        assertEquals(1, partitions.get(0).watcherCount());
        incremental.complete(1L);

        // A full fetch replaces the session: the old one's watches go with each partition's next change.
        cache.newContext(request(sessionId, 0, 0, 1, List.of()), VERSION, false, id -> TOPIC, 2L);
        appendOne(partitions.get(0));
        assertEquals(0, partitions.get(0).watcherCount(), "the dropped session's watch left on the first change");
        assertEquals(1, partitions.get(7).watcherCount(), "left on an idle partition until it changes");

        watch.close();
        for (final Partition partition : partitions)
        {
            assertEquals(0, partition.watcherCount(), "a closed session watches nothing");
        }
    }

    @Test
    void shouldNotReadALeftOverSlotTheNextRequestForgot()
    {
        final FetchContext full = cache.newContext(request(0, 0, 0, PARTITIONS, List.of()), VERSION, false,
            id -> TOPIC, 0L);
        final SessionWatch watch = fullFetchWatchingAll(full);
        final FetchSession session = full.partitions();
        // The full response answered partitions 3 and 5 with an error (or records): read them again next time.
        watch.leaveOver(session.slotOf(TOPIC_ID, TOPIC, 3));
        watch.leaveOver(session.slotOf(TOPIC_ID, TOPIC, 5));
        final int sessionId = full.complete(0L);

        // The fetcher backed partition 3 off after that error, so its next request forgets it.
        final FetchContext incremental = cache.newContext(request(sessionId, 1, 0, 0, List.of(3)), VERSION,
            false, id -> TOPIC, 1L);
        assertEquals(FetchContext.Kind.INCREMENTAL, incremental.kind());
        watch.beginFetch();
        watch.readsAll(false);
        watch.queueRequestedAndLeftOver();
        watch.drainChanged();
        watch.sortReads();
        final List<Integer> read = new ArrayList<>();
        for (int i = 0; i < watch.readCount(); i++)
        {
            read.add(session.partition(watch.readSlot(i)));
        }
        assertEquals(List.of(5), read, "partition 3 left the session: answering it would desync the fetcher");
        incremental.complete(1L);
    }

    @Test
    void shouldAskForAFullReadWhenAFetchReadsDifferentlyFromTheSessionsLastOne()
    {
        final FetchContext full = cache.newContext(request(0, 0, 0, PARTITIONS, List.of()), VERSION, false,
            id -> TOPIC, 0L);
        final SessionWatch watch = new SessionWatch(full.partitions());

        assertFalse(watch.beginFetch(7L), "the session's first fetch has nothing to compare with");
        assertTrue(watch.beginFetch(7L), "read as the last one was: the changed partitions are enough");
        // A sync mirror's fetch once its link is known reads registered partitions to the LEO, not the HW.
        assertFalse(watch.beginFetch(8L), "read differently: every partition may answer differently");
        assertTrue(watch.beginFetch(8L));
    }

    private static List<Integer> sortedCopy(final List<Integer> values)
    {
        final List<Integer> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }
}
