package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the engine's incremental fetch session puts on the wire, checked against the source's real session cache:
 * only changed partitions, forgotten partitions, new sessions after errors, and request building whose work
 * follows the changes, not the session size.
 */
@Timeout(60)
class FetcherEngineSessionTest
{
    private static final int REPLICA_ID = 7;
    private static final long BACKOFF_MS = 1_000L;
    private static final Uuid TOPIC_ID = new Uuid(11L, 12L);

    private final FakeSourceNode source = new FakeSourceNode();
    private final RecordingTarget target = new RecordingTarget();
    private final FetcherEngine engine = new FetcherEngine(FetcherConfig.defaults(REPLICA_ID), 1, source, target);
    private long nowMs = 1_000_000L;

    private static TopicIdPartition partition(final int index)
    {
        return new TopicIdPartition(TOPIC_ID, index, "t");
    }

    /** Partition → fetch offset of what a request sends, by topic id (every request here is v13+). */
    private Map<TopicIdPartition, Long> sent(final FetchRequest request)
    {
        final Map<TopicIdPartition, Long> sent = new HashMap<>();
        for (final FetchRequestData.FetchTopic topic : request.data().topics())
        {
            for (final FetchRequestData.FetchPartition p : topic.partitions())
            {
                sent.put(new TopicIdPartition(topic.topicId(), p.partition(), source.topicNames.get(topic.topicId())),
                    p.fetchOffset());
            }
        }
        return sent;
    }

    /** The forgotten partitions of a v13+ request (addressed by topic id). */
    private List<TopicIdPartition> forgotten(final FetchRequest request)
    {
        final List<TopicIdPartition> forgotten = new ArrayList<>();
        for (final FetchRequestData.ForgottenTopic topic : request.data().forgottenTopicsData())
        {
            for (final int p : topic.partitions())
            {
                forgotten.add(new TopicIdPartition(topic.topicId(), p, source.topicNames.get(topic.topicId())));
            }
        }
        return forgotten;
    }

    private static int partitionCount(final FetchRequest request)
    {
        int count = 0;
        for (final FetchRequestData.FetchTopic topic : request.data().topics())
        {
            count += topic.partitions().size();
        }
        return count;
    }

    private FetchSession sourceSession()
    {
        return source.cache.get(engine.sessionId());
    }

    /** Adds partitions 0..count-1 of topic "t" and runs the full fetch and its answer; returns the session id. */
    private int establish(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            source.partition(TOPIC_ID, "t", i);
            engine.addPartition(partition(i), 0L, 0);
        }
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        assertNotEquals(0, engine.sessionId());
        return engine.sessionId();
    }

    @Test
    void idleRequestsCarryNoPartitionsAndAnAppendCarriesOnlyItsPartition()
    {
        final Uuid[] topicIds = new Uuid[10];
        for (int t = 0; t < topicIds.length; t++)
        {
            topicIds[t] = new Uuid(100L, t + 1);
            for (int p = 0; p < 100; p++)
            {
                source.partition(topicIds[t], "t" + t, p);
                engine.addPartition(new TopicIdPartition(topicIds[t], p, "t" + t), 0L, 0);
            }
        }
        engine.doWork(nowMs);
        final FetchRequest full = source.lastRequest();
        assertEquals(FetchMetadata.INITIAL, full.metadata());
        assertEquals(1_000, partitionCount(full));

        engine.doWork(nowMs);
        final int id = engine.sessionId();
        assertNotEquals(0, id);
        final FetchRequest idle = source.lastRequest();
        assertEquals(new FetchMetadata(id, 1), idle.metadata());
        assertEquals(0, partitionCount(idle));
        assertTrue(forgotten(idle).isEmpty());
        assertEquals(1_000, source.cache.get(id).size(), "an empty incremental request keeps the whole session");
        assertEquals(1_000, engine.sessionSize());

        final long visitsBefore = engine.requestBuildVisits();
        engine.doWork(nowMs);
        assertEquals(new FetchMetadata(id, 2), source.lastRequest().metadata());
        assertEquals(0, partitionCount(source.lastRequest()));
        assertEquals(visitsBefore, engine.requestBuildVisits(), "an idle request looks at no partition");

        final TopicIdPartition appended = new TopicIdPartition(topicIds[3], 42, "t3");
        FakeSourceNode.append(source.leader.get(appended.topicPartition()), 3);
        engine.doWork(nowMs); // sends the request the records answer
        assertEquals(0, partitionCount(source.lastRequest()));
        engine.doWork(nowMs);
        assertEquals(3L, engine.fetchOffset(appended.topicPartition()));
        final FetchRequest afterAppend = source.lastRequest();
        assertEquals(new FetchMetadata(id, 4), afterAppend.metadata());
        assertEquals(Map.of(appended, 3L), sent(afterAppend));
        assertEquals(visitsBefore + 1, engine.requestBuildVisits());
        final FetchSession sourceSession = source.cache.get(id);
        assertEquals(3L, sourceSession.fetchOffset(sourceSession.slotOf(topicIds[3], "t3", 42)));
        assertEquals(1_000, sourceSession.size());
    }

    @Test
    void aRemovedPartitionIsForgottenAndSentAgainWhenAddedBack()
    {
        establish(3);
        engine.removePartition(partition(1).topicPartition());
        engine.doWork(nowMs);
        FetchRequest request = source.lastRequest();
        assertEquals(0, partitionCount(request));
        assertEquals(List.of(partition(1)), forgotten(request));
        assertEquals(2, sourceSession().size());
        assertEquals(FetchSession.NO_SLOT, sourceSession().slotOf(TOPIC_ID, "t", 1));

        engine.doWork(nowMs);
        assertTrue(forgotten(source.lastRequest()).isEmpty(), "forgotten once");
        engine.addPartition(partition(1), 0L, 0);
        engine.doWork(nowMs);
        request = source.lastRequest();
        assertEquals(Map.of(partition(1), 0L), sent(request));
        assertTrue(forgotten(request).isEmpty());
        assertEquals(3, sourceSession().size());
    }

    @Test
    void aDelayedPartitionLeavesTheSessionUntilItFetchesAgain()
    {
        final FakeSourceNode.LeaderPartition leader1 = source.partition(TOPIC_ID, "t", 1);
        leader1.error = Errors.UNKNOWN_LEADER_EPOCH;
        establish(2);
        leader1.error = Errors.NONE;
        assertEquals(PartitionFetchState.DELAYED, engine.state(partition(1).topicPartition()));
        assertEquals(List.of(partition(1)), forgotten(source.lastRequest()));
        assertEquals(1, sourceSession().size());

        engine.doWork(nowMs + 10L);
        assertEquals(0, partitionCount(source.lastRequest()));
        assertTrue(forgotten(source.lastRequest()).isEmpty());

        engine.doWork(nowMs + BACKOFF_MS);
        assertEquals(PartitionFetchState.FETCHING, engine.state(partition(1).topicPartition()));
        assertEquals(Map.of(partition(1), 0L), sent(source.lastRequest()), "fetching again: back in the session");
        assertEquals(2, sourceSession().size());
    }

    @Test
    void aLostSessionMakesTheNextRequestAFullOneWithEveryFetchingPartition()
    {
        final FakeSourceNode.LeaderPartition leader2 = source.partition(TOPIC_ID, "t", 2);
        leader2.error = Errors.UNKNOWN_LEADER_EPOCH;
        final int id = establish(3);
        leader2.error = Errors.NONE;
        source.cache.remove(id);
        engine.doWork(nowMs);
        assertEquals(id, source.lastRequest().metadata().sessionId());
        engine.doWork(nowMs);
        final FetchRequest full = source.lastRequest();
        assertEquals(FetchMetadata.INITIAL, full.metadata(), "FETCH_SESSION_ID_NOT_FOUND: nothing to close");
        assertEquals(Map.of(partition(0), 0L, partition(1), 0L), sent(full), "every fetching partition, not the delayed one");
        engine.doWork(nowMs);
        assertNotEquals(id, engine.sessionId());
        assertEquals(2, sourceSession().size());
    }

    @Test
    void aWrongSessionEpochMakesTheNextRequestAFullOneClosingTheSession()
    {
        final int id = establish(2);
        synchronized (source.cache)
        {
            source.cache.get(id).epoch += 5;
        }
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        final FetchRequest full = source.lastRequest();
        assertEquals(new FetchMetadata(id, 0), full.metadata(), "INVALID_FETCH_SESSION_EPOCH: close the session");
        assertEquals(Map.of(partition(0), 0L, partition(1), 0L), sent(full));
        assertNull(source.cache.get(id), "the full fetch closed the old session");
        engine.doWork(nowMs);
        assertNotEquals(id, engine.sessionId());
        assertEquals(2, sourceSession().size());
    }

    @Test
    void aFailedRequestMakesTheNextRequestAFullOneClosingTheSession()
    {
        final int id = establish(2);
        source.failuresToInject.set(1);
        engine.doWork(nowMs);
        assertEquals(BACKOFF_MS, engine.doWork(nowMs));
        engine.doWork(nowMs + BACKOFF_MS);
        final FetchRequest full = source.lastRequest();
        assertEquals(new FetchMetadata(id, 0), full.metadata());
        assertEquals(Map.of(partition(0), 0L, partition(1), 0L), sent(full));

        source.completeLater = true;
        engine.doWork(nowMs + BACKOFF_MS);
        final int second = engine.sessionId();
        final long timeoutMs = engine.doWork(nowMs + BACKOFF_MS);
        engine.doWork(nowMs + BACKOFF_MS + timeoutMs);
        source.completeLater = false;
        engine.doWork(nowMs + 2 * BACKOFF_MS + timeoutMs);
        assertEquals(new FetchMetadata(second, 0), source.lastRequest().metadata(), "a timeout as well");
        assertEquals(2, partitionCount(source.lastRequest()));
    }

    @Test
    void aNewLeaderEpochUpdatesThePartitionInPlace()
    {
        final int id = establish(2);
        engine.addPartition(partition(0), 0L, 4);
        engine.doWork(nowMs);
        final FetchRequest request = source.lastRequest();
        assertEquals(new FetchMetadata(id, 2), request.metadata());
        assertEquals(Map.of(partition(0), 0L), sent(request));
        assertEquals(4, request.data().topics().get(0).partitions().get(0).currentLeaderEpoch());
        assertTrue(forgotten(request).isEmpty(), "forgotten and sent in one request, the source would drop it");
        final FetchSession session = source.cache.get(id);
        assertEquals(2, session.size());
        assertEquals(4, session.currentLeaderEpoch(session.slotOf(TOPIC_ID, "t", 0)));
    }

    /** The position confirmations the target heard, in order. */
    private List<String> confirmations()
    {
        return target.events.stream().filter(e -> e.startsWith("confirmed ")).toList();
    }

    @Test
    @DisplayName("hazard 1: a position the leader answers by leaving it out of an incremental response (nothing new, "
        + "nothing diverging) is confirmed to the target once, after a new leader epoch and after a truncation")
    void aPositionAnsweredByOmissionIsConfirmedAfterANewEpochAndAfterATruncation()
    {
        final FakeSourceNode.LeaderPartition leader0 = source.partition(TOPIC_ID, "t", 0);
        final FakeSourceNode.LeaderPartition leader1 = source.partition(TOPIC_ID, "t", 1);
        FakeSourceNode.append(leader0, 5);
        FakeSourceNode.append(leader1, 5);
        establish(2);
        engine.doWork(nowMs);
        assertEquals(5L, engine.fetchOffset(partition(0).topicPartition()));
        assertTrue(confirmations().isEmpty(), "the responses named both partitions, with records: onRecords said it");

        // A new leader epoch whose log ends where ours does: its answer has nothing for the partition.
        leader0.epoch = 1;
        engine.addPartition(partition(0), 5L, 1);
        engine.doWork(nowMs); // sends the request naming partition 0 at epoch 1
        assertEquals(Map.of(partition(0), 5L), sent(source.lastRequest()));
        assertTrue(confirmations().isEmpty(), "not before the answer");
        engine.doWork(nowMs); // takes the incremental answer, which leaves partition 0 out
        assertEquals(List.of("confirmed " + partition(0).topicPartition() + " at 5 epoch=1"), confirmations());
        engine.doWork(nowMs);
        engine.doWork(nowMs);
        assertEquals(1, confirmations().size(), "once per position");

        // The leader's epoch 0 ends at 3: the follower truncates, fetches at 3, and the answer leaves it out.
        leader1.logEndOffset.set(3L);
        leader1.highWatermark.set(3L);
        leader1.diverging = new FetchResponseData.EpochEndOffset().setEpoch(0).setEndOffset(3L);
        FakeSourceNode.append(leader0, 1); // something else in the same responses
        engine.doWork(nowMs); // takes the answer to the idle request, sends the next
        engine.doWork(nowMs); // takes the diverging epoch: truncated to 3; sends the new position
        assertEquals(3L, engine.fetchOffset(partition(1).topicPartition()));
        assertEquals(3L, sent(source.lastRequest()).get(partition(1)));
        assertEquals(1, confirmations().size(), "not confirmed before a request carried the new position");
        engine.doWork(nowMs);
        assertEquals(List.of("confirmed " + partition(0).topicPartition() + " at 5 epoch=1",
            "confirmed " + partition(1).topicPartition() + " at 3 epoch=0"), confirmations());
    }

    @Test
    void aTopicReCreatedUnderTheSameNameIsForgottenByItsOldId()
    {
        final int id = establish(2);
        final Uuid newId = new Uuid(11L, 99L);
        source.topicNames.put(newId, "t");
        engine.addPartition(new TopicIdPartition(newId, 0, "t"), 0L, 0);
        engine.doWork(nowMs);
        final FetchRequest request = source.lastRequest();
        assertEquals(Map.of(new TopicIdPartition(newId, 0, "t"), 0L), sent(request));
        assertEquals(List.of(partition(0)), forgotten(request));
        final FetchSession session = source.cache.get(id);
        assertEquals(2, session.size());
        assertEquals(FetchSession.NO_SLOT, session.slotOf(TOPIC_ID, "t", 0));
        assertNotEquals(FetchSession.NO_SLOT, session.slotOf(newId, "t", 0));
    }

    @Test
    void aPartitionWithoutTopicIdMovesTheFetcherToANewSessionByNames()
    {
        final int id = establish(1);
        source.partition(Uuid.ZERO_UUID, "legacy", 0);
        engine.addPartition(new TopicIdPartition(Uuid.ZERO_UUID, 0, "legacy"), 0L, 0);
        engine.doWork(nowMs);
        final FetchRequest full = source.lastRequest();
        assertTrue(full.version() <= 12, "v" + full.version());
        assertEquals(new FetchMetadata(id, 0), full.metadata());
        assertEquals(2, partitionCount(full));
        engine.doWork(nowMs);
        assertNotEquals(id, engine.sessionId());
        assertEquals(2, sourceSession().size());
        assertTrue(source.lastRequest().version() <= 12);
        assertEquals(0, partitionCount(source.lastRequest()));
    }

    @Test
    void aResponseForAPartitionReplacedMeanwhileIsDropped()
    {
        FakeSourceNode.append(source.partition(TOPIC_ID, "t", 0), 4);
        source.completeLater = true;
        engine.addPartition(partition(0), 0L, 0);
        engine.doWork(nowMs);
        engine.addPartition(partition(0), 0L, 1);
        source.releaseHeld();
        source.completeLater = false;
        engine.doWork(nowMs);
        assertEquals(0L, target.log(partition(0).topicPartition()).logEndOffset, "answered for the old epoch");
        assertEquals(1, source.lastRequest().data().topics().get(0).partitions().get(0).currentLeaderEpoch());
        engine.doWork(nowMs);
        assertEquals(4L, target.log(partition(0).topicPartition()).logEndOffset);
    }

    /**
     * A session of 20,000 partitions with one append per request: each request carries that one partition, and
     * building it looks at that one partition only, however large the session.
     */
    @Test
    void requestBuildingFollowsTheChangesNotTheSizeOfA20000PartitionSession()
    {
        final int topics = 20;
        final int perTopic = 1_000;
        final Uuid[] topicIds = new Uuid[topics];
        for (int t = 0; t < topics; t++)
        {
            topicIds[t] = new Uuid(200L, t + 1);
            for (int p = 0; p < perTopic; p++)
            {
                source.partition(topicIds[t], "big" + t, p);
                engine.addPartition(new TopicIdPartition(topicIds[t], p, "big" + t), 0L, 0);
            }
        }
        engine.doWork(nowMs);
        assertEquals(topics * perTopic, partitionCount(source.lastRequest()));
        engine.doWork(nowMs);
        assertEquals(topics * perTopic, engine.sessionSize());

        final Random random = new Random(5);
        final long visitsAtStart = engine.requestBuildVisits();
        final int rounds = 40;
        for (int round = 0; round < rounds; round++)
        {
            final int t = random.nextInt(topics);
            final TopicIdPartition appended = new TopicIdPartition(topicIds[t], random.nextInt(perTopic), "big" + t);
            FakeSourceNode.append(source.leader.get(appended.topicPartition()), 1);
            final long before = engine.requestBuildVisits();
            engine.doWork(nowMs);
            engine.doWork(nowMs);
            final FetchRequest request = source.lastRequest();
            assertEquals(1, partitionCount(request), "round " + round);
            assertEquals(engine.fetchOffset(appended.topicPartition()), sent(request).get(appended));
            assertEquals(before + 1, engine.requestBuildVisits(), "round " + round);
        }
        assertEquals(visitsAtStart + rounds, engine.requestBuildVisits());
        assertEquals(topics * perTopic, source.cache.get(engine.sessionId()).size());
    }

    /**
     * Random adds, removals, appends, partition errors, truncations, failed requests and lost sessions: after every
     * request the source's session holds exactly the partitions the engine fetches, at the engine's fetch offsets,
     * and in the end every follower log catches up with its leader.
     */
    @Test
    void theSourceSessionHoldsExactlyTheFetchingPartitionsUnderRandomChanges()
    {
        for (long seed = 1; seed <= 10; seed++)
        {
            new RandomRun(seed).run(400);
        }
    }

    /** One randomized run with its own engine, source and target. */
    private static final class RandomRun
    {
        private final Random random;
        private final long seed;
        private final FakeSourceNode source = new FakeSourceNode();
        private final RecordingTarget target = new RecordingTarget();
        private final FetcherEngine engine = new FetcherEngine(FetcherConfig.defaults(REPLICA_ID), 1, source, target);
        private final List<TopicIdPartition> universe = new ArrayList<>();
        private long nowMs = 1_000_000L;

        RandomRun(final long seed)
        {
            this.seed = seed;
            this.random = new Random(seed);
            target.reportsLogEnd = true;
            for (int t = 0; t < 2; t++)
            {
                final Uuid id = new Uuid(300L + seed, t + 1);
                for (int p = 0; p < 4; p++)
                {
                    universe.add(new TopicIdPartition(id, p, "r" + t));
                    source.partition(id, "r" + t, p);
                }
            }
        }

        private FakeSourceNode.LeaderPartition leader(final TopicIdPartition partition)
        {
            return source.leader.get(partition.topicPartition());
        }

        void run(final int steps)
        {
            for (final TopicIdPartition partition : universe)
            {
                engine.addPartition(partition, 0L, 0);
            }
            for (int step = 0; step < steps; step++)
            {
                final TopicIdPartition partition = universe.get(random.nextInt(universe.size()));
                final FakeSourceNode.LeaderPartition leader = leader(partition);
                boolean failing = false;
                switch (random.nextInt(12))
                {
                    case 0, 1, 2 -> FakeSourceNode.append(leader, 1 + random.nextInt(3));
                    case 3 -> engine.removePartition(partition.topicPartition());
                    case 4 -> engine.addPartition(partition, 0L, random.nextInt(2));
                    case 5 -> leader.error = Errors.UNKNOWN_LEADER_EPOCH;
                    case 6 -> leader.error = Errors.NOT_LEADER_OR_FOLLOWER;
                    case 7 ->
                    {
                        final long followerEnd = target.log(partition.topicPartition()).logEndOffset;
                        leader.diverging = new FetchResponseData.EpochEndOffset().setEpoch(0)
                            .setEndOffset(followerEnd == 0 ? 0 : random.nextLong(followerEnd));
                        target.truncationRefusals = random.nextInt(2);
                    }
                    case 8 ->
                    {
                        source.failuresToInject.set(1);
                        failing = true;
                    }
                    case 9 ->
                    {
                        if (engine.sessionId() != 0)
                        {
                            source.cache.remove(engine.sessionId());
                        }
                    }
                    default -> nowMs += random.nextInt(2) == 0 ? 10L : BACKOFF_MS;
                }
                final int sentBefore = source.requests.size();
                engine.doWork(nowMs);
                for (final TopicIdPartition p : universe)
                {
                    leader(p).error = Errors.NONE;
                }
                if (source.requests.size() > sentBefore && !failing)
                {
                    check(source.lastRequest(), "seed " + seed + " step " + step);
                }
            }
            catchUp();
        }

        /** What the engine fetches must be what the source's session holds after this request. */
        private void check(final FetchRequest request, final String at)
        {
            final Map<TopicPartition, Long> fetching = new HashMap<>();
            for (final TopicIdPartition p : universe)
            {
                if (engine.state(p.topicPartition()) == PartitionFetchState.FETCHING)
                {
                    fetching.put(p.topicPartition(), engine.fetchOffset(p.topicPartition()));
                }
            }
            assertEquals(fetching.size(), engine.sessionSize(), at);
            final Map<TopicPartition, Long> held = new HashMap<>();
            if (request.metadata().isFull())
            {
                request.fetchData(source.topicNames).forEach((p, data) -> held.put(p.topicPartition(), data.fetchOffset));
            }
            else
            {
                final FetchSession session = source.cache.get(request.metadata().sessionId());
                if (session == null || session.epoch != FetchMetadata.nextEpoch(request.metadata().epoch()))
                {
                    return; // the source refused it (a lost session): the engine starts a new one
                }
                for (int slot = session.firstSlot(); slot != FetchSession.NO_SLOT; slot = session.nextSlot(slot))
                {
                    held.put(new TopicPartition(session.topicName(slot), session.partition(slot)),
                        session.fetchOffset(slot));
                }
            }
            assertEquals(fetching, held, at + " " + request);
        }

        private void catchUp()
        {
            target.truncationRefusals = 0;
            for (final TopicIdPartition p : universe)
            {
                leader(p).diverging = null;
                engine.addPartition(p, 0L, 9);
            }
            for (int i = 0; i < 20; i++)
            {
                nowMs += BACKOFF_MS;
                engine.doWork(nowMs);
            }
            for (final TopicIdPartition p : universe)
            {
                assertEquals(leader(p).logEndOffset.get(), target.log(p.topicPartition()).logEndOffset,
                    "seed " + seed + ": " + p + " caught up");
            }
        }
    }
}
