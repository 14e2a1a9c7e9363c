package io.syncmirror.tests;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorMessages;
import io.syncmirror.protocol.MirrorRequestHeader;
import io.syncmirror.protocol.MirrorResponseHeader;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed frames, and requests for APIs or versions not advertised (as in Kafka 4.4), close only their own
 * connection; mirror RPCs with bad content get their error on a connection that stays usable; other clients carry
 * on throughout.
 */
@Timeout(60)
class BadRequestsTest
{
    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start()
    {
        cluster = EmbeddedCluster.start(1, Map.of());
    }

    @AfterAll
    static void stop()
    {
        cluster.close();
    }

    /** A raw Kafka-wire connection: frames written and read by hand. */
    private static final class RawConnection implements AutoCloseable
    {
        private final Socket socket;
        private final DataOutputStream out;
        private final DataInputStream in;
        private int correlationId;

        RawConnection() throws IOException
        {
            socket = new Socket("127.0.0.1", cluster.port(1));
            socket.setSoTimeout(10_000);
            out = new DataOutputStream(socket.getOutputStream());
            in = new DataInputStream(socket.getInputStream());
        }

        AbstractResponse roundTrip(final AbstractRequest request) throws IOException
        {
            final RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client",
                ++correlationId);
            final ByteBuffer frame = request.serializeWithHeader(header);
            writeFrame(frame);
            final byte[] response = new byte[in.readInt()];
            in.readFully(response);
            return AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
        }

        ByteBuffer readFrame() throws IOException
        {
            final byte[] response = new byte[in.readInt()];
            in.readFully(response);
            return ByteBuffer.wrap(response);
        }

        void writeFrame(final ByteBuffer frame) throws IOException
        {
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
        }

        void writeRaw(final byte[] bytes) throws IOException
        {
            out.write(bytes);
            out.flush();
        }

        boolean closedByPeer() throws IOException
        {
            try
            {
                return in.read() < 0;
            }
            catch (final EOFException | java.net.SocketException ex)
            {
                return true;
            }
        }

        @Override
        public void close() throws IOException
        {
            socket.close();
        }
    }

    @Test
    void shouldAnswerApiVersionsWithTheServedRanges() throws Exception
    {
        try (RawConnection connection = new RawConnection())
        {
            final ApiVersionsResponse response = (ApiVersionsResponse)connection.roundTrip(
                new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));
            assertEquals(Errors.NONE.code(), response.data().errorCode());
            assertTrue(response.data().apiKeys().find(ApiKeys.PRODUCE.id) != null);
            assertTrue(response.data().apiKeys().find(ApiKeys.FETCH.id) != null);
        }
    }

    @Test
    void shouldCloseOnlyTheConnectionThatAsksForAnUnservedApiAsKafkaDoes() throws Exception
    {
        try (RawConnection asking = new RawConnection();
             RawConnection other = new RawConnection())
        {
            // Client quotas are not served: as Kafka 4.4 does with a disabled API, the connection is closed.
            final AbstractRequest unserved = new DescribeClientQuotasRequest.Builder(ClientQuotaFilter.all())
                .build(ApiKeys.DESCRIBE_CLIENT_QUOTAS.latestVersion());
            final RequestHeader header = new RequestHeader(unserved.apiKey(), unserved.version(), "raw-client", 1);
            asking.writeFrame(unserved.serializeWithHeader(header));
            assertTrue(asking.closedByPeer(), "a request for an unserved API left the connection open");
            // Other connections carry on.
            final AbstractResponse metadata = other.roundTrip(new MetadataRequest(new MetadataRequestData()
                .setTopics(null).setAllowAutoTopicCreation(false), ApiKeys.METADATA.latestVersion()));
            assertEquals(ApiKeys.METADATA, metadata.apiKey());
        }
    }

    @Test
    void shouldAnswerASyncRegistrationOfAnUnknownTopicWithAClearErrorAndKeepTheConnection() throws Exception
    {
        try (RawConnection connection = new RawConnection())
        {
            // A Register naming a topic this (source) cluster does not have: a per-topic error, not a crash.
            final MirrorRequestHeader header = new MirrorRequestHeader(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC,
                (short)0, 77, "raw-client");
            final RegisterMirrorSyncTopicRequestData request = new RegisterMirrorSyncTopicRequestData()
                .setMirrorName("west").setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState()
                    .setTopicId(Uuid.randomUuid()).setTopicName("orders")));
            connection.writeFrame(MirrorMessages.serializeRequest(header, request));
            final ByteBuffer frame = connection.readFrame();
            assertEquals(77, MirrorResponseHeader.parse(frame).correlationId());
            final RegisterMirrorSyncTopicResponseData response = (RegisterMirrorSyncTopicResponseData)MirrorMessages
                .parseResponse(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC, (short)0, frame);
            assertEquals(1, response.topics().size());
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), response.topics().get(0).errorCode());
            assertTrue(response.topics().get(0).errorMessage().contains("orders"),
                response.topics().get(0).errorMessage());
            assertStillUsable(connection);
        }
    }

    @Test
    void shouldAnswerAMirrorRpcNamingAnUnknownMirrorWithAClearErrorAndKeepTheConnection() throws Exception
    {
        try (RawConnection connection = new RawConnection())
        {
            final MirrorRequestHeader header = new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0,
                78, "raw-client");
            final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopics(List.of(
                new AddTopicsToMirrorRequestData.TopicState().setTopicId(Uuid.randomUuid()).setTopicName("orders")
                    .setMirrorName("west")));
            connection.writeFrame(MirrorMessages.serializeRequest(header, request));
            final ByteBuffer frame = connection.readFrame();
            assertEquals(78, MirrorResponseHeader.parse(frame).correlationId());
            final AddTopicsToMirrorResponseData response = (AddTopicsToMirrorResponseData)MirrorMessages.parseResponse(
                MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0, frame);
            assertEquals(1, response.topics().size());
            assertEquals("orders", response.topics().get(0).topicName());
            assertEquals(Errors.RESOURCE_NOT_FOUND.code(), response.topics().get(0).errorCode());
            assertTrue(response.topics().get(0).errorMessage().contains("west"),
                response.topics().get(0).errorMessage());
            assertStillUsable(connection);
        }
    }

    private static void assertStillUsable(final RawConnection connection) throws Exception
    {
        final ApiVersionsResponse versions = (ApiVersionsResponse)connection.roundTrip(
            new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));
        assertEquals(Errors.NONE.code(), versions.data().errorCode());
        // The mirror RPCs served are advertised beside Kafka's.
        assertTrue(versions.data().apiKeys().find(MirrorApiKeys.ADD_TOPICS_TO_MIRROR.id()) != null);
        assertTrue(versions.data().apiKeys().find(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC.id()) != null);
    }

    @Test
    void shouldCloseOnlyTheConnectionThatSentAMalformedFrame() throws Exception
    {
        try (RawConnection healthy = new RawConnection();
             RawConnection garbage = new RawConnection();
             RawConnection oversize = new RawConnection();
             KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            producer.send(new ProducerRecord<>("bad-requests", "before".getBytes(StandardCharsets.UTF_8))).get();
            garbage.writeRaw(new byte[] {0, 0, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
            assertTrue(garbage.closedByPeer(), "a frame with a garbage header left the connection open");
            oversize.writeRaw(new byte[] {0x7f, (byte)0xff, (byte)0xff, (byte)0xff});
            assertTrue(oversize.closedByPeer(), "an oversize frame left the connection open");
            assertThrows(IOException.class, () -> garbage.roundTrip(
                new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion())));
            final ApiVersionsResponse response = (ApiVersionsResponse)healthy.roundTrip(
                new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));
            assertEquals(Errors.NONE.code(), response.data().errorCode());
            producer.send(new ProducerRecord<>("bad-requests", "after".getBytes(StandardCharsets.UTF_8))).get();
        }
    }
}
