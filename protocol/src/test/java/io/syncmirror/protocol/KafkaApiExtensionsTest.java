package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class KafkaApiExtensionsTest
{
    private static final short PRODUCE_V13 = 13;
    private static final short PRODUCE_V14 = 14;

    static ProduceRequestData sampleProduce()
    {
        final MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)));
        final ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setTopicId(Uuid.randomUuid()).setPartitionData(
            List.of(new ProduceRequestData.PartitionProduceData().setIndex(2).setRecords(records))));
        return new ProduceRequestData().setAcks((short)-1).setTimeoutMs(3000).setTopicData(topics);
    }

    private static byte[] kafka(final ApiMessage data, final short version)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(data.size(cache, version));
        data.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.array();
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    @Test
    void shouldKnowTheVersionsBeyondKafkaClientsAndTheirLayouts()
    {
        assertEquals(20, KafkaApiExtensions.latestVersion(ApiKeys.FETCH));
        assertEquals(14, KafkaApiExtensions.latestVersion(ApiKeys.PRODUCE));
        assertEquals(ApiKeys.METADATA.latestVersion(), KafkaApiExtensions.latestVersion(ApiKeys.METADATA));
        assertTrue(KafkaApiExtensions.isBeyondKafka(ApiKeys.FETCH, (short)19));
        assertTrue(KafkaApiExtensions.isBeyondKafka(ApiKeys.FETCH, (short)20));
        assertFalse(KafkaApiExtensions.isBeyondKafka(ApiKeys.FETCH, (short)18));
        assertFalse(KafkaApiExtensions.isBeyondKafka(ApiKeys.FETCH, (short)21));
        assertTrue(KafkaApiExtensions.isBeyondKafka(ApiKeys.PRODUCE, (short)14));
        assertFalse(KafkaApiExtensions.isBeyondKafka(ApiKeys.PRODUCE, (short)15));
        assertFalse(KafkaApiExtensions.isBeyondKafka(ApiKeys.HEARTBEAT, (short)(ApiKeys.HEARTBEAT.latestVersion() + 1)));
        assertEquals(18, KafkaApiExtensions.layoutVersion(ApiKeys.FETCH, (short)20));
        assertEquals(13, KafkaApiExtensions.layoutVersion(ApiKeys.PRODUCE, (short)14));
        assertEquals(12, KafkaApiExtensions.layoutVersion(ApiKeys.PRODUCE, (short)12));
        // Headers at the new versions are those of the layout versions (request v2, response v1).
        assertEquals(ApiKeys.FETCH.requestHeaderVersion((short)18), ApiKeys.FETCH.requestHeaderVersion((short)20));
        assertEquals(ApiKeys.FETCH.responseHeaderVersion((short)18), ApiKeys.FETCH.responseHeaderVersion((short)20));
        assertEquals(ApiKeys.PRODUCE.responseHeaderVersion((short)13), ApiKeys.PRODUCE.responseHeaderVersion((short)14));
    }

    @Test
    void shouldReadAndWriteProduceV14AsTheV13Layout()
    {
        final ProduceRequestData data = sampleProduce();
        final byte[] v13 = kafka(data, PRODUCE_V13);
        assertArrayEquals(v13, bytes(KafkaApiExtensions.serializeProduceRequest(data, PRODUCE_V14)));
        final ProduceRequestData parsed = KafkaApiExtensions.parseProduceRequest(ByteBuffer.wrap(v13), PRODUCE_V14);
        assertEquals(new ProduceRequestData(new ByteBufferAccessor(ByteBuffer.wrap(v13)), PRODUCE_V13), parsed);

        final ProduceResponseData response = new ProduceResponseData();
        response.responses().add(new ProduceResponseData.TopicProduceResponse().setTopicId(Uuid.randomUuid())
            .setPartitionResponses(List.of(new ProduceResponseData.PartitionProduceResponse().setIndex(2)
                .setErrorCode((short)19).setErrorMessage("not enough").setBaseOffset(-1))));
        final byte[] responseV13 = kafka(response, PRODUCE_V13);
        assertArrayEquals(responseV13, bytes(KafkaApiExtensions.serializeResponse(ApiKeys.PRODUCE, PRODUCE_V14,
            response)));
        assertEquals(response, KafkaApiExtensions.parseProduceResponse(ByteBuffer.wrap(responseV13), PRODUCE_V14));
    }

    @Test
    void shouldWriteFetchV20ResponsesAsTheV18Layout()
    {
        final FetchResponseData response = new FetchResponseData().setSessionId(9).setThrottleTimeMs(1);
        final byte[] v18 = kafka(response, (short)18);
        assertArrayEquals(v18, bytes(KafkaApiExtensions.serializeResponse(ApiKeys.FETCH, (short)20, response)));
        assertEquals(response, KafkaApiExtensions.parseFetchResponse(ByteBuffer.wrap(v18), (short)19));
        assertThrows(IllegalArgumentException.class,
            () -> KafkaApiExtensions.serializeResponse(ApiKeys.PRODUCE, PRODUCE_V14, response));
        assertThrows(UnsupportedVersionException.class,
            () -> KafkaApiExtensions.serializeResponse(ApiKeys.FETCH, (short)21, response));
    }

    @Test
    void shouldRejectTruncatedOrTrailingProduceBodiesWithInvalidRequest()
    {
        final byte[] whole = kafka(sampleProduce(), PRODUCE_V13);
        for (int length = 0; length < whole.length; length++)
        {
            final ByteBuffer cut = ByteBuffer.wrap(Arrays.copyOf(whole, length));
            assertThrows(InvalidRequestException.class, () -> KafkaApiExtensions.parseProduceRequest(cut, PRODUCE_V14),
                "cut to " + length);
        }
        assertThrows(InvalidRequestException.class, () -> KafkaApiExtensions.parseProduceRequest(
            ByteBuffer.wrap(Arrays.copyOf(whole, whole.length + 2)), PRODUCE_V14));
        assertThrows(UnsupportedVersionException.class,
            () -> KafkaApiExtensions.parseProduceRequest(ByteBuffer.wrap(whole), (short)15));
    }
}
