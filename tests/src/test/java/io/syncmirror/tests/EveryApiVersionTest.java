package io.syncmirror.tests;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.KafkaApiExtensions;
import io.syncmirror.protocol.MirrorApiKeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Sends every version of every API the reference broker advertises, as kafka-clients' own message classes write it
 * ({@link MinimalRequests}), and expects each to be answered in that version: a frame that parses completely with
 * that version's schema, the request's correlation id, no UNSUPPORTED_VERSION or other sign of a server fault, and
 * for the data-path APIs the records and offsets of a real partition. The versions listed in {@link #SKIPPED} are
 * the only ones not sent this way, each for the reason given there.
 */
@Timeout(240)
class EveryApiVersionTest
{
    /**
     * The advertised versions not swept, and why. Nothing else is left out: the sweep fails on an advertised version
     * it has no request for.
     */
    static final Map<String, String> SKIPPED = Map.of(
        "PRODUCE v0-v2", "advertised only because Kafka 4.4 advertises them (KAFKA-18659: librdkafka enables its " +
            "compression codecs only when Produce v0 is listed); kafka-clients 4.4 has no schema for them, so no " +
            "request can be written. Kafka closes a connection that sends one, and so does this broker: " +
            "shouldCloseTheConnectionOnProduceV0ToV2AsKafkaDoes",
        "the mirror-only keys (MirrorApiKeys 95-104)", "not kafka-clients messages: each has its own codec tests in " +
            "the protocol module and broker tests through MirrorWireClient");

    /** Errors that only a server fault, or a version answered in the wrong layout, produces for these requests. */
    private static final Set<Errors> FAULTS = Set.of(Errors.UNSUPPORTED_VERSION, Errors.UNKNOWN_SERVER_ERROR,
        Errors.CORRUPT_MESSAGE, Errors.INVALID_REQUEST);
    private static final String TOPIC = "sweep";
    private static final int RECORDS = 3;
    private static final int READ_TIMEOUT_MS = 15_000;

    private static EmbeddedCluster cluster;
    private static MinimalRequests.Fixture fixture;

    @BeforeAll
    static void start() throws Exception
    {
        cluster = EmbeddedCluster.start(1, Map.of());
        final Uuid topicId;
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short)1))).all().get();
            topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
        }
        fixture = new MinimalRequests.Fixture(TOPIC, topicId, RECORDS, 1);
        final ProduceRequestData produce = MinimalRequests.produce(ApiKeys.PRODUCE.latestVersion(), fixture);
        produce.topicData().iterator().next().partitionData().get(0).setRecords(MinimalRequests.records(RECORDS,
            1000L));
        try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
        {
            final ProduceResponse response = (ProduceResponse)client.roundTrip(ApiKeys.PRODUCE,
                ApiKeys.PRODUCE.latestVersion(), produce.setAcks((short)-1));
            assertEquals(Map.of(Errors.NONE, 1), response.errorCounts());
        }
    }

    @AfterAll
    static void stop()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    @Test
    @DisplayName("every advertised version of every Kafka API is answered, well-formed, in that version")
    void shouldAnswerEveryAdvertisedVersionOfEveryApiInThatVersion() throws Exception
    {
        final Map<Short, WireClient.Range> advertised;
        try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
        {
            advertised = client.apiVersions();
        }
        final List<String> failures = new ArrayList<>();
        int sent = 0;
        WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS);
        try
        {
            for (final Map.Entry<Short, WireClient.Range> api : advertised.entrySet())
            {
                if (MirrorApiKeys.forId(api.getKey()) != null)
                {
                    continue;
                }
                assertTrue(ApiKeys.hasId(api.getKey()), "an advertised key kafka-clients does not know: " +
                    api.getKey());
                final ApiKeys key = ApiKeys.forId(api.getKey());
                for (short version = api.getValue().min(); version <= api.getValue().max(); version++)
                {
                    if (key == ApiKeys.PRODUCE && version < key.oldestVersion())
                    {
                        continue;
                    }
                    if (!key.isVersionSupported(version) && !KafkaApiExtensions.isBeyondKafka(key, version))
                    {
                        failures.add(key + " v" + version + ": advertised, but neither kafka-clients nor the " +
                            "protocol codecs can write it, and it is not in SKIPPED");
                        continue;
                    }
                    for (final MinimalRequests.Probe probe : MinimalRequests.of(key, version, fixture))
                    {
                        sent++;
                        try
                        {
                            final AbstractResponse response = key.isVersionSupported(version) ?
                                client.roundTrip(key, version, probe.request()) :
                                roundTripBeyondKafka(client, key, version, probe.request());
                            check(key, response, probe.expectedErrors());
                            probe.check().accept(response);
                        }
                        catch (final IOException | RuntimeException | AssertionError e)
                        {
                            failures.add(key + " v" + version + " (" + probe.what() + "): " + e);
                            client.close();
                            client = new WireClient(cluster.port(1), READ_TIMEOUT_MS);
                        }
                    }
                }
            }
        }
        finally
        {
            client.close();
        }
        assertTrue(sent > 200, "only " + sent + " requests sent");
        if (!failures.isEmpty())
        {
            fail(failures.size() + " of " + sent + " requests not answered well:\n  " + String.join("\n  ",
                failures));
        }
    }

    @Test
    @DisplayName("Produce v0-v2 (advertised, as Kafka 4.4 does, but without a schema) closes the connection, as in Kafka")
    void shouldCloseTheConnectionOnProduceV0ToV2AsKafkaDoes() throws Exception
    {
        for (short version = 0; version < ApiKeys.PRODUCE.oldestVersion(); version++)
        {
            try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
            {
                // The v3 body under a v0-v2 header: the broker cannot know which layout the client meant.
                client.sendSerialized(ApiKeys.PRODUCE, version, (short)1, ByteBuffer.wrap(new byte[] {-1, -1, 0, 1,
                    0, 0, 39, 16, 0, 0, 0, 0}));
                assertTrue(client.closedByPeer(), "Produce v" + version + " left the connection open");
            }
        }
        assertStillServing();
    }

    @Test
    @DisplayName("a version or API not advertised closes the connection, as in Kafka, and nothing else")
    void shouldCloseTheConnectionOnAnUnadvertisedVersionOrApiAsKafkaDoes() throws Exception
    {
        final Map<Short, WireClient.Range> advertised;
        try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
        {
            advertised = client.apiVersions();
        }
        // InitProducerId v6 has a schema (kafka-clients marks it unstable) but Kafka 4.4 does not advertise it.
        assertEquals(5, advertised.get(ApiKeys.INIT_PRODUCER_ID.id).max());
        try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
        {
            client.send(ApiKeys.INIT_PRODUCER_ID, (short)6, new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(60_000));
            assertTrue(client.closedByPeer(), "InitProducerId v6 left the connection open");
        }
        // An API this broker does not serve at all.
        assertTrue(!advertised.containsKey(ApiKeys.DESCRIBE_CLIENT_QUOTAS.id),
            "DescribeClientQuotas is served now: pick another");
        try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
        {
            client.send(ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.DESCRIBE_CLIENT_QUOTAS.latestVersion(),
                ApiKeys.DESCRIBE_CLIENT_QUOTAS.messageType.newRequest());
            assertTrue(client.closedByPeer(), "an unserved DescribeClientQuotas left the connection open");
        }
        assertStillServing();
    }

    private static void assertStillServing() throws IOException
    {
        try (WireClient client = new WireClient(cluster.port(1), READ_TIMEOUT_MS))
        {
            final AbstractResponse response = client.roundTrip(ApiKeys.FETCH, ApiKeys.FETCH.latestVersion(),
                MinimalRequests.fetch(ApiKeys.FETCH.latestVersion(), fixture, -1, IsolationLevel.READ_UNCOMMITTED, -1));
            MinimalRequests.checkFetched(response, fixture);
        }
    }

    private static void check(final ApiKeys key, final AbstractResponse response, final Set<Errors> expected)
    {
        assertEquals(key, response.apiKey());
        for (final Errors error : response.errorCounts().keySet())
        {
            assertTrue(!FAULTS.contains(error) || expected.contains(error), "answered " + error + " (" +
                response.errorCounts() + ")");
        }
    }

    /** Fetch v19/v20 and Produce v14, written and read by the protocol codecs in their layout versions. */
    private static AbstractResponse roundTripBeyondKafka(final WireClient client, final ApiKeys key,
        final short version, final ApiMessage request) throws IOException
    {
        final short layout = KafkaApiExtensions.layoutVersion(key, version);
        final ByteBuffer body = key == ApiKeys.FETCH ?
            KafkaApiExtensions.serializeFetchRequest((org.apache.kafka.common.message.FetchRequestData)request, null,
                version) :
            KafkaApiExtensions.serializeProduceRequest((ProduceRequestData)request, version);
        final int correlationId = client.sendSerialized(key, version, key.requestHeaderVersion(layout), body);
        final ByteBuffer answer = client.receiveSerialized(correlationId, key.responseHeaderVersion(layout));
        if (key == ApiKeys.FETCH)
        {
            final FetchResponseData data = KafkaApiExtensions.parseFetchResponse(answer, version);
            return FetchResponse.of(data);
        }
        final ProduceResponseData data = KafkaApiExtensions.parseProduceResponse(answer, version);
        return new ProduceResponse(data);
    }
}
