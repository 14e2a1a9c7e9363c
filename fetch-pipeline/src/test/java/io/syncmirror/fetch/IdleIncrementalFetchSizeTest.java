package io.syncmirror.fetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.FetchSessionHandler;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.utils.internals.LogContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A follower's session of 100,000 partitions, built by kafka-clients' own FetchSessionHandler and answered
 * through {@link FetchSessionCache}: once established, an idle incremental fetch is a few dozen bytes each way.
 */
class IdleIncrementalFetchSizeTest
{
    private static final int TOPICS = 1_000;
    private static final int PARTITIONS_PER_TOPIC = 100;
    private static final int MAX_IDLE_WIRE_BYTES = 200;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void idleIncrementalFetchOfHundredThousandPartitionsIsUnder200BytesEachWay()
    {
        final Map<Uuid, String> topicNames = new HashMap<>();
        final Uuid[] topicIds = new Uuid[TOPICS];
        for (int t = 0; t < TOPICS; t++)
        {
            topicIds[t] = new Uuid(0x5eedL, t + 1);
            topicNames.put(topicIds[t], "topic-" + t);
        }
        final FetchRequest.PartitionData[][] requestData = new FetchRequest.PartitionData[TOPICS][PARTITIONS_PER_TOPIC];
        final TopicPartition[][] topicPartitions = new TopicPartition[TOPICS][PARTITIONS_PER_TOPIC];
        for (int t = 0; t < TOPICS; t++)
        {
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++)
            {
                topicPartitions[t][p] = new TopicPartition(topicNames.get(topicIds[t]), p);
                requestData[t][p] = new FetchRequest.PartitionData(
                    topicIds[t], 100L, 0L, 1024 * 1024, Optional.of(3), Optional.of(3));
            }
        }
        final FetchSessionHandler client = new FetchSessionHandler(new LogContext(), 1);
        final FetchSessionCache cache = new FetchSessionCache(1000, 120_000L, 42L);
        final long[] highWatermark = {100L};
        final FetchWire.PartitionReader leaderLog = (partitions, slot) -> new FetchResponseData.PartitionData()
            .setPartitionIndex(partitions.partition(slot))
            .setHighWatermark(highWatermark[0])
            .setLastStableOffset(highWatermark[0])
            .setLogStartOffset(0L)
            .setRecords(MemoryRecords.EMPTY);

        // Full fetch: creates the session.
        final FetchResponse full = roundTrip(client, cache, requestData, topicPartitions, topicNames, leaderLog, 0L);
        assertNotEquals(0, full.sessionId());
        assertEquals(TOPICS * PARTITIONS_PER_TOPIC, cache.totalPartitions());

        // Idle incremental fetch: nothing changed.
        final FetchSessionHandler.FetchRequestData idleData = build(client, requestData, topicPartitions);
        assertTrue(idleData.toSend().isEmpty());
        final ByteBuffer idleRequestWire = FetchWire.serialize(
            FetchWire.requestBuilder(idleData, FetchWire.VERSION).build(FetchWire.VERSION), 2);
        final FetchRequest idleRequest = FetchWire.parseRequest(idleRequestWire);
        final FetchContext idleContext = cache.newContext(
            idleRequest.data(), idleRequest.version(), idleRequest.isFromFollower(), topicNames::get, 10L);
        assertEquals(FetchContext.Kind.INCREMENTAL, idleContext.kind());
        final FetchResponse idleResponse = FetchWire.respond(idleContext, leaderLog, FetchWire.VERSION, 10L);
        final ByteBuffer idleResponseWire = FetchWire.serialize(idleResponse, FetchWire.VERSION, 2);
        final FetchResponse parsedIdle = FetchWire.parseResponse(idleResponseWire, FetchWire.VERSION);
        assertTrue(client.handleResponse(parsedIdle, FetchWire.VERSION));
        assertEquals(0, parsedIdle.data().responses().size());

        assertTrue(idleRequestWire.remaining() < MAX_IDLE_WIRE_BYTES,
            "idle incremental request is " + idleRequestWire.remaining() + " bytes");
        assertTrue(idleResponseWire.remaining() < MAX_IDLE_WIRE_BYTES,
            "idle incremental response is " + idleResponseWire.remaining() + " bytes");

        // The test can fail: a high watermark move puts every partition back into the response.
        highWatermark[0] = 101L;
        final FetchResponse moved = roundTrip(client, cache, requestData, topicPartitions, topicNames, leaderLog, 20L);
        assertEquals(TOPICS, moved.data().responses().size());
        final FetchResponse idleAgain = roundTrip(client, cache, requestData, topicPartitions, topicNames, leaderLog, 30L);
        assertEquals(0, idleAgain.data().responses().size());
        assertEquals(Errors.NONE, idleAgain.error());
    }

    private static FetchSessionHandler.FetchRequestData build(
        final FetchSessionHandler client,
        final FetchRequest.PartitionData[][] requestData,
        final TopicPartition[][] topicPartitions)
    {
        final FetchSessionHandler.Builder builder = client.newBuilder(TOPICS * PARTITIONS_PER_TOPIC, false);
        for (int t = 0; t < TOPICS; t++)
        {
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++)
            {
                builder.add(topicPartitions[t][p], requestData[t][p]);
            }
        }
        return builder.build();
    }

    private static FetchResponse roundTrip(
        final FetchSessionHandler client,
        final FetchSessionCache cache,
        final FetchRequest.PartitionData[][] requestData,
        final TopicPartition[][] topicPartitions,
        final Map<Uuid, String> topicNames,
        final FetchWire.PartitionReader leaderLog,
        final long nowMs)
    {
        final FetchSessionHandler.FetchRequestData data = build(client, requestData, topicPartitions);
        final FetchRequest request = FetchWire.parseRequest(
            FetchWire.serialize(FetchWire.requestBuilder(data, FetchWire.VERSION).build(FetchWire.VERSION), 1));
        final FetchContext context = cache.newContext(
            request.data(), request.version(), request.isFromFollower(), topicNames::get, nowMs);
        final FetchResponse response = FetchWire.parseResponse(
            FetchWire.serialize(FetchWire.respond(context, leaderLog, FetchWire.VERSION, nowMs), FetchWire.VERSION, 1), FetchWire.VERSION);
        assertTrue(client.handleResponse(response, FetchWire.VERSION));
        return response;
    }
}
