package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fetch loop stepped by hand with a manual clock against a fake source node. */
@Timeout(20)
class FetcherEngineTest
{
    private static final int REPLICA_ID = 7;
    private static final long BACKOFF_MS = 1_000L;
    private static final Uuid TOPIC_ID = new Uuid(11L, 12L);
    private static final TopicIdPartition P0 = new TopicIdPartition(TOPIC_ID, 0, "t");
    private static final TopicIdPartition P1 = new TopicIdPartition(TOPIC_ID, 1, "t");
    private static final TopicPartition TP0 = P0.topicPartition();
    private static final TopicPartition TP1 = P1.topicPartition();

    private final FakeSourceNode source = new FakeSourceNode();
    private final RecordingTarget target = new RecordingTarget();
    private final FetcherEngine engine = new FetcherEngine(
        FetcherConfig.defaults(REPLICA_ID).withBrokerEpoch(42L), 1, source, target);
    private final FakeSourceNode.LeaderPartition leader0 = source.partition(TOPIC_ID, "t", 0);
    private final FakeSourceNode.LeaderPartition leader1 = source.partition(TOPIC_ID, "t", 1);
    private long nowMs = 1_000_000L;

    private static Map<TopicIdPartition, FetchRequest.PartitionData> sent(final FetchRequest request)
    {
        return request.fetchData(Map.of(TOPIC_ID, "t"));
    }

    @Test
    void fetchOffsetsAdvanceAsRecordsArriveAndTheSessionTurnsIncremental()
    {
        leader0.epoch = 3;
        FakeSourceNode.append(leader0, 5);
        engine.addPartition(P0, 0L, 3);
        assertEquals(0L, engine.doWork(nowMs), "the response is already there: step again at once");
        engine.doWork(nowMs);
        assertEquals(5L, target.log(TP0).logEndOffset);
        assertEquals(5L, target.log(TP0).highWatermark);
        assertEquals(5L, engine.fetchOffset(TP0));
        assertNotEquals(0, engine.sessionId());

        final FetchRequest second = source.lastRequest();
        assertEquals(1, second.data().topics().size(), "the changed offset goes in the incremental request");
        final FetchRequest.PartitionData data = sent(second).get(P0);
        assertEquals(5L, data.fetchOffset);
        assertEquals(3, data.lastFetchedEpoch.orElseThrow());
        assertEquals(3, data.currentLeaderEpoch.orElseThrow());

        engine.doWork(nowMs);
        assertEquals(0, source.lastRequest().data().topics().size(), "idle: nothing changed, nothing sent");
        FakeSourceNode.append(leader0, 2);
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        assertEquals(7L, target.log(TP0).logEndOffset);
        assertEquals(7L, engine.fetchOffset(TP0));
    }

    @Test
    void aRestartFetchesFromTheLogsEndNotFromAnOffsetReadEarlierOnAnotherThread()
    {
        target.reportsLogEnd = true;
        target.log(TP0).logEndOffset = 5L; // appended by this fetcher after the caller read 3
        FakeSourceNode.append(leader0, 8);
        engine.addPartition(P0, 3L, 0);
        engine.doWork(nowMs);
        assertEquals(5L, sent(source.lastRequest()).get(P0).fetchOffset);
    }

    @Test
    void reAddingWithTheSameEpochKeepsTheFetchPosition()
    {
        FakeSourceNode.append(leader0, 4);
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        assertEquals(4L, engine.fetchOffset(TP0));
        engine.addPartition(P0, 0L, 0); // an ISR change re-announces the same leader with a stale offset
        engine.doWork(nowMs);
        assertEquals(4L, engine.fetchOffset(TP0), "nothing to restart for the same leader and epoch");
    }

    @Test
    void requestsCarryTheReplicaFetcherSettings()
    {
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        final FetchRequest request = source.requests.get(0);
        assertEquals(REPLICA_ID, request.replicaId());
        assertEquals(42L, request.replicaEpoch());
        assertTrue(request.isFromFollower());
        assertEquals(500, request.maxWait());
        assertEquals(1, request.minBytes());
        assertEquals(10 * 1024 * 1024, request.maxBytes());
        assertEquals(IsolationLevel.READ_UNCOMMITTED, request.isolationLevel());
        assertEquals("", request.rackId());
        assertEquals(1024 * 1024, sent(request).get(P0).maxBytes);
        assertEquals(0, request.metadata().epoch(), "the first fetch is a full one");
    }

    @Test
    void divergingEpochTruncatesAndRefetchesFromTheReturnedOffset()
    {
        leader0.epoch = 5;
        target.log(TP0).logEndOffset = 10L;
        target.log(TP0).latestEpoch = 4;
        FakeSourceNode.append(leader0, 12);
        leader0.diverging = new FetchResponseData.EpochEndOffset().setEpoch(4).setEndOffset(7L);
        engine.addPartition(P0, 10L, 5);
        engine.doWork(nowMs);
        assertEquals(4, sent(source.requests.get(0)).get(P0).lastFetchedEpoch.orElseThrow());
        engine.doWork(nowMs);
        assertEquals(List.of("diverging t-0 epoch=4 end=7"), target.events);
        assertEquals(7L, engine.fetchOffset(TP0));
        assertEquals(PartitionFetchState.FETCHING, engine.state(TP0));
        assertEquals(7L, sent(source.requests.get(1)).get(P0).fetchOffset);
        engine.doWork(nowMs);
        assertEquals(12L, target.log(TP0).logEndOffset);
    }

    @Test
    void aFailedRequestBacksOffBeforeTheNextOne()
    {
        engine.addPartition(P0, 0L, 0);
        source.failuresToInject.set(1);
        assertEquals(0L, engine.doWork(nowMs));
        assertEquals(BACKOFF_MS, engine.doWork(nowMs), "the failure is handled and backs off");
        assertEquals(1, source.requests.size());
        assertEquals(BACKOFF_MS - 400L, engine.doWork(nowMs + 400L));
        assertEquals(1, source.requests.size(), "nothing is sent during the backoff");
        engine.doWork(nowMs + BACKOFF_MS);
        assertEquals(2, source.requests.size());
        assertEquals(0, source.lastRequest().metadata().epoch(), "after a failure the session starts again");
    }

    @Test
    void aLostSessionIsRecreatedAtOnceButRepeatedFailuresBackOff()
    {
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        final int id = engine.sessionId();
        assertNotEquals(0, id);
        source.cache.remove(id);
        engine.doWork(nowMs);
        final int sentBefore = source.requests.size();
        engine.doWork(nowMs);
        assertEquals(sentBefore + 1, source.requests.size(), "the full fetch goes out without a backoff");
        assertEquals(0, source.lastRequest().metadata().epoch());
        engine.doWork(nowMs);
        assertNotEquals(0, engine.sessionId());
        assertNotEquals(id, engine.sessionId());
    }

    @Test
    void aPartitionErrorDelaysThatPartitionOnly()
    {
        FakeSourceNode.append(leader0, 1);
        FakeSourceNode.append(leader1, 1);
        leader1.error = Errors.UNKNOWN_LEADER_EPOCH;
        engine.addPartition(P0, 0L, 0);
        engine.addPartition(P1, 0L, 0);
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        assertEquals(PartitionFetchState.DELAYED, engine.state(TP1));
        assertEquals(List.of("error t-1 UNKNOWN_LEADER_EPOCH"), target.events);
        assertEquals(1L, target.log(TP0).logEndOffset);

        leader1.error = Errors.NONE;
        engine.doWork(nowMs + 10L);
        assertNull(sent(source.lastRequest()).get(P1), "a delayed partition is left out of requests");
        engine.doWork(nowMs + BACKOFF_MS);
        assertEquals(PartitionFetchState.FETCHING, engine.state(TP1));
        engine.doWork(nowMs + BACKOFF_MS);
        assertEquals(1L, target.log(TP1).logEndOffset);
    }

    @Test
    void fencedOrNotLeaderRemovesThePartition()
    {
        leader0.error = Errors.FENCED_LEADER_EPOCH;
        leader1.error = Errors.NOT_LEADER_OR_FOLLOWER;
        engine.addPartition(P0, 0L, 0);
        engine.addPartition(P1, 0L, 0);
        engine.doWork(nowMs);
        assertEquals(FetcherEngine.IDLE, engine.doWork(nowMs), "nothing left to fetch: wait for a command");
        assertNull(engine.state(TP0));
        assertNull(engine.state(TP1));
        assertTrue(target.events.containsAll(List.of("error t-0 FENCED_LEADER_EPOCH", "error t-1 NOT_LEADER_OR_FOLLOWER")));
    }

    @Test
    void offsetOutOfRangeRestartsWhereTheTargetSays()
    {
        FakeSourceNode.append(leader0, 3);
        target.restartOffsetOnOutOfRange = 1L;
        target.log(TP0).logEndOffset = 50L;
        engine.addPartition(P0, 50L, 0);
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        assertEquals(List.of("outOfRange t-0"), target.events);
        assertEquals(1L, engine.fetchOffset(TP0));
        engine.doWork(nowMs);
        assertEquals(3L, target.log(TP0).logEndOffset);
    }

    @Test
    void aThrowingTargetDelaysThePartitionAndKeepsTheLoop()
    {
        FakeSourceNode.append(leader0, 1);
        target.failAppends = true;
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        assertEquals(BACKOFF_MS, engine.doWork(nowMs), "the only partition is delayed: nothing to send until then");
        assertEquals(PartitionFetchState.DELAYED, engine.state(TP0));
        assertEquals(List.of("error t-0 UNKNOWN_SERVER_ERROR"), target.events);
        target.failAppends = false;
        engine.doWork(nowMs + BACKOFF_MS);
        engine.doWork(nowMs + BACKOFF_MS);
        assertEquals(1L, target.log(TP0).logEndOffset);
    }

    @Test
    void wakeupSendsTheNextRequestWithoutLongPoll()
    {
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        engine.wakeup();
        engine.doWork(nowMs);
        assertEquals(0, source.lastRequest().maxWait());
        engine.doWork(nowMs);
        assertEquals(500, source.lastRequest().maxWait(), "only the next request");
    }

    @Test
    void aResponseForAPartitionRemovedMeanwhileIsDropped()
    {
        FakeSourceNode.append(leader0, 4);
        source.completeLater = true;
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        engine.removePartition(TP0);
        source.releaseHeld();
        source.completeLater = false;
        assertEquals(FetcherEngine.IDLE, engine.doWork(nowMs));
        assertEquals(0L, target.log(TP0).logEndOffset);
        assertNull(engine.state(TP0));
    }

    @Test
    void aResponseThatNeverComesTimesOut()
    {
        source.completeLater = true;
        engine.addPartition(P0, 0L, 0);
        engine.doWork(nowMs);
        final long waitMs = engine.doWork(nowMs);
        assertEquals(500L + FetcherConfig.REQUEST_TIMEOUT_MS_DEFAULT, waitMs);
        assertEquals(BACKOFF_MS, engine.doWork(nowMs + waitMs));
        assertEquals(1, source.requests.size());
    }

    @Test
    void aTruncationTheTargetCannotDoYetIsRetriedAfterTheBackoff()
    {
        target.log(TP0).logEndOffset = 10L;
        target.log(TP0).latestEpoch = 4;
        target.truncationRefusals = 1;
        FakeSourceNode.append(leader0, 12);
        leader0.diverging = new FetchResponseData.EpochEndOffset().setEpoch(4).setEndOffset(7L);
        engine.addPartition(P0, 10L, 5);
        engine.doWork(nowMs);
        assertEquals(BACKOFF_MS, engine.doWork(nowMs));
        assertEquals(PartitionFetchState.TRUNCATING, engine.state(TP0));
        assertEquals(10L, engine.fetchOffset(TP0));
        assertEquals(BACKOFF_MS - 1L, engine.doWork(nowMs + 1L), "not retried before the backoff ends");
        assertEquals(1, target.events.size());
        engine.doWork(nowMs + BACKOFF_MS);
        assertEquals(2, target.events.size());
        assertEquals(PartitionFetchState.FETCHING, engine.state(TP0));
        assertEquals(7L, sent(source.lastRequest()).get(P0).fetchOffset);
    }
}
