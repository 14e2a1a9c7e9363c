package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import org.apache.kafka.clients.FetchSessionHandler;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.utils.internals.LogContext;
import org.junit.jupiter.api.Test;

/**
 * The fetcher's session bookkeeping on its own: the KIP-227 metadata rules, and what each request carries compared
 * with kafka-clients' own FetchSessionHandler driven through the same changes.
 */
class ClientFetchSessionTest
{
    private static final short VERSION = ApiKeys.FETCH.latestVersion();
    private static final Uuid FOO = new Uuid(1L, 1L);
    private static final Uuid BAR = new Uuid(2L, 2L);

    /** A partition whose fetchable state and request data the test sets. */
    private static final class TestMember extends ClientFetchSession.Member
    {
        boolean fetchable = true;
        FetchRequest.PartitionData data;

        TestMember(final TopicIdPartition partition, final long fetchOffset)
        {
            super(partition);
            data = data(partition.topicId(), fetchOffset);
        }

        @Override
        boolean fetchable()
        {
            return fetchable;
        }

        @Override
        FetchRequest.PartitionData requestData()
        {
            return data;
        }
    }

    private static FetchRequest.PartitionData data(final Uuid topicId, final long fetchOffset)
    {
        return new FetchRequest.PartitionData(topicId, fetchOffset, 0L, 1024, Optional.of(1), Optional.empty());
    }

    private final ClientFetchSession session = new ClientFetchSession("");
    private final List<TestMember> members = new ArrayList<>();

    private TestMember add(final Uuid topicId, final String topic, final int partition, final long fetchOffset)
    {
        final TestMember member = new TestMember(new TopicIdPartition(topicId, partition, topic), fetchOffset);
        members.add(member);
        session.add(member);
        return member;
    }

    /** A response to the last request carrying these partitions (empty records). */
    private static FetchResponse response(final Errors error, final int sessionId, final ClientFetchSession.Member... in)
    {
        final LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> data = new LinkedHashMap<>();
        for (final ClientFetchSession.Member member : in)
        {
            data.put(new TopicIdPartition(member.topicId, member.topicPartition), new FetchResponseData.PartitionData()
                .setPartitionIndex(member.topicPartition.partition()).setRecords(MemoryRecords.EMPTY));
        }
        return FetchResponse.of(error, 0, sessionId, data, List.of());
    }

    /** Builds the full request and answers it creating session {@code id}. */
    private void establish(final int id)
    {
        final ClientFetchSession.Request full = session.build(members);
        assertEquals(FetchMetadata.INITIAL_EPOCH, full.metadata().epoch());
        assertNotNull(session.handleResponse(response(Errors.NONE, id, members.toArray(new TestMember[0])), VERSION));
        assertEquals(new FetchMetadata(id, 1), session.nextMetadata());
    }

    @Test
    void aFullFetchStartsASessionAtEpochOneAndEachAnswerMovesTheEpoch()
    {
        final TestMember p0 = add(FOO, "foo", 0, 10L);
        final TestMember p1 = add(FOO, "foo", 1, 20L);
        final ClientFetchSession.Request full = session.build(members);
        assertEquals(FetchMetadata.INITIAL, full.metadata());
        assertEquals(Map.of(p0.topicPartition, p0.data, p1.topicPartition, p1.data), full.toSend());
        assertNotNull(session.handleResponse(response(Errors.NONE, 77, p0, p1), VERSION));
        assertEquals(77, session.sessionId());

        final ClientFetchSession.Request idle = session.build(members);
        assertEquals(new FetchMetadata(77, 1), idle.metadata());
        assertTrue(idle.toSend().isEmpty(), "nothing changed: an empty incremental request (a long-poll)");
        assertTrue(idle.toForget().isEmpty());
        assertNotNull(session.handleResponse(response(Errors.NONE, 77), VERSION));

        p1.data = data(FOO, 25L);
        session.changed(p1);
        final ClientFetchSession.Request changed = session.build(members);
        assertEquals(new FetchMetadata(77, 2), changed.metadata());
        assertEquals(Map.of(p1.topicPartition, p1.data), changed.toSend());
        assertEquals(Map.of(FOO, "foo"), session.topicNames());
    }

    @Test
    void sessionErrorsAndFailuresFollowKafkasRules()
    {
        add(FOO, "foo", 0, 0L);
        establish(5);
        session.build(members);
        assertNull(session.handleResponse(response(Errors.FETCH_SESSION_ID_NOT_FOUND, 0), VERSION));
        assertEquals(FetchMetadata.INITIAL, session.nextMetadata(), "an unknown session is not closed");

        establish(6);
        session.build(members);
        assertNull(session.handleResponse(response(Errors.INVALID_FETCH_SESSION_EPOCH, 0), VERSION));
        assertEquals(new FetchMetadata(6, 0), session.nextMetadata(), "full fetch closing session 6");

        establish(7);
        session.build(members);
        assertNull(session.handleResponse(response(Errors.UNKNOWN_SERVER_ERROR, 0), VERSION));
        assertEquals(new FetchMetadata(7, 0), session.nextMetadata());

        establish(8);
        session.build(members);
        session.handleError(new DisconnectException("gone"));
        assertEquals(new FetchMetadata(8, 0), session.nextMetadata());
        assertEquals(8, session.build(members).metadata().sessionId(), "the full fetch names the session it closes");
    }

    @Test
    void responsesThatDoNotMatchTheSessionAreRefused()
    {
        final TestMember p0 = add(FOO, "foo", 0, 0L);
        final TestMember p1 = add(FOO, "foo", 1, 0L);
        session.build(members);
        assertNull(session.handleResponse(response(Errors.NONE, 9, p0), VERSION), "a full response must carry all");
        assertEquals(FetchMetadata.INITIAL, session.nextMetadata());

        session.build(members);
        final FetchResponse throttled = response(Errors.NONE, 0);
        throttled.maybeSetThrottleTimeMs(100);
        assertNull(session.handleResponse(throttled, VERSION), "KIP-219: an empty throttled full response");
        assertEquals(FetchMetadata.INITIAL, session.nextMetadata());

        establish(10);
        final TestMember stranger = new TestMember(new TopicIdPartition(BAR, 0, "bar"), 0L);
        session.build(members);
        assertNull(session.handleResponse(response(Errors.NONE, 10, p1, stranger), VERSION),
            "an incremental response naming a topic id outside the session");
        assertEquals(new FetchMetadata(10, 0), session.nextMetadata());

        establish(11);
        session.build(members);
        assertNotNull(session.handleResponse(response(Errors.NONE, 0, p1), VERSION));
        assertEquals(FetchMetadata.INITIAL, session.nextMetadata(), "session id 0: the source closed the session");

        session.build(members);
        assertNotNull(session.handleResponse(response(Errors.NONE, 0, p0, p1), VERSION));
        assertEquals(FetchMetadata.INITIAL, session.nextMetadata(), "a full response without a session: full again");
    }

    @Test
    void aPartitionLeavingAndComingBackIsForgottenThenSentAgain()
    {
        final TestMember p0 = add(FOO, "foo", 0, 0L);
        final TestMember p1 = add(FOO, "foo", 1, 0L);
        establish(3);

        p1.fetchable = false;
        session.changed(p1);
        final ClientFetchSession.Request left = session.build(members);
        assertTrue(left.toSend().isEmpty());
        assertEquals(List.of(new TopicIdPartition(FOO, p1.topicPartition)), left.toForget());
        assertNull(p1.sessionData());
        assertEquals(1, session.size());
        assertNotNull(session.handleResponse(response(Errors.NONE, 3), VERSION));

        p1.fetchable = true;
        session.changed(p1);
        final ClientFetchSession.Request back = session.build(members);
        assertEquals(Map.of(p1.topicPartition, p1.data), back.toSend());
        assertTrue(back.toForget().isEmpty());
        assertEquals(p1.data, p1.sessionData());
        assertEquals(p0.data, p0.sessionData());
    }

    @Test
    void nothingFetchableSendsNothingAndKeepsWhatIsToBeForgotten()
    {
        final TestMember p0 = add(FOO, "foo", 0, 0L);
        establish(4);
        p0.fetchable = false;
        session.changed(p0);
        assertNull(session.build(members), "an empty incremental request would close the session");
        final TestMember p1 = add(FOO, "foo", 1, 0L);
        final ClientFetchSession.Request request = session.build(members);
        assertEquals(new FetchMetadata(4, 1), request.metadata());
        assertEquals(Map.of(p1.topicPartition, p1.data), request.toSend());
        assertEquals(List.of(new TopicIdPartition(FOO, p0.topicPartition)), request.toForget());
    }

    @Test
    void aReAddedPartitionIsUpdatedInPlaceOrReplacedWhenItsTopicIdChanged()
    {
        final TestMember p0 = add(FOO, "foo", 0, 5L);
        establish(12);

        // Removed and added again (a new leader epoch, say) before the next request: never forget and send it in
        // one request, as the source would apply the send first and then drop the partition.
        session.remove(p0);
        members.remove(p0);
        final TestMember again = add(FOO, "foo", 0, 5L);
        again.data = new FetchRequest.PartitionData(FOO, 5L, 0L, 1024, Optional.of(2), Optional.empty());
        final ClientFetchSession.Request updated = session.build(members);
        assertEquals(Map.of(again.topicPartition, again.data), updated.toSend());
        assertTrue(updated.toForget().isEmpty());
        assertTrue(updated.toReplace().isEmpty());
        assertNull(p0.sessionData(), "the old object's answers are no longer accepted");
        assertNotNull(session.handleResponse(response(Errors.NONE, 12), VERSION));

        // The topic was re-created under the same name.
        session.remove(again);
        members.remove(again);
        final Uuid newFoo = new Uuid(1L, 99L);
        final TestMember recreated = add(newFoo, "foo", 0, 0L);
        final ClientFetchSession.Request replaced = session.build(members);
        assertEquals(Map.of(recreated.topicPartition, recreated.data), replaced.toSend());
        assertEquals(List.of(new TopicIdPartition(FOO, recreated.topicPartition)), replaced.toReplace());
        assertTrue(replaced.toForget().isEmpty());
        assertEquals(Map.of(newFoo, "foo"), session.topicNames());
    }

    @Test
    void aPartitionWithoutTopicIdSwitchesToANewSessionAddressedByName()
    {
        add(FOO, "foo", 0, 0L);
        establish(13);
        assertTrue(session.build(members).usesTopicIds());
        assertNotNull(session.handleResponse(response(Errors.NONE, 13), VERSION));
        final TestMember legacy = add(Uuid.ZERO_UUID, "legacy", 0, 0L);
        final ClientFetchSession.Request request = session.build(members);
        assertEquals(new FetchMetadata(13, 0), request.metadata(), "a full fetch closing the session by ids");
        assertEquals(2, request.toSend().size());
        assertFalse(request.usesTopicIds());
        assertNotNull(session.handleResponse(response(Errors.NONE, 14, members.toArray(new TestMember[0])), (short)12));
        session.remove(legacy);
        members.remove(legacy);
        final ClientFetchSession.Request back = session.build(members);
        assertEquals(new FetchMetadata(14, 0), back.metadata(), "and back to ids with a new session");
        assertTrue(back.usesTopicIds());
    }

    /**
     * Random changes to the partition set, random answers and failures: each request must carry what
     * FetchSessionHandler's would (sent data, forgotten and replaced partitions, metadata), and both must read each
     * answer alike.
     */
    @Test
    void requestsMatchKafkasFetchSessionHandlerOverRandomChanges()
    {
        for (long seed = 1; seed <= 40; seed++)
        {
            compareWithKafka(seed, 300);
        }
    }

    private void compareWithKafka(final long seed, final int steps)
    {
        final Random random = new Random(seed);
        final FetchSessionHandler kafka = new FetchSessionHandler(new LogContext(), 1);
        final ClientFetchSession ours = new ClientFetchSession("");
        final String[] topics = {"a", "b", "c"};
        final Map<String, Uuid> topicIds = new HashMap<>();
        for (int t = 0; t < topics.length; t++)
        {
            topicIds.put(topics[t], new Uuid(seed, t + 1));
        }
        // What the fetcher has, in the order a Kafka fetcher would add it to the builder.
        final LinkedHashMap<TopicPartition, TestMember> current = new LinkedHashMap<>();
        int nextSessionId = 1_000;
        for (int step = 0; step < steps; step++)
        {
            final int changes = random.nextInt(4);
            for (int c = 0; c < changes; c++)
            {
                final String topic = topics[random.nextInt(topics.length)];
                final TopicPartition tp = new TopicPartition(topic, random.nextInt(4));
                final TestMember member = current.get(tp);
                switch (random.nextInt(6))
                {
                    case 0 ->
                    {
                        // Add, or re-add as a new object (same or new data).
                        if (member != null)
                        {
                            ours.remove(member);
                        }
                        final TestMember added = new TestMember(new TopicIdPartition(topicIds.get(topic), tp),
                            member != null && random.nextBoolean() ? member.data.fetchOffset : random.nextInt(5));
                        current.remove(tp);
                        current.put(tp, added);
                        ours.add(added);
                    }
                    case 1 ->
                    {
                        if (member != null)
                        {
                            current.remove(tp);
                            ours.remove(member);
                        }
                    }
                    case 2, 3 ->
                    {
                        if (member != null)
                        {
                            member.data = data(member.topicId, member.data.fetchOffset + random.nextInt(2));
                            ours.changed(member);
                        }
                    }
                    case 4 ->
                    {
                        if (member != null)
                        {
                            member.fetchable = !member.fetchable;
                            ours.changed(member);
                        }
                    }
                    default ->
                    {
                        // The topic is re-created: a new id for the same name, taken by partitions added from now.
                        topicIds.put(topic, new Uuid(seed, random.nextLong()));
                    }
                }
            }
            final FetchSessionHandler.Builder builder = kafka.newBuilder(current.size(), false);
            int fetchable = 0;
            for (final TestMember member : current.values())
            {
                if (member.fetchable)
                {
                    builder.add(member.topicPartition, member.data);
                    fetchable++;
                }
            }
            assertEquals(fetchable, ours.fetchableCount(), "seed " + seed + " step " + step);
            if (fetchable == 0)
            {
                assertNull(ours.build(current.values()));
                continue;
            }
            final FetchSessionHandler.FetchRequestData expected = builder.build();
            final ClientFetchSession.Request actual = ours.build(current.values());
            final String at = "seed " + seed + " step " + step + ": " + expected;
            assertEquals(expected.metadata(), actual.metadata(), at);
            assertEquals(expected.toSend(), actual.toSend(), at);
            assertEquals(new HashSet<>(expected.toForget()), new HashSet<>(actual.toForget()), at);
            assertEquals(new HashSet<>(expected.toReplace()), new HashSet<>(actual.toReplace()), at);
            assertEquals(expected.sessionPartitions().size(), ours.size(), at);
            assertEquals(kafka.sessionTopicNames(), ours.topicNames(), at);
            for (final Map.Entry<TopicPartition, FetchRequest.PartitionData> entry :
                expected.sessionPartitions().entrySet())
            {
                assertEquals(entry.getValue(), current.get(entry.getKey()).sessionData(), at);
            }

            final int outcome = random.nextInt(20);
            if (outcome == 0)
            {
                final DisconnectException failure = new DisconnectException("injected");
                kafka.handleError(failure);
                ours.handleError(failure);
                assertEquals(kafka.sessionId(), ours.sessionId(), at);
                continue;
            }
            final FetchResponse response;
            if (outcome == 1)
            {
                response = response(random.nextBoolean() ? Errors.FETCH_SESSION_ID_NOT_FOUND :
                    Errors.INVALID_FETCH_SESSION_EPOCH, 0);
            }
            else
            {
                final List<TestMember> answered = new ArrayList<>();
                for (final TopicPartition tp : expected.sessionPartitions().keySet())
                {
                    if (expected.metadata().isFull() || random.nextInt(3) == 0)
                    {
                        answered.add(current.get(tp));
                    }
                }
                if (outcome == 2 && !answered.isEmpty())
                {
                    answered.remove(0);
                }
                final int sessionId = outcome == 3 ? 0 :
                    expected.metadata().isFull() ? nextSessionId++ : expected.metadata().sessionId();
                response = response(Errors.NONE, sessionId, answered.toArray(new TestMember[0]));
            }
            final boolean kafkaAccepted = kafka.handleResponse(response, VERSION);
            final Map<TopicPartition, FetchResponseData.PartitionData> read = ours.handleResponse(response, VERSION);
            assertEquals(kafkaAccepted, read != null, at);
            if (read != null)
            {
                assertEquals(response.responseData(kafka.sessionTopicNames(), VERSION), read, at);
            }
            assertEquals(kafka.sessionId(), ours.sessionId(), at);
        }
    }
}
