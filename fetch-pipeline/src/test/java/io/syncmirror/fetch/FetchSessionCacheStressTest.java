package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several fetchers, each on its own thread, run sessions against one small cache with a shared clock, so that
 * sessions are created, evicted and lost while others are in use. Checks that nothing throws, that a fetcher only
 * ever gets the answers the protocol allows, and that the cache's counters match its sessions at the end.
 */
class FetchSessionCacheStressTest
{
    private static final int THREADS = 4;
    private static final int FETCHES_PER_THREAD = 3_000;
    private static final Uuid TOPIC = new Uuid(5L, 5L);

    @Test
    @Timeout(60)
    void concurrentFetchersKeepTheCacheConsistent() throws InterruptedException
    {
        final FetchSessionCache cache = new FetchSessionCache(3, 50L, 11L);
        final AtomicLong clockMs = new AtomicLong();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final long seed = t + 1;
            final boolean follower = t % 2 == 0;
            final Thread thread = new Thread(() ->
            {
                try
                {
                    start.await();
                    runFetcher(cache, clockMs, new SplittableRandom(seed), follower);
                }
                catch (final Throwable e)
                {
                    failures.add(e);
                }
            }, "stress-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(List.of(), failures);
        assertTrue(cache.size() <= 3);
        assertEquals(null, cache.invariantViolation());
        assertTrue(cache.evictions() > 0, "the run must exercise eviction");
    }

    private static void runFetcher(
        final FetchSessionCache cache, final AtomicLong clockMs, final SplittableRandom random, final boolean follower)
    {
        int sessionId = FetchMetadata.INVALID_SESSION_ID;
        int epoch = FetchMetadata.INITIAL_EPOCH;
        for (int i = 0; i < FETCHES_PER_THREAD; i++)
        {
            final long nowMs = clockMs.addAndGet(random.nextInt(3));
            final FetchRequestData request = new FetchRequestData().setSessionId(sessionId).setSessionEpoch(epoch);
            final boolean full = epoch == FetchMetadata.INITIAL_EPOCH;
            final int partitions = full ? 1 + random.nextInt(20) : random.nextInt(3);
            final FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopicId(TOPIC);
            for (int p = 0; p < partitions; p++)
            {
                topic.partitions().add(new FetchRequestData.FetchPartition()
                    .setPartition(random.nextInt(40)).setFetchOffset(i).setPartitionMaxBytes(100));
            }
            request.topics().add(topic);
            final FetchContext context = cache.newContext(request, (short)18, follower, id -> "t", nowMs);
            final FetchSession session = context.partitions();
            for (int slot = session.firstSlot(); slot != FetchSession.NO_SLOT; slot = session.nextSlot(slot))
            {
                context.mustInclude(slot, random.nextInt(2), random.nextInt(3), 0L, 0L, Errors.NONE.code(), false);
            }
            if (random.nextInt(50) == 0)
            {
                Thread.yield();
            }
            final int responseId = context.complete(nowMs);
            if (context.error() == Errors.FETCH_SESSION_ID_NOT_FOUND || context.error() == Errors.INVALID_FETCH_SESSION_EPOCH)
            {
                // Evicted by another fetcher (or refused): start over with a full fetch, as a client does.
                sessionId = FetchMetadata.INVALID_SESSION_ID;
                epoch = FetchMetadata.INITIAL_EPOCH;
                continue;
            }
            if (context.error() != Errors.NONE)
            {
                throw new AssertionError("unexpected " + context.error());
            }
            if (responseId == FetchMetadata.INVALID_SESSION_ID)
            {
                sessionId = FetchMetadata.INVALID_SESSION_ID;
                epoch = FetchMetadata.INITIAL_EPOCH;
            }
            else
            {
                if (!full && responseId != sessionId)
                {
                    throw new AssertionError("incremental answer for session " + responseId + ", asked " + sessionId);
                }
                sessionId = responseId;
                epoch = FetchMetadata.nextEpoch(full ? FetchMetadata.INITIAL_EPOCH : epoch);
            }
        }
    }
}
