package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FetchResponseAssemblerTest
{
    private static final Uuid A = new Uuid(1L, 2L);
    private static final Uuid B = new Uuid(3L, 4L);

    private final FetchSessionCache cache = new FetchSessionCache(10, 1_000L, 1L);

    private static FetchRequestData fullRequest(final boolean byName)
    {
        final FetchRequestData request = new FetchRequestData().setSessionId(0).setSessionEpoch(0);
        for (final Uuid id : new Uuid[] {A, B})
        {
            final FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic();
            if (byName)
            {
                topic.setTopic(id == A ? "a" : "b");
            }
            else
            {
                topic.setTopicId(id);
            }
            for (int p = 0; p < 2; p++)
            {
                topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setPartitionMaxBytes(10));
            }
            request.topics().add(topic);
        }
        return request;
    }

    private static FetchResponseData.PartitionData answer(final long highWatermark)
    {
        return new FetchResponseData.PartitionData().setHighWatermark(highWatermark).setLastStableOffset(highWatermark)
            .setLogStartOffset(0L);
    }

    @Test
    void groupsConsecutivePartitionsOfATopicAndAddressesThemById()
    {
        final FetchContext full = cache.newContext(fullRequest(false), (short)18, true, id -> id == A ? "a" : "b", 0L);
        final FetchResponseAssembler assembler = new FetchResponseAssembler(full, (short)18);
        final FetchSession s = full.partitions();
        for (int slot = s.firstSlot(); slot != FetchSession.NO_SLOT; slot = s.nextSlot(slot))
        {
            assertTrue(assembler.maybeAdd(slot, answer(5L)));
        }
        final FetchResponse response = assembler.build(0L, 0);
        assertTrue(response.sessionId() != 0);
        assertEquals(2, response.data().responses().size());
        assertEquals(A, response.data().responses().get(0).topicId());
        assertEquals(List.of(0, 1), partitionIndexes(response.data().responses().get(1)));
    }

    @Test
    void olderVersionsAddressTopicsByName()
    {
        final FetchContext full = cache.newContext(fullRequest(true), (short)12, false, id -> null, 0L);
        final FetchResponseAssembler assembler = new FetchResponseAssembler(full, (short)12);
        final FetchSession s = full.partitions();
        assembler.maybeAdd(s.firstSlot(), answer(1L));
        assertEquals("a", assembler.build(0L, 0).data().responses().get(0).topic());
    }

    @Test
    void anIncrementalResponseCarriesDivergingEpochsAndPreferredReplicasEvenIfNothingElseChanged()
    {
        final FetchContext full = cache.newContext(fullRequest(false), (short)18, false, id -> "x", 0L);
        final FetchResponseAssembler first = new FetchResponseAssembler(full, (short)18);
        for (int slot = full.partitions().firstSlot(); slot != FetchSession.NO_SLOT; slot = full.partitions().nextSlot(slot))
        {
            first.maybeAdd(slot, answer(5L));
        }
        final int id = first.build(0L, 0).sessionId();

        final FetchContext next = cache.newContext(new FetchRequestData().setSessionId(id).setSessionEpoch(1),
            (short)18, false, x -> "x", 1L);
        final FetchResponseAssembler assembler = new FetchResponseAssembler(next, (short)18);
        final FetchSession s = next.partitions();
        int slot = s.firstSlot();
        assertFalse(assembler.wouldInclude(slot, answer(5L)));
        assertFalse(assembler.maybeAdd(slot, answer(5L)));
        slot = s.nextSlot(slot);
        assertTrue(assembler.maybeAdd(slot, answer(5L).setDivergingEpoch(
            new FetchResponseData.EpochEndOffset().setEpoch(2).setEndOffset(3L))));
        slot = s.nextSlot(slot);
        assertTrue(assembler.maybeAdd(slot, answer(5L).setPreferredReadReplica(3)));
        final FetchResponse response = assembler.build(1L, 0);
        assertEquals(id, response.sessionId());
        assertEquals(2, response.data().responses().size(), "the two partitions are of different topics");
    }

    /**
     * The handler's walk (ReplicaApis): session order, each partition read with what is left of the request's
     * max bytes, the first one at least one batch. Every partition has data and its high watermark moves every
     * round (a producer keeps appending), and the budget fits one batch, so each response carries the records of
     * one partition and the high watermarks of the others.
     */
    @Test
    void aResponseCappedByMaxBytesServesThePartitionsWithDataInTurn()
    {
        final FetchRequestData fullRequest = new FetchRequestData().setSessionId(0).setSessionEpoch(0);
        final FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopicId(A);
        for (int p = 0; p < 3; p++)
        {
            topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(p).setPartitionMaxBytes(1 << 20));
        }
        fullRequest.topics().add(topic);
        final FetchContext full = cache.newContext(fullRequest, (short)18, false, id -> "a", 0L);
        final FetchResponseAssembler first = new FetchResponseAssembler(full, (short)18);
        for (int slot = full.partitions().firstSlot(); slot != FetchSession.NO_SLOT; slot = full.partitions().nextSlot(slot))
        {
            first.maybeAdd(slot, answer(5L));
        }
        final int id = first.build(0L, 0).sessionId();
        assertTrue(id != 0);

        final MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[100]));
        final int maxBytes = batch.sizeInBytes();
        final List<Integer> served = new ArrayList<>();
        for (int round = 1; round <= 7; round++)
        {
            final FetchContext next = cache.newContext(new FetchRequestData().setSessionId(id).setSessionEpoch(round),
                (short)18, false, x -> "a", round);
            assertEquals(FetchContext.Kind.INCREMENTAL, next.kind());
            final FetchResponseAssembler assembler = new FetchResponseAssembler(next, (short)18);
            final FetchSession s = next.partitions();
            int remainingBytes = maxBytes;
            for (int slot = s.firstSlot(); slot != FetchSession.NO_SLOT; slot = s.nextSlot(slot))
            {
                final MemoryRecords records = remainingBytes >= batch.sizeInBytes() ? batch : MemoryRecords.EMPTY;
                remainingBytes -= records.sizeInBytes();
                assertTrue(assembler.maybeAdd(slot, answer(5L + round).setRecords(records)),
                    "a moved high watermark is always sent");
            }
            final FetchResponse response = assembler.build(round, 0);
            int withRecords = -1;
            for (final FetchResponseData.PartitionData partition : response.data().responses().get(0).partitions())
            {
                if (partition.records().sizeInBytes() > 0)
                {
                    assertEquals(-1, withRecords, "one partition's records fit");
                    withRecords = partition.partitionIndex();
                }
            }
            served.add(withRecords);
        }
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0), served);
    }

    @Test
    void aSessionErrorIsAnsweredWithNoPartitionsAndNoSession()
    {
        final FetchContext error = cache.newContext(new FetchRequestData().setSessionId(12345).setSessionEpoch(3),
            (short)18, false, x -> "x", 0L);
        final FetchResponse response = new FetchResponseAssembler(error, (short)18).build(0L, 0);
        assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, response.error());
        assertEquals(0, response.sessionId());
        assertTrue(response.data().responses().isEmpty());
    }

    private static List<Integer> partitionIndexes(final FetchResponseData.FetchableTopicResponse topic)
    {
        final List<Integer> indexes = new ArrayList<>();
        for (final FetchResponseData.PartitionData partition : topic.partitions())
        {
            indexes.add(partition.partitionIndex());
        }
        return indexes;
    }
}
