package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FetchSessionCacheTest
{
    private static final short V18 = 18;
    private static final short V12 = 12;
    private static final Uuid FOO = new Uuid(1L, 1L);
    private static final Uuid BAR = new Uuid(2L, 2L);
    private static final Map<Uuid, String> NAMES = Map.of(FOO, "foo", BAR, "bar");
    private static final TopicNameResolver RESOLVER = NAMES::get;
    private static final long EVICTION_MS = 1_000L;

    private final FetchSessionCache cache = new FetchSessionCache(3, EVICTION_MS, 7L);

    /** A Fetch request body, built field by field. */
    private static final class Request
    {
        final FetchRequestData data = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20);

        Request(final int sessionId, final int epoch)
        {
            data.setSessionId(sessionId).setSessionEpoch(epoch);
        }

        Request fetch(final Uuid topicId, final int partition, final long offset)
        {
            FetchRequestData.FetchTopic topic = null;
            for (final FetchRequestData.FetchTopic t : data.topics())
            {
                if (t.topicId().equals(topicId))
                {
                    topic = t;
                }
            }
            if (topic == null)
            {
                topic = new FetchRequestData.FetchTopic().setTopicId(topicId).setTopic(NAMES.getOrDefault(topicId, ""));
                data.topics().add(topic);
            }
            topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(offset)
                .setPartitionMaxBytes(1024).setCurrentLeaderEpoch(5).setLastFetchedEpoch(4).setLogStartOffset(0L));
            return this;
        }

        Request forget(final Uuid topicId, final int partition)
        {
            data.forgottenTopicsData().add(new FetchRequestData.ForgottenTopic().setTopicId(topicId)
                .setTopic(NAMES.getOrDefault(topicId, "")).setPartitions(new ArrayList<>(List.of(partition))));
            return this;
        }
    }

    private FetchContext context(final Request request, final long nowMs)
    {
        return cache.newContext(request.data, V18, true, RESOLVER, nowMs);
    }

    /** Full fetch of the given partitions, every one answered with hw=10; returns the session id. */
    private int createSession(final long nowMs, final int partitions, final boolean follower)
    {
        final Request request = new Request(FetchMetadata.INVALID_SESSION_ID, FetchMetadata.INITIAL_EPOCH);
        for (int p = 0; p < partitions; p++)
        {
            request.fetch(FOO, p, 0L);
        }
        final FetchContext full = cache.newContext(request.data, V18, follower, RESOLVER, nowMs);
        answerAll(full, 10L);
        return full.complete(nowMs);
    }

    /** Answers every partition with the same high watermark, nothing else; returns the included partitions. */
    private static List<Integer> answerAll(final FetchContext context, final long highWatermark)
    {
        final List<Integer> included = new ArrayList<>();
        final FetchSession partitions = context.partitions();
        for (int slot = partitions.firstSlot(); slot != FetchSession.NO_SLOT; slot = partitions.nextSlot(slot))
        {
            if (context.mustInclude(slot, 0, highWatermark, highWatermark, 0L, Errors.NONE.code(), false))
            {
                included.add(partitions.partition(slot));
            }
        }
        return included;
    }

    private static List<Integer> order(final FetchSession session)
    {
        final List<Integer> partitions = new ArrayList<>();
        for (int slot = session.firstSlot(); slot != FetchSession.NO_SLOT; slot = session.nextSlot(slot))
        {
            partitions.add(session.partition(slot));
        }
        return partitions;
    }

    @Test
    void fullFetchWithEpochZeroCreatesASessionAtEpochOne()
    {
        final int id = createSession(0L, 3, true);
        assertNotEquals(FetchMetadata.INVALID_SESSION_ID, id);
        assertEquals(1, cache.size());
        assertEquals(3, cache.totalPartitions());
        final FetchContext next = context(new Request(id, 1), 1L);
        assertEquals(FetchContext.Kind.INCREMENTAL, next.kind());
        assertEquals(List.of(0, 1, 2), order(next.partitions()));
        assertEquals(0L, next.partitions().fetchOffset(next.partitions().firstSlot()));
        assertEquals(5, next.partitions().currentLeaderEpoch(next.partitions().firstSlot()));
        assertEquals(4, next.partitions().lastFetchedEpoch(next.partitions().firstSlot()));
        assertEquals(id, next.complete(1L));
    }

    @Test
    void finalEpochIsASessionlessFullFetch()
    {
        final FetchContext context = context(new Request(0, FetchMetadata.FINAL_EPOCH).fetch(FOO, 0, 5L), 0L);
        assertEquals(FetchContext.Kind.SESSIONLESS, context.kind());
        assertEquals(List.of(0), answerAll(context, 10L));
        assertEquals(FetchMetadata.INVALID_SESSION_ID, context.complete(0L));
        assertEquals(0, cache.size());
    }

    @Test
    void incrementalFetchAddsUpdatesAndForgetsPartitions()
    {
        final int id = createSession(0L, 2, true);
        final FetchContext incremental = context(new Request(id, 1).fetch(FOO, 1, 50L).fetch(BAR, 7, 3L).forget(FOO, 0), 1L);
        final FetchSession session = incremental.partitions();
        assertEquals(2, session.size());
        assertEquals(FetchSession.NO_SLOT, session.slotOf(FOO, "foo", 0));
        assertEquals(50L, session.fetchOffset(session.slotOf(FOO, "foo", 1)));
        final int barSlot = session.slotOf(BAR, "bar", 7);
        assertEquals("bar", session.topicName(barSlot));
        assertEquals(BAR, session.topicId(barSlot));
        // New partition: never answered before, so included; the updated one's hw is unchanged, so left out.
        assertEquals(List.of(7), answerAll(incremental, 10L));
        incremental.complete(1L);
        assertEquals(2, cache.totalPartitions());
    }

    @Test
    void wrongEpochIsInvalidFetchSessionEpochAndUnknownIdIsNotFound()
    {
        final int id = createSession(0L, 1, true);
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH, context(new Request(id, 2), 1L).error());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, context(new Request(id + 1, 1), 1L).error());
        final FetchContext ok = context(new Request(id, 1), 1L);
        assertEquals(Errors.NONE, ok.error());
        ok.complete(1L);
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH, context(new Request(id, 1), 2L).error());
        assertEquals(Errors.NONE, context(new Request(id, 2), 2L).error());
    }

    @Test
    void aSessionHeldByOneFetchRefusesAnotherUntilCompleted()
    {
        final int id = createSession(0L, 1, true);
        final FetchContext parked = context(new Request(id, 1), 1L);
        assertEquals(Errors.INVALID_FETCH_SESSION_EPOCH, context(new Request(id, 2), 1L).error());
        parked.complete(2L);
        assertEquals(Errors.NONE, context(new Request(id, 2), 3L).error());
    }

    @Test
    void namesAgainstAnIdSessionIsATopicIdError()
    {
        final int id = createSession(0L, 1, true);
        assertEquals(Errors.FETCH_SESSION_TOPIC_ID_ERROR,
            cache.newContext(new Request(id, 1).data, V12, true, RESOLVER, 1L).error());
    }

    @Test
    void olderVersionsAddressPartitionsByName()
    {
        final FetchRequestData data = new FetchRequestData().setSessionId(0).setSessionEpoch(0);
        data.topics().add(new FetchRequestData.FetchTopic().setTopic("legacy").setPartitions(new ArrayList<>(List.of(
            new FetchRequestData.FetchPartition().setPartition(3).setFetchOffset(9L).setPartitionMaxBytes(10)))));
        final FetchContext full = cache.newContext(data, V12, false, RESOLVER, 0L);
        final FetchSession session = full.partitions();
        final int slot = session.slotOf(null, "legacy", 3);
        assertEquals("legacy", session.topicName(slot));
        assertEquals(Uuid.ZERO_UUID, session.topicId(slot));
        assertEquals(9L, session.fetchOffset(slot));
        answerAll(full, 1L);
        final int id = full.complete(0L);
        assertEquals(FetchContext.Kind.INCREMENTAL,
            cache.newContext(new FetchRequestData().setSessionId(id).setSessionEpoch(1), V12, false, RESOLVER, 1L).kind());
    }

    @Test
    void unknownTopicIdResolvesToNoName()
    {
        final Uuid unknown = new Uuid(9L, 9L);
        final FetchContext full = context(new Request(0, 0).fetch(unknown, 0, 0L), 0L);
        assertNull(full.partitions().topicName(full.partitions().firstSlot()));
    }

    @Test
    void fullFetchNamingASessionClosesIt()
    {
        final int id = createSession(0L, 1, true);
        final FetchContext full = context(new Request(id, FetchMetadata.INITIAL_EPOCH).fetch(FOO, 0, 0L), 1L);
        assertNull(cache.get(id));
        answerAll(full, 10L);
        final int newId = full.complete(1L);
        assertNotEquals(id, newId);
        assertEquals(1, cache.size());
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, context(new Request(id, 1), 2L).error());
    }

    @Test
    void forgettingTheLastPartitionClosesTheSession()
    {
        final int id = createSession(0L, 1, true);
        final FetchContext last = context(new Request(id, 1).forget(FOO, 0), 1L);
        assertEquals(FetchContext.Kind.SESSIONLESS, last.kind());
        assertEquals(FetchMetadata.INVALID_SESSION_ID, last.complete(1L));
        assertEquals(0, cache.size());
    }

    @Test
    void incrementalResponseCarriesOnlyPartitionsThatChanged()
    {
        final int id = createSession(0L, 6, true);
        final FetchContext next = context(new Request(id, 1), 1L);
        final FetchSession s = next.partitions();
        final short none = Errors.NONE.code();
        assertFalse(next.mustInclude(s.slotOf(FOO, "foo", 0), 0, 10L, 10L, 0L, none, false));
        assertTrue(next.mustInclude(s.slotOf(FOO, "foo", 1), 100, 10L, 10L, 0L, none, false), "records");
        assertTrue(next.mustInclude(s.slotOf(FOO, "foo", 2), 0, 11L, 10L, 0L, none, false), "high watermark");
        assertTrue(next.mustInclude(s.slotOf(FOO, "foo", 3), 0, 10L, 9L, 0L, none, false), "last stable offset");
        assertTrue(next.mustInclude(s.slotOf(FOO, "foo", 4), 0, 10L, 10L, 5L, none, false), "log start offset");
        assertTrue(next.mustInclude(s.slotOf(FOO, "foo", 5), 0, 10L, 10L, 0L,
            Errors.NOT_LEADER_OR_FOLLOWER.code(), false), "error");
        next.complete(1L);

        // What was sent is remembered; the partition that had an error is sent again once it clears.
        final FetchContext after = context(new Request(id, 2), 2L);
        final FetchSession t = after.partitions();
        assertFalse(after.wouldInclude(t.slotOf(FOO, "foo", 2), 0, 11L, 10L, 0L, none, false));
        assertFalse(after.mustInclude(t.slotOf(FOO, "foo", 3), 0, 10L, 9L, 0L, none, false));
        assertFalse(after.mustInclude(t.slotOf(FOO, "foo", 4), 0, 10L, 10L, 5L, none, false));
        assertTrue(after.mustInclude(t.slotOf(FOO, "foo", 5), 0, 10L, 10L, 0L, none, false));
        assertTrue(after.mustInclude(t.slotOf(FOO, "foo", 0), 0, 10L, 10L, 0L, none, true), "diverging epoch");
        after.complete(2L);
    }

    @Test
    void aSlotTheRequestForgotIsNeverIncludedNorMovedAndIsReusedWhole()
    {
        final int id = createSession(0L, 3, true);
        final FetchContext first = context(new Request(id, 1), 1L);
        final int forgottenSlot = first.partitions().slotOf(FOO, "foo", 0);
        first.complete(1L);

        // A handler that kept the slot from the last fetch (it carried records, or an error) offers it again.
        final FetchContext next = context(new Request(id, 2).forget(FOO, 0), 2L);
        final FetchSession s = next.partitions();
        final short error = Errors.UNKNOWN_TOPIC_ID.code();
        assertFalse(next.wouldInclude(forgottenSlot, 100, 11L, 11L, 0L, error, true));
        assertFalse(next.mustInclude(forgottenSlot, 100, 11L, 11L, 0L, error, true),
            "the fetcher no longer asks for it: a response carrying it would make it drop the session");
        next.complete(2L);
        assertEquals(List.of(1, 2), order(s), "a free slot never joins the fetch order");

        final FetchContext reuse = context(new Request(id, 3).fetch(BAR, 0, 0L), 3L);
        assertEquals(List.of(1, 2, 0), order(reuse.partitions()), "bar-0 (index 0) joins once, at the end");
        reuse.complete(3L);
    }

    @Test
    void wouldIncludeRemembersNothing()
    {
        final int id = createSession(0L, 1, true);
        final FetchContext next = context(new Request(id, 1), 1L);
        final int slot = next.partitions().firstSlot();
        assertTrue(next.wouldInclude(slot, 0, 11L, 10L, 0L, Errors.NONE.code(), false));
        assertTrue(next.mustInclude(slot, 0, 11L, 10L, 0L, Errors.NONE.code(), false));
        assertFalse(next.mustInclude(slot, 0, 11L, 10L, 0L, Errors.NONE.code(), false));
    }

    @Test
    void partitionsSentInAResponseMoveToTheEndOfTheFetchOrder()
    {
        final int id = createSession(0L, 4, true);
        final FetchContext next = context(new Request(id, 1), 1L);
        final FetchSession s = next.partitions();
        for (int slot = s.firstSlot(); slot != FetchSession.NO_SLOT; slot = s.nextSlot(slot))
        {
            final int records = s.partition(slot) == 1 ? 10 : 0;
            next.mustInclude(slot, records, 10L, 10L, 0L, Errors.NONE.code(), false);
        }
        next.complete(1L);
        assertEquals(List.of(0, 2, 3, 1), order(s));
    }

    @Test
    void partitionsSentOnlyForAChangedHighWatermarkKeepTheirPlaceInTheFetchOrder()
    {
        final int id = createSession(0L, 4, true);
        final FetchContext next = context(new Request(id, 1), 1L);
        final FetchSession s = next.partitions();
        for (int slot = s.firstSlot(); slot != FetchSession.NO_SLOT; slot = s.nextSlot(slot))
        {
            final int records = s.partition(slot) == 2 ? 10 : 0;
            assertTrue(next.mustInclude(slot, records, 11L, 11L, 0L, Errors.NONE.code(), false));
        }
        next.complete(1L);
        assertEquals(List.of(0, 1, 3, 2), order(s));
    }

    @Test
    void aFullCacheEvictsTheLeastRecentlyUsedSessionOnceItIsStale()
    {
        final int first = createSession(0L, 1, false);
        createSession(10L, 1, false);
        createSession(20L, 1, false);
        assertEquals(FetchMetadata.INVALID_SESSION_ID, createSession(30L, 1, false), "no room, nothing stale");
        final int fourth = createSession(EVICTION_MS + 5L, 1, false);
        assertNotEquals(FetchMetadata.INVALID_SESSION_ID, fourth);
        assertNull(cache.get(first));
        assertEquals(3, cache.size());
        assertEquals(1, cache.evictions());
    }

    @Test
    void aFollowerSessionEvictsTheSmallestConsumerSession()
    {
        final int small = createSession(0L, 1, false);
        final int big = createSession(0L, 5, false);
        final int follower = createSession(0L, 2, true);
        assertEquals(FetchMetadata.INVALID_SESSION_ID, createSession(1L, 10, false),
            "a consumer cannot evict sessions younger than the eviction time");
        final int newFollower = createSession(2L, 1, true);
        assertNotEquals(FetchMetadata.INVALID_SESSION_ID, newFollower);
        assertNull(cache.get(small));
        assertTrue(cache.get(big) != null && cache.get(follower) != null);
    }

    @Test
    void aConsumerSessionEvictsASmallerOldConsumerSession()
    {
        final int small = createSession(0L, 1, false);
        final int touchedA = createSession(0L, 3, false);
        final int touchedB = createSession(0L, 3, false);
        // Keep all of them recently used but older than the eviction time, so only size decides.
        for (final int id : new int[] {small, touchedA, touchedB})
        {
            context(new Request(id, 1), EVICTION_MS + 1L).complete(EVICTION_MS + 1L);
        }
        assertEquals(FetchMetadata.INVALID_SESSION_ID, createSession(EVICTION_MS + 2L, 1, false), "same size loses");
        assertNotEquals(FetchMetadata.INVALID_SESSION_ID, createSession(EVICTION_MS + 3L, 2, false));
        assertNull(cache.get(small));
    }

    @Test
    void zeroSlotsDisableIncrementalSessions()
    {
        final FetchSessionCache none = new FetchSessionCache(0, EVICTION_MS, 1L);
        final FetchContext full = none.newContext(new Request(0, 0).fetch(FOO, 0, 0L).data, V18, true, RESOLVER, 0L);
        assertEquals(FetchContext.Kind.FULL, full.kind());
        assertEquals(FetchMetadata.INVALID_SESSION_ID, full.complete(0L));
    }

    @Test
    void aBoundHandleStaysWithItsPartitionAcrossFetches()
    {
        final int id = createSession(0L, 2, true);
        final FetchContext first = context(new Request(id, 1), 1L);
        final FetchSession s = first.partitions();
        final int slot1 = s.slotOf(FOO, "foo", 1);
        assertEquals(FetchSession.NO_HANDLE, s.handle(slot1));
        s.bindHandle(slot1, 77);
        first.complete(1L);
        final FetchContext second = context(new Request(id, 2).fetch(FOO, 1, 9L).forget(FOO, 0).fetch(BAR, 0, 0L), 2L);
        final FetchSession t = second.partitions();
        assertEquals(77, t.handle(t.slotOf(FOO, "foo", 1)));
        assertEquals(FetchSession.NO_HANDLE, t.handle(t.slotOf(BAR, "bar", 0)), "a reused slot starts unbound");
        second.complete(2L);
    }
}
