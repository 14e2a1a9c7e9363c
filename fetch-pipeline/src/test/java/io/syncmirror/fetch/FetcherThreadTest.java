package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fetch loop on its own thread, against a fake source node that holds empty responses as a long-poll. */
@Timeout(30)
class FetcherThreadTest
{
    private static final Uuid TOPIC_ID = new Uuid(21L, 22L);
    private static final TopicIdPartition P0 = new TopicIdPartition(TOPIC_ID, 0, "t");
    private static final TopicIdPartition P1 = new TopicIdPartition(TOPIC_ID, 1, "t");

    private final FakeSourceNode source = new FakeSourceNode();
    private final RecordingTarget target = new RecordingTarget();
    private FetcherThread thread;

    private FetcherThread start(final FetcherConfig config)
    {
        source.longPoll = true;
        thread = new FetcherThread("fetcher-test", new FetcherEngine(config, 1, source, target),
            () -> System.nanoTime() / 1_000_000);
        thread.start();
        return thread;
    }

    @AfterEach
    void closeThread()
    {
        if (thread != null)
        {
            thread.close();
        }
    }

    private static void waitUntil(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void followsTheLeaderAndTakesPartitionsAddedAndRemovedWhileRunning() throws InterruptedException
    {
        final FakeSourceNode.LeaderPartition leader0 = source.partition(TOPIC_ID, "t", 0);
        final FakeSourceNode.LeaderPartition leader1 = source.partition(TOPIC_ID, "t", 1);
        FakeSourceNode.append(leader0, 3);
        FakeSourceNode.append(leader1, 2);
        final FetcherEngine engine = start(FetcherConfig.defaults(3).withMaxWaitMs(50)).engine();

        engine.addPartition(P0, 0L, 0);
        waitUntil(() -> target.log(P0.topicPartition()).logEndOffset == 3L, "t-0 at 3");
        FakeSourceNode.append(leader0, 4);
        waitUntil(() -> target.log(P0.topicPartition()).logEndOffset == 7L, "t-0 at 7");

        engine.addPartition(P1, 0L, 0);
        waitUntil(() -> target.log(P1.topicPartition()).logEndOffset == 2L, "t-1 added while running");

        engine.removePartition(P0.topicPartition());
        waitUntil(() -> engine.partitionCount() == 1, "t-0 removed");
        FakeSourceNode.append(leader0, 5);
        FakeSourceNode.append(leader1, 1);
        waitUntil(() -> target.log(P1.topicPartition()).logEndOffset == 3L, "t-1 at 3");
        Thread.sleep(150);
        assertEquals(7L, target.log(P0.topicPartition()).logEndOffset, "a removed partition is not fetched");
    }

    @Test
    void closeStopsTheThreadEvenWithALongPollInFlight() throws InterruptedException
    {
        source.partition(TOPIC_ID, "t", 0);
        final FetcherThread fetcher = start(FetcherConfig.defaults(3).withMaxWaitMs(5_000));
        fetcher.engine().addPartition(P0, 0L, 0);
        waitUntil(() -> source.requests.size() >= 2, "a parked incremental fetch");
        final long startNs = System.nanoTime();
        fetcher.close();
        assertFalse(fetcher.isAlive());
        assertTrue(System.nanoTime() - startNs < 2_000_000_000L, "close does not wait out the long-poll");
    }

    @Test
    void failingRequestsAreRetriedAtTheBackoffPaceNotInASpin() throws InterruptedException
    {
        source.partition(TOPIC_ID, "t", 0);
        source.failuresToInject.set(Integer.MAX_VALUE);
        final FetcherThread fetcher = start(FetcherConfig.defaults(3).withBackoffMs(100L));
        fetcher.engine().addPartition(P0, 0L, 0);
        Thread.sleep(550);
        final int sent = source.requests.size();
        assertTrue(sent >= 3 && sent <= 8, "sent " + sent + " requests in 550 ms with a 100 ms backoff");
    }

    @Test
    void withNothingToFetchTheThreadParksAndSendsNothing() throws InterruptedException
    {
        final FetcherThread fetcher = start(FetcherConfig.defaults(3));
        Thread.sleep(200);
        assertEquals(0, source.requests.size());
        assertTrue(fetcher.isAlive());
    }
}
