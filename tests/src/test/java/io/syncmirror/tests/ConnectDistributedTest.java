package io.syncmirror.tests;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.tests.connect.CollectingSinkConnector;
import io.syncmirror.tests.connect.CollectingSinkTask;
import io.syncmirror.tests.connect.SequenceSourceConnector;
import io.syncmirror.tests.connect.SequenceSourceTask;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka Connect 4.4 in distributed mode on a 3-broker cluster: its config, offset and status topics (created by
 * the worker, compacted), a source and a sink connector (this module's test connectors, found by Connect's
 * service-loader discovery), and a worker restart in the middle of the run: the new worker finds both connectors
 * in the config topic, the source resumes from its stored offset and the sink from its group's committed offsets,
 * so every record is written once and delivered once.
 */
@Timeout(180)
class ConnectDistributedTest
{
    private static final String DATA_TOPIC = "connect-sequence";
    private static final long COUNT = 3_000;
    private static final List<String> INTERNAL_TOPICS = List.of("connect-configs", "connect-offsets",
        "connect-status");

    private static EmbeddedCluster cluster;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start()
    {
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2", "log.cleaner.backoff.ms", "200"));
    }

    @AfterAll
    static void stop()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static Map<String, String> workerProps()
    {
        final Map<String, String> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.bootstrapServers());
        props.put("group.id", "syncmirror-connect");
        props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("config.storage.topic", INTERNAL_TOPICS.get(0));
        props.put("offset.storage.topic", INTERNAL_TOPICS.get(1));
        props.put("status.storage.topic", INTERNAL_TOPICS.get(2));
        props.put("config.storage.replication.factor", "3");
        props.put("offset.storage.replication.factor", "3");
        props.put("status.storage.replication.factor", "3");
        props.put("offset.flush.interval.ms", "500");
        props.put("listeners", "http://127.0.0.1:0");
        props.put("plugin.discovery", "service_load");
        return props;
    }

    private static Connect<DistributedHerder> startWorker()
    {
        return new ConnectDistributed().startConnect(workerProps());
    }

    private static HttpResponse<String> rest(final Connect<DistributedHerder> worker, final String method,
        final String path, final String body) throws Exception
    {
        final String base = worker.rest().serverUrl().toString().replaceAll("/+$", "");
        final HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitRunning(final Connect<DistributedHerder> worker, final String connector)
        throws InterruptedException
    {
        Clients.awaitCondition(() ->
        {
            try
            {
                final String status = rest(worker, "GET", "/connectors/" + connector + "/status", null).body();
                // The connector and its one task.
                return status.split("\"RUNNING\"", -1).length - 1 == 2;
            }
            catch (final Exception e)
            {
                return false;
            }
        }, 60_000, connector + " and its task never ran");
    }

    private static int received()
    {
        return CollectingSinkTask.RECEIVED.size();
    }

    @Test
    @DisplayName("Kafka Connect 4.4 distributed: a source and a sink connector survive a worker restart without "
        + "losing or duplicating configs, offsets or records, on compacted internal topics")
    void shouldRunConnectorsAcrossAWorkerRestart() throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, DATA_TOPIC, 1, (short)3, Map.of());
        }
        CollectingSinkTask.RECEIVED.clear();
        SequenceSourceTask.limit = COUNT / 2;
        final Connect<DistributedHerder> first = startWorker();
        try
        {
            final HttpResponse<String> source = rest(first, "POST", "/connectors", "{\"name\":\"sequence\","
                + "\"config\":{\"connector.class\":\"" + SequenceSourceConnector.class.getName() + "\","
                + "\"tasks.max\":\"1\",\"topic\":\"" + DATA_TOPIC + "\",\"count\":\"" + COUNT + "\","
                + "\"sequence\":\"seq-1\"}}");
            assertEquals(201, source.statusCode(), source.body());
            final HttpResponse<String> sink = rest(first, "POST", "/connectors", "{\"name\":\"collector\","
                + "\"config\":{\"connector.class\":\"" + CollectingSinkConnector.class.getName() + "\","
                + "\"tasks.max\":\"1\",\"topics\":\"" + DATA_TOPIC + "\"}}");
            assertEquals(201, sink.statusCode(), sink.body());
            awaitRunning(first, "sequence");
            awaitRunning(first, "collector");
            Clients.awaitCondition(() -> received() == COUNT / 2, 60_000, "the sink received the first half");
        }
        finally
        {
            first.stop();
            first.awaitStop();
        }
        assertEquals(COUNT / 2, received(), "the worker stopped half way");

        SequenceSourceTask.limit = Long.MAX_VALUE;
        final Connect<DistributedHerder> second = startWorker();
        try
        {
            // Nobody posts the connectors again: the new worker reads them from the config topic.
            awaitRunning(second, "sequence");
            awaitRunning(second, "collector");
            final String connectors = rest(second, "GET", "/connectors", null).body();
            assertTrue(connectors.contains("\"sequence\"") && connectors.contains("\"collector\""), connectors);
            Clients.awaitCondition(() -> received() == COUNT, 90_000,
                "the sink received every record (" + COUNT + ")");
        }
        finally
        {
            second.stop();
            second.awaitStop();
        }

        for (final Map.Entry<String, AtomicInteger> value : CollectingSinkTask.RECEIVED.entrySet())
        {
            assertEquals(1, value.getValue().get(), value.getKey() + " delivered to the sink once");
        }
        // The source wrote each record once: its offset survived the restart.
        final Map<String, Integer> written = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
        {
            for (final ConsumerRecord<byte[], byte[]> record : Clients.readAll(consumer,
                List.of(new TopicPartition(DATA_TOPIC, 0)), (int)COUNT + 100, 10_000))
            {
                written.merge(new String(record.value(), java.nio.charset.StandardCharsets.UTF_8), 1, Integer::sum);
            }
        }
        assertEquals(COUNT, written.size(), "every position written");
        assertTrue(written.values().stream().allMatch(n -> n == 1), "no position written twice: " + written.entrySet()
            .stream().filter(e -> e.getValue() > 1).toList());

        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            for (final String topic : INTERNAL_TOPICS)
            {
                final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                final Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
                assertEquals("compact", config.get("cleanup.policy").value(), topic + " is compacted");
            }
        }
    }
}
