package io.syncmirror.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.common.protocol.ApiKeys;
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
 * Starts a real Kafka 4.4 broker in this JVM beside the reference broker, asks both for ApiVersions, and checks
 * that every API the reference broker advertises has exactly Kafka's version range: a client that negotiates with
 * Kafka 4.4 negotiates the same versions here. Kafka's broker-to-controller APIs (BrokerRegistration,
 * BrokerHeartbeat, AlterPartition, AllocateProducerIds) are compared with Kafka's controller listener, since the
 * reference broker serves them on its one listener when it runs the controller.
 */
@Timeout(180)
class KafkaApiVersionsParityTest
{
    /**
     * Advertised beyond Kafka when mirror.sync.version is above 0 (the default): Fetch v19/v20 (MirrorReplicaInfo)
     * and Produce v14 (the sync error codes). Their lowest versions must still be Kafka's, and their highest is the
     * protocol codecs' highest.
     */
    static final Set<ApiKeys> SYNC_EXTENSIONS = Set.of(ApiKeys.FETCH, ApiKeys.PRODUCE);

    /**
     * APIs whose range stays narrower than Kafka's, with the reason (reference broker / Kafka 4.4):
     * <ul>
     * <li>END_TXN: 0..4 here, 0..5 in Kafka. v5 means transaction version 2 (KIP-890 part 2: the epoch bump on every
     * commit), which the transaction coordinator does not serve; {@code transaction.version} 2 is never finalized,
     * so Kafka's clients send v4 or lower.</li>
     * </ul>
     */
    static final Set<ApiKeys> PENDING_COORDINATOR_REPLACEMENT = Set.of(ApiKeys.END_TXN);

    private static final int READ_TIMEOUT_MS = 15_000;

    private static KafkaReferenceBroker kafka;
    private static EmbeddedCluster reference;

    @BeforeAll
    static void start() throws Exception
    {
        kafka = KafkaReferenceBroker.start();
        reference = EmbeddedCluster.start(1, Map.of());
    }

    @AfterAll
    static void stop() throws Exception
    {
        try
        {
            if (reference != null)
            {
                reference.close();
            }
        }
        finally
        {
            if (kafka != null)
            {
                kafka.close();
            }
        }
    }

    @Test
    @DisplayName("every API the reference broker advertises has Kafka 4.4's min and max version")
    void shouldAdvertiseKafkasVersionRangeForEveryApiItServes() throws Exception
    {
        final Map<Short, WireClient.Range> kafkaBroker = apiVersions(kafka.brokerPort());
        final Map<Short, WireClient.Range> kafkaController = apiVersions(kafka.controllerPort());
        final Map<Short, WireClient.Range> ours = apiVersions(reference.port(1));

        final List<String> differences = new ArrayList<>();
        final Map<String, String> pending = new TreeMap<>();
        int compared = 0;
        for (final Map.Entry<Short, WireClient.Range> api : ours.entrySet())
        {
            final short id = api.getKey();
            if (MirrorApiKeys.forId(id) != null)
            {
                continue;
            }
            if (!ApiKeys.hasId(id))
            {
                differences.add("key " + id + ": advertised, unknown to kafka-clients and not a mirror RPC");
                continue;
            }
            final ApiKeys key = ApiKeys.forId(id);
            final WireClient.Range theirs = kafkaBroker.containsKey(id) ? kafkaBroker.get(id) :
                kafkaController.get(id);
            final WireClient.Range range = api.getValue();
            compared++;
            if (theirs == null)
            {
                differences.add(key + ": advertised " + range + ", Kafka 4.4 advertises it on neither listener");
                continue;
            }
            final short expectedMax = SYNC_EXTENSIONS.contains(key) ? KafkaApiExtensions.latestVersion(key) :
                theirs.max();
            if (range.min() == theirs.min() && range.max() == expectedMax)
            {
                continue;
            }
            final String difference = key + ": " + range + " here, " + theirs + " in Kafka 4.4" +
                (SYNC_EXTENSIONS.contains(key) ? " (up to " + expectedMax + " with the sync extension)" : "");
            if (PENDING_COORDINATOR_REPLACEMENT.contains(key))
            {
                pending.put(key.name(), difference);
            }
            else
            {
                differences.add(difference);
            }
        }
        System.out.println("ApiVersions parity: " + compared + " APIs compared; narrower by design " +
            "(transaction version 2): " + pending.values());
        System.out.println("ApiVersions parity: Kafka 4.4 advertises these on its broker listener, not served " +
            "here: " + unserved(kafkaBroker, ours));
        assertTrue(compared >= 20, "only " + compared + " APIs compared");
        if (!differences.isEmpty())
        {
            fail("version ranges that differ from Kafka 4.4's:\n  " + String.join("\n  ", differences));
        }
        // The exemption is for the coordinator package's APIs only.
        for (final String name : pending.keySet())
        {
            assertTrue(PENDING_COORDINATOR_REPLACEMENT.contains(ApiKeys.valueOf(name)), name);
        }
    }

    @Test
    @DisplayName("Kafka's quirk is kept: Produce is listed from v0, which librdkafka needs for compression")
    void shouldListProduceFromVersionZeroAsKafkaDoes() throws Exception
    {
        final WireClient.Range kafkaProduce = apiVersions(kafka.brokerPort()).get(ApiKeys.PRODUCE.id);
        final WireClient.Range ourProduce = apiVersions(reference.port(1)).get(ApiKeys.PRODUCE.id);
        assertEquals(0, kafkaProduce.min(), "Kafka 4.4 lists Produce from v0 (KAFKA-18659)");
        assertEquals(kafkaProduce.min(), ourProduce.min());
    }

    private static List<String> unserved(final Map<Short, WireClient.Range> kafkaBroker,
        final Map<Short, WireClient.Range> ours)
    {
        final List<String> names = new ArrayList<>();
        for (final short id : kafkaBroker.keySet())
        {
            if (!ours.containsKey(id))
            {
                names.add(ApiKeys.hasId(id) ? ApiKeys.forId(id).name() : Short.toString(id));
            }
        }
        return names;
    }

    private static Map<Short, WireClient.Range> apiVersions(final int port) throws Exception
    {
        try (WireClient client = new WireClient(port, READ_TIMEOUT_MS))
        {
            return client.apiVersions();
        }
    }
}
